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
	"context"
	"reflect"
	"testing"

	"github.com/kubage/kubage/internal/retrieval"
)

func TestLinkResolver(t *testing.T) {
	r := NewLinkResolver([]string{
		"concepts/architecture/nodes.md", "concepts/architecture/_index.md", "concepts/workloads/pods/downward-api.md",
		"node/NodeRAIDDegraded.md", "node/NodeRAIDDiskFailure.md", "tasks/debug/_index.md",
	})
	cases := []struct {
		name, from, dest string
		want             retrieval.Link
		ok               bool
	}{
		{"hugo site path", "concepts/workloads/pods/downward-api.md", "/docs/concepts/architecture/nodes/", retrieval.Link{Path: "concepts/architecture/nodes.md"}, true},
		{"hugo site path with anchor", "x.md", "/docs/concepts/architecture/nodes#condition", retrieval.Link{Path: "concepts/architecture/nodes.md", Anchor: "condition"}, true},
		{"section index", "x.md", "/docs/concepts/architecture/", retrieval.Link{Path: "concepts/architecture/_index.md"}, true},
		{"relative file", "node/NodeRAIDDiskFailure.md", "./NodeRAIDDegraded.md", retrieval.Link{Path: "node/NodeRAIDDegraded.md"}, true},
		{"hugo relative to the page's own URL", "concepts/architecture/nodes.md", "../workloads/pods/downward-api/", retrieval.Link{Path: "concepts/workloads/pods/downward-api.md"}, true},
		{"missing page kept as written", "x.md", "/docs/reference/kubectl/", retrieval.Link{URL: "/docs/reference/kubectl/"}, true},
		{"external URL", "x.md", "https://etcd.io/docs/#x", retrieval.Link{URL: "https://etcd.io/docs/#x"}, true},
		{"in-page anchor dropped", "x.md", "#meaning", retrieval.Link{}, false},
		{"mail dropped", "x.md", "mailto:a@b.c", retrieval.Link{}, false},
		{"self link dropped", "node/NodeRAIDDegraded.md", "NodeRAIDDegraded.md", retrieval.Link{}, false},
		{"escaping the source kept as written", "x.md", "../../outside.md", retrieval.Link{URL: "../../outside.md"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := r.Resolve(c.from, RawLink{Dest: c.dest, Kind: retrieval.LinkInline})
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, c.ok, got)
			}
			if !ok {
				return
			}
			c.want.Kind = retrieval.LinkInline
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Resolve = %+v, want %+v", got, c.want)
			}
		})
	}
}

const linkedRunbook = `---
title: Node RAID Disk Failure
related:
  - ./NodeRAIDDegraded.md
  - {title: mdadm, url: "https://raid.wiki.kernel.org/"}
---
# NodeRAIDDiskFailure

## Meaning

A disk failed; the array is now [degraded]({{< ref "./NodeRAIDDegraded.md" >}}).
See <https://example.com/raid> and [our mail](mailto:ops@example.com).

## See also

- [Clock skew](./NodeClockSkewDetected.md)
- [RAID degraded](NodeRAIDDegraded.md#mitigation)
`

func TestChunkLinksFromMarkdown(t *testing.T) {
	doc, err := ParseMarkdown("node/NodeRAIDDiskFailure.md", []byte(linkedRunbook))
	if err != nil {
		t.Fatal(err)
	}
	r := NewLinkResolver([]string{"node/NodeRAIDDiskFailure.md", "node/NodeRAIDDegraded.md", "node/NodeClockSkewDetected.md"})
	chunks, err := ChunkDocument(doc, ChunkMeta{Source: "ns/kb", Path: "node/NodeRAIDDiskFailure.md", Links: r},
		ChunkOptions{MinTokens: 1, TargetTokens: 16, MaxTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	// Every link once, in the order the chunks first carry it.
	var all []retrieval.Link
	seen := map[string]bool{}
	for _, c := range chunks {
		for _, l := range c.Links {
			if k := l.Path + "|" + l.URL; !seen[k] {
				seen[k] = true
				all = append(all, l)
			}
		}
	}
	// The first chunk links to NodeRAIDDegraded once: the front-matter link, which is
	// stronger than the inline one to the same page (and the See also entry's anchor).
	want := []retrieval.Link{
		{Path: "node/NodeRAIDDegraded.md", Kind: retrieval.LinkFrontMatter},
		{URL: "https://raid.wiki.kernel.org/", Text: "mdadm", Kind: retrieval.LinkFrontMatter},
		{URL: "https://example.com/raid", Kind: retrieval.LinkInline},
		{Path: "node/NodeClockSkewDetected.md", Text: "Clock skew", Kind: retrieval.LinkRelated},
	}
	if !reflect.DeepEqual(all, want) {
		t.Fatalf("links =\n%+v\nwant\n%+v", all, want)
	}
	// The page's own "read next" list (See also, front matter) travels with every chunk.
	if len(chunks) < 2 {
		t.Fatalf("want several chunks, got %d", len(chunks))
	}
	for _, c := range chunks {
		kinds := map[string]retrieval.LinkKind{}
		for _, l := range c.Links {
			kinds[l.Path+l.URL] = l.Kind
		}
		if kinds["node/NodeClockSkewDetected.md"] != retrieval.LinkRelated || kinds["https://raid.wiki.kernel.org/"] != retrieval.LinkFrontMatter {
			t.Errorf("chunk %d links = %+v", c.Ordinal, c.Links)
		}
	}
}

func TestIndexResolvesLinksAcrossTheSource(t *testing.T) {
	store := retrieval.NewEmbedded(retrieval.EmbeddedOptions{})
	src := &ConfigMapSource{Data: map[string]string{
		"a.md": "# A\n\nRestart the pod, then read [B](b.md).\n\n## What's next\n\n* [C](/docs/c/)\n",
		"b.md": "# B\n\nBody of b.",
		"c.md": "# C\n\nBody of c.",
	}}
	if _, err := Index(context.Background(), src, store, IndexConfig{Source: "ns/kb"}); err != nil {
		t.Fatal(err)
	}
	lead, err := store.LeadChunks(context.Background(), "ns/kb", []string{"a.md"})
	if err != nil || len(lead) != 1 {
		t.Fatalf("lead = %+v, %v", lead, err)
	}
	got := map[string]retrieval.LinkKind{}
	for _, l := range lead[0].Links {
		got[l.Path] = l.Kind
	}
	if got["b.md"] != retrieval.LinkInline || got["c.md"] != retrieval.LinkRelated {
		t.Fatalf("links of a.md = %+v", lead[0].Links)
	}
}
