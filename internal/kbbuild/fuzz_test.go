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
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParseMarkdown feeds arbitrary bytes through the Markdown parser and the
// chunker: neither may panic, and the chunks must keep the chunker's guarantees.
func FuzzParseMarkdown(f *testing.F) {
	seeds := []string{
		"",
		"# T\n\n## A {#a}\n\ntext\n",
		"---\ntitle: x\n---\nbody",
		"---\ntitle: [\n---\n",
		"{{< note >}}\n{{< glossary_tooltip text=\"t\" term_id=\"x\" >}}\n{{< /note >}}",
		"{{% heading \"prerequisites\" %}}\n{{< tabs name=\"a\" >}}{{% tab name=\"b\" %}}c{{% /tab %}}{{< /tabs >}}",
		"{{< tab name=\"x\" codelang=\"sh\" >}}\nls\n{{< /tab >}}{{<mermaid>}}a{{</mermaid>}}{{< comment >}}",
		"```\nunclosed fence\n",
		"| a |\n|---|\n| b |\n\n- [x] task\n\nterm\n: definition\n",
		"<div><script>x</script></div>\n\n<!-- c -->",
		"{{<{{%{{<>}}%}}",
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "golden", "..", "..", "..", "..", "..", "shared", "corpus", "k8s-docs", "concepts", "workloads", "pods", "downward-api.md")); err == nil {
		seeds = append(seeds, string(b))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	opts := ChunkOptions{MinTokens: 16, TargetTokens: 64, MaxTokens: 128}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("input of %d bytes took over 10s: %q", len(src), src))
			}
		}()
		doc, err := ParseMarkdown("fuzz.md", []byte(src))
		if err != nil {
			return
		}
		cs, err := ChunkDocument(doc, ChunkMeta{Source: "f", Path: "fuzz.md"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkChunkInvariants(t, "fuzz", cs, opts)
	})
}
