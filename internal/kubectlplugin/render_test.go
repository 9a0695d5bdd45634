/*
Copyright 2026 The KubAge Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package kubectlplugin

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

var update = flag.Bool("update", false, "rewrite the golden files of the renderer")

// testdata/report.md is a report as internal/report writes it (headings, emphasis, lists,
// nested code fences, escapes, anchors, a table).
func TestRenderMarkdownGolden(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("testdata", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		golden string
		color  bool
	}{{"report.tty.golden", true}, {"report.plain.golden", false}} {
		t.Run(c.golden, func(t *testing.T) {
			got := RenderMarkdown(string(md), 80, c.color)
			path := filepath.Join("testdata", c.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			NewWithT(t).Expect(got).To(Equal(string(want)))
		})
	}
}

func TestRenderMarkdown(t *testing.T) {
	g := NewWithT(t)
	out := RenderMarkdown("# Title\n\nSome **bold** and `code` with a [link](https://x.io) and [anchor](#a).\n", 80, true)
	g.Expect(out).To(ContainSubstring(styleBold + styleUnderline + "Title" + styleReset))
	g.Expect(out).To(ContainSubstring(styleBold + "bold" + styleReset))
	g.Expect(out).To(ContainSubstring(styleCode + "code" + styleReset))
	g.Expect(out).To(ContainSubstring("link (https://x.io) and anchor."))

	plain := RenderMarkdown("- "+strings.Repeat("word ", 30)+"\n", 40, false)
	for i, line := range strings.Split(strings.TrimRight(plain, "\n"), "\n") {
		g.Expect(len([]rune(line))).To(BeNumerically("<=", 40), line)
		if i == 0 {
			g.Expect(line).To(HavePrefix("• word"))
		} else {
			g.Expect(line).To(HavePrefix("  word"), "hanging indent under the bullet")
		}
	}
	g.Expect(plain).NotTo(ContainSubstring("\x1b"))
}

func TestSanitizeKeepsTheTerminalSafe(t *testing.T) {
	g := NewWithT(t)
	g.Expect(Sanitize("ok\x1b]0;pwned\x07 line\nnext\ttab\u009b")).To(Equal("ok]0;pwned line\nnext\ttab"))
	g.Expect(RenderMarkdown("evil \x1b[2J clear", 80, false)).To(Equal("evil [2J clear\n"))
	g.Expect(oneLine("a\x1b[31m\n b")).To(Equal("a[31m b"))
}
