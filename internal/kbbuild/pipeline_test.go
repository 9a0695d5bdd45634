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
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kubage/kubage/internal/retrieval"
)

// countingEmbedder returns a fixed vector per text and counts the texts it saw.
type countingEmbedder struct {
	texts int
	fail  bool
}

func (c *countingEmbedder) Model() string { return "test-model" }

func (c *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if c.fail {
		return nil, errors.New("endpoint down")
	}
	c.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}

func TestIndexIncrementalWithEmbeddings(t *testing.T) {
	ctx := context.Background()
	store := retrieval.NewEmbedded(retrieval.DefaultEmbeddedOptions)
	emb := &countingEmbedder{}
	src := &ConfigMapSource{Data: map[string]string{
		"a.md": "# A\n\nalpha text about disks\n",
		"b.md": "# B\n\nbravo text about certificates\n",
		"c.md": "---\ntitle: [broken\n---\n# C\n\ncharlie\n",
	}}
	cfg := IndexConfig{Source: "ns/kb", Domain: "ops", TrustLevel: 3, Embedder: emb}
	st, err := Index(ctx, src, store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 3 || st.Docs != 3 || len(st.Failed) != 0 || len(st.Warnings) != 1 || st.Warnings[0].Path != "c.md" {
		t.Fatalf("first run: %+v", st)
	}
	firstTexts := emb.texts
	hits, _ := store.Search(ctx, retrieval.Query{Text: "bravo certificates", TopK: 1})
	if len(hits) != 1 || hits[0].Chunk.VectorModel != "test-model" || len(hits[0].Chunk.Vector) != 0 || hits[0].Chunk.Domain != "ops" {
		t.Fatalf("indexed chunk: %+v", hits)
	}

	// Same content: nothing re-embedded.
	st, _ = Index(ctx, src, store, cfg)
	if st.Unchanged != 3 || emb.texts != firstTexts {
		t.Fatalf("second run re-processed: %+v, embedded %d texts", st, emb.texts-firstTexts)
	}

	// One document changes, one disappears.
	src.Data["a.md"] = "# A\n\nalpha text about full disks\n"
	delete(src.Data, "b.md")
	st, _ = Index(ctx, src, store, cfg)
	if st.Updated != 1 || st.Removed != 1 || st.Unchanged != 1 || st.Docs != 2 {
		t.Fatalf("third run: %+v", st)
	}
	if emb.texts-firstTexts != 1 {
		t.Fatalf("embedded %d texts, want only the changed document's chunk", emb.texts-firstTexts)
	}

	// Embedding endpoint down: the changed document fails, its last good version keeps serving.
	emb.fail = true
	src.Data["a.md"] = "# A\n\nalpha text about inodes\n"
	st, err = Index(ctx, src, store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Failed) != 1 || st.Failed[0].Path != "a.md" || !strings.Contains(st.Failed[0].Err, "endpoint down") {
		t.Fatalf("embedding failure: %+v", st)
	}
	hits, _ = store.Search(ctx, retrieval.Query{Text: "full disks", TopK: 1})
	if len(hits) != 1 || hits[0].Chunk.Path != "a.md" || !strings.Contains(hits[0].Chunk.Text, "full disks") {
		t.Fatalf("last good version not served: %+v", hits)
	}

	// New settings re-process everything even though content is unchanged.
	emb.fail = false
	cfg.TrustLevel = 5
	st, _ = Index(ctx, src, store, cfg)
	if st.Updated != 2 {
		t.Fatalf("settings change: %+v", st)
	}
	hits, _ = store.Search(ctx, retrieval.Query{Text: "charlie", TopK: 1, Filter: retrieval.Filter{MinTrust: 5}})
	if len(hits) != 1 {
		t.Fatal("trust level change not applied")
	}
}

func TestIndexBadDocumentsDoNotFailTheSource(t *testing.T) {
	ctx := context.Background()
	store := retrieval.NewEmbedded(retrieval.EmbeddedOptions{MaxChunks: 3})
	var big strings.Builder
	for i := 0; i < 50; i++ {
		big.WriteString("## H\n\n" + strings.Repeat("word ", 300) + "\n\n")
	}
	src := &ConfigMapSource{Data: map[string]string{
		"ok.md":     "# OK\n\nfine",
		"binary.md": "\x00\x00",
		"big.md":    big.String(),
	}}
	st, err := Index(ctx, src, store, IndexConfig{Source: "s"})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, f := range st.Failed {
		failed[f.Path] = f.Err
	}
	if st.Added != 1 || failed["binary.md"] == "" || !strings.Contains(failed["big.md"], "full") {
		t.Fatalf("stats %+v", st)
	}
	st, _ = Index(ctx, src, store, IndexConfig{Source: "s", MaxChunksPerDocument: 2})
	if !strings.Contains(fmt.Sprint(st.Failed), "limit 2") {
		t.Fatalf("chunk limit not enforced: %+v", st.Failed)
	}
}

func TestIndexSourceErrorKeepsTheIndex(t *testing.T) {
	ctx := context.Background()
	store := retrieval.NewEmbedded(retrieval.EmbeddedOptions{})
	if _, err := Index(ctx, &InlineSource{Text: "# T\n\nkeep me"}, store, IndexConfig{Source: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Index(ctx, &HTTPSource{}, store, IndexConfig{Source: "s"}); err == nil {
		t.Fatal("broken source should fail the run")
	}
	if docs, _, _ := store.Counts(ctx, "s"); docs != 1 {
		t.Fatalf("index lost after a failed fetch: %d docs", docs)
	}
	if _, err := Index(ctx, &InlineSource{}, store, IndexConfig{}); err == nil {
		t.Fatal("missing source name accepted")
	}
	if _, err := Index(ctx, &InlineSource{}, store, IndexConfig{Source: "s", Chunking: ChunkOptions{MinTokens: 10, TargetTokens: 5, MaxTokens: 4}}); err == nil {
		t.Fatal("bad chunk options accepted")
	}
}

func TestFormatFor(t *testing.T) {
	for p, want := range map[string]Format{"a.md": FormatMarkdown, "b.HTML": FormatHTML, "c.htm": FormatHTML, "d.txt": FormatText, "e": FormatMarkdown, "https://x/y": FormatMarkdown} {
		if got := formatFor("", p); got != want {
			t.Errorf("formatFor(%q) = %s, want %s", p, got, want)
		}
	}
	if formatFor(FormatText, "a.md") != FormatText {
		t.Error("explicit format ignored")
	}
}
