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

package kbbuild

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// corpusDir returns the shared corpus next to the repository, or skips.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runbooks")); err != nil {
		t.Skipf("shared corpus not available at %s (%v)", dir, err)
	}
	return dir
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden file (run go test -update after checking the diff)\n got:\n%s", name, got)
	}
}

func TestParseMarkdownFrontMatterAndTree(t *testing.T) {
	src := `---
title: Downward API
description: >
  Expose Pod fields
  to containers.
weight: 170
---
<!-- overview -->
Intro paragraph.

## Available fields {#fields}

Some text with a [link](/docs/x/) and ` + "`code`" + `.

### Information via fieldRef

- one
- two

## {{% heading "whatsnext" %}}

Read more.
`
	doc, err := ParseMarkdown("concepts/downward-api.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `title: Downward API
description: Expose Pod fields to containers.
(root) blocks=1
  Available fields {#fields} blocks=1
    Information via fieldRef {#information-via-fieldref} blocks=2
  What's next {#whats-next} blocks=1
`
	if got := doc.Outline(); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
	if got := doc.Root.Children[0].Blocks[0].Text; got != "Some text with a link and `code`." {
		t.Errorf("link text rendering: %q", got)
	}
	if doc.FrontMatter["weight"] != 170 {
		t.Errorf("front matter weight = %v", doc.FrontMatter["weight"])
	}
}

func TestParseMarkdownTitleFallbacks(t *testing.T) {
	doc, _ := ParseMarkdown("runbooks/etcd/etcdMembersDown.md", []byte("# etcdMembersDown\n\n## Meaning\n\ntext\n"))
	if doc.Title != "etcdMembersDown" {
		t.Errorf("H1 title = %q", doc.Title)
	}
	doc, _ = ParseMarkdown("docs/pod-overhead.md", []byte("## Only H2\n\ntext\n"))
	if doc.Title != "pod overhead" {
		t.Errorf("file-name title = %q", doc.Title)
	}
	doc, _ = ParseMarkdown("node/_index.md", []byte("text"))
	if doc.Title != "node" {
		t.Errorf("_index title = %q", doc.Title)
	}
}

func TestParseMarkdownMalformedFrontMatter(t *testing.T) {
	doc, err := ParseMarkdown("x.md", []byte("---\ntitle: [unclosed\n---\n# Real title\n\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "malformed front matter") {
		t.Errorf("warnings = %v", doc.Warnings)
	}
	if doc.Title != "Real title" || len(doc.Root.Children) != 1 {
		t.Errorf("body not parsed after bad front matter: %s", doc.Outline())
	}
	// A front matter fence that never closes is body text, not an error.
	doc, _ = ParseMarkdown("y.md", []byte("---\nno closing fence\n"))
	if len(doc.Warnings) != 0 {
		t.Errorf("unexpected warnings %v", doc.Warnings)
	}
}

func TestParseMarkdownManyHeadings(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&b, "%s Heading %d\n\ntext %d\n\n", strings.Repeat("#", 1+i%6), i, i)
	}
	doc, err := ParseMarkdown("big.md", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	doc.Root.Walk(func(*Section, []string) { n++ })
	if n != 10001 {
		t.Errorf("sections = %d, want 10001", n)
	}
	chunks, err := ChunkDocument(doc, ChunkMeta{Source: "s", Path: "big.md"}, ChunkOptions{})
	if err != nil || len(chunks) == 0 {
		t.Fatalf("chunks = %d, err %v", len(chunks), err)
	}
}

func TestParseMarkdownRejectsHugeInput(t *testing.T) {
	if _, err := ParseMarkdown("huge.md", make([]byte, MaxParseBytes+1)); err == nil {
		t.Fatal("expected an error for input over MaxParseBytes")
	}
}

func TestParseMarkdownKeepsCodeAndTables(t *testing.T) {
	src := "## Run\n\n```shell\n$ kubectl get po\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n<div>raw <b>html</b></div>\n"
	doc, _ := ParseMarkdown("x.md", []byte(src))
	blocks := doc.Root.Children[0].Blocks
	kinds := []BlockKind{}
	for _, b := range blocks {
		kinds = append(kinds, b.Kind)
	}
	want := []BlockKind{BlockCode, BlockTable, BlockQuote, BlockParagraph}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("kinds = %v, want %v", kinds, want)
	}
	if blocks[0].Text != "```shell\n$ kubectl get po\n```" {
		t.Errorf("code = %q", blocks[0].Text)
	}
	if blocks[1].Text != "| a | b |\n| --- | --- |\n| 1 | 2 |" {
		t.Errorf("table = %q", blocks[1].Text)
	}
	if blocks[3].Text != "raw html" {
		t.Errorf("html block = %q", blocks[3].Text)
	}
}

// TestCorpusGolden pins the section trees of representative corpus pages.
func TestCorpusGolden(t *testing.T) {
	dir := corpusDir(t)
	for _, p := range []string{
		"runbooks/etcd/etcdMembersDown.md",
		"runbooks/node/NodeFileDescriptorLimit.md",
		"k8s-docs/concepts/workloads/pods/downward-api.md",
		"k8s-docs/tasks/debug/debug-cluster/monitor-node-health.md",
		"k8s-docs/concepts/policy/resource-quotas.md",
		"k8s-docs/tasks/run-application/delete-stateful-set.md",
	} {
		t.Run(p, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := ParseMarkdown(p, b)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.ReplaceAll(p, "/", "_")
			golden(t, name+".outline", doc.Outline())
			chunks, err := ChunkDocument(doc, ChunkMeta{Source: "golden", Path: p}, ChunkOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			for _, c := range chunks {
				fmt.Fprintf(&sb, "=== %s %q tokens=%d anchor=%s parent=%s\n%s\n", c.ID[:8], c.HeadingPath, c.Tokens, c.Anchor, short(c.ParentID), c.Text)
			}
			golden(t, name+".chunks", sb.String())
		})
	}
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
