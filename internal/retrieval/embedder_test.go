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

package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubage/kubage/internal/text"
)

// fakeEmbeddings is an OpenAI-compatible /embeddings endpoint returning
// deterministic bag-of-words vectors, so texts sharing words are close.
type fakeEmbeddings struct {
	mu        sync.Mutex
	dims      int
	requests  int
	inputs    int
	failFirst int // answer this many requests with 503
	wrongDims bool
	dropOne   bool
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer k" {
		http.Error(w, `{"error":{"message":"bad path or key"}}`, http.StatusUnauthorized)
		return
	}
	if f.failFirst > 0 {
		f.failFirst--
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"message":"overloaded","type":"server_error"}}`))
		return
	}
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.inputs += len(req.Input)
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	var data []item
	for i, in := range req.Input {
		dims := f.dims
		if f.wrongDims && i == len(req.Input)-1 {
			dims++
		}
		data = append(data, item{Object: "embedding", Embedding: bagOfWords(in, dims), Index: i})
	}
	if f.dropOne {
		data = data[1:]
	}
	// Reverse the order: clients must sort by index.
	for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
		data[i], data[j] = data[j], data[i]
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model, "usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

func bagOfWords(s string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range (Analyzer{}).Terms(s) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	v[0] += 0.01 // never the zero vector
	return v
}

func newFakeEmbedder(t *testing.T, f *fakeEmbeddings, cfg OpenAIEmbedderConfig) *OpenAIEmbedder {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.APIKey, cfg.Model = srv.URL+"/v1", "k", "fake-embed"
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	e, err := NewOpenAIEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOpenAIEmbedderBatchesAndCaches(t *testing.T) {
	f := &fakeEmbeddings{dims: 32}
	e := newFakeEmbedder(t, f, OpenAIEmbedderConfig{BatchSize: 2})
	ctx := context.Background()
	texts := []string{"disk full", "certificate expired", "etcd quorum lost", "disk full"}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 4 || len(vecs[0]) != 32 {
		t.Fatalf("vectors %d x %d", len(vecs), len(vecs[0]))
	}
	for i, txt := range texts {
		want := bagOfWords(txt, 32)
		for d := range want {
			if vecs[i][d] != want[d] {
				t.Fatalf("vector %d not in input order", i)
			}
		}
	}
	// "disk full" twice in one call is still sent twice (not cached yet), in batches of 2.
	if f.requests != 2 || f.inputs != 4 {
		t.Errorf("requests %d inputs %d, want 2 and 4", f.requests, f.inputs)
	}
	if _, err := e.Embed(ctx, []string{"disk full", "etcd quorum lost"}); err != nil || f.requests != 2 {
		t.Errorf("cached texts were sent again (requests %d, err %v)", f.requests, err)
	}
	if e.Calls() != 2 || e.Model() != "fake-embed" {
		t.Errorf("calls %d model %s", e.Calls(), e.Model())
	}
}

func TestOpenAIEmbedderErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("retries 5xx then succeeds", func(t *testing.T) {
		f := &fakeEmbeddings{dims: 8, failFirst: 2}
		e := newFakeEmbedder(t, f, OpenAIEmbedderConfig{})
		if _, err := e.Embed(ctx, []string{"x"}); err != nil || f.requests != 3 {
			t.Fatalf("err %v after %d requests", err, f.requests)
		}
	})
	t.Run("gives up after retries", func(t *testing.T) {
		f := &fakeEmbeddings{dims: 8, failFirst: 10}
		e := newFakeEmbedder(t, f, OpenAIEmbedderConfig{Retries: 1})
		if _, err := e.Embed(ctx, []string{"x"}); err == nil || f.requests != 2 {
			t.Fatalf("err %v after %d requests", err, f.requests)
		}
	})
	t.Run("wrong dimension", func(t *testing.T) {
		f := &fakeEmbeddings{dims: 8, wrongDims: true}
		e := newFakeEmbedder(t, f, OpenAIEmbedderConfig{})
		if _, err := e.Embed(ctx, []string{"a", "b"}); !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("configured dimension", func(t *testing.T) {
		e := newFakeEmbedder(t, &fakeEmbeddings{dims: 8}, OpenAIEmbedderConfig{Dimensions: 16})
		if _, err := e.Embed(ctx, []string{"a"}); !errors.Is(err, ErrDimensionMismatch) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing vector", func(t *testing.T) {
		e := newFakeEmbedder(t, &fakeEmbeddings{dims: 8, dropOne: true}, OpenAIEmbedderConfig{})
		if _, err := e.Embed(ctx, []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "1 vectors for 2 inputs") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		if _, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{Model: "m"}); err == nil {
			t.Fatal("missing base URL accepted")
		}
	})
	if got := text.Clip("héllo", 2); got != "h" {
		t.Errorf("truncate cut inside a rune: %q", got)
	}
}

func TestRetrieverHybridWithEmbeddings(t *testing.T) {
	f := &fakeEmbeddings{dims: 64}
	e := newFakeEmbedder(t, f, OpenAIEmbedderConfig{})
	ctx := context.Background()
	store := NewEmbedded(DefaultEmbeddedOptions)
	chunks := []Chunk{
		{ID: "a", DocTitle: "Disk", HeadingPath: []string{"Disk"}, Text: "The node disk is almost full; clean up images."},
		{ID: "b", DocTitle: "Certs", HeadingPath: []string{"Certs"}, Text: "Kubelet client certificate expires soon; rotate it."},
	}
	vecs, err := e.Embed(ctx, []string{chunks[0].EmbeddingText(), chunks[1].EmbeddingText()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range chunks {
		chunks[i].Vector, chunks[i].VectorModel = vecs[i], e.Model()
	}
	if err := store.ReplaceDocument(ctx, "s", "doc.md", "h", chunks); err != nil {
		t.Fatal(err)
	}
	r := &Retriever{Store: store, Embedder: e, Fusion: DefaultFusion}
	resp, err := r.Search(ctx, Request{Query: "certificate rotate", TopK: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].ChunkID != "b" || resp.Results[0].LegRanks[LegDense] != 1 || len(resp.Warnings) != 0 {
		t.Fatalf("results %+v warnings %v", resp.Results, resp.Warnings)
	}
	dense, _ := r.Search(ctx, Request{Query: "certificate rotate", TopK: 2, Legs: []Leg{LegDense}})
	if len(dense.Results) != 2 || dense.Results[0].LegRanks[LegBody] != 0 {
		t.Fatalf("dense-only results %+v", dense.Results)
	}
	// The endpoint going away degrades to BM25 with a warning.
	f.mu.Lock()
	f.failFirst = 100
	f.mu.Unlock()
	resp, err = r.Search(ctx, Request{Query: "disk full", TopK: 2})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].ChunkID != "a" || len(resp.Warnings) != 1 {
		t.Fatalf("degraded search: %+v err %v", resp, err)
	}
}

func TestRetrieverExpandAndCaps(t *testing.T) {
	store := newFixtureStore(t)
	r := &Retriever{Store: store}
	ctx := context.Background()
	resp, err := r.Search(ctx, Request{Query: "AWS instance retirement", TopK: 1, Expand: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := resp.Results[0]
	if res.ChunkID != "e2" || res.Citation != "rb:etcd/etcdMembersDown.md" || res.Title != "etcdMembersDown" {
		t.Fatalf("result %+v", res)
	}
	rel := map[string]string{}
	for _, n := range res.Neighbours {
		rel[n.Relation] = n.ChunkID
	}
	// e2's parent is e1, which is also its previous chunk: listed once, as the parent.
	if rel["parent"] != "e1" || rel["prev"] != "" || len(res.Neighbours) != 1 {
		t.Fatalf("neighbours %+v", res.Neighbours)
	}
	resp, _ = r.Search(ctx, Request{Query: "etcd", TopK: 10, PerDocument: 1})
	seen := map[string]bool{}
	for _, res := range resp.Results {
		if seen[res.Path] {
			t.Fatalf("per-document cap broken: %+v", resp.Results)
		}
		seen[res.Path] = true
	}
	resp, _ = r.Search(ctx, Request{Query: "etcd members", TopK: 3, Expand: 9})
	for _, res := range resp.Results {
		if len(res.Neighbours) > 2*MaxExpand+1 {
			t.Fatalf("expand not bounded: %d", len(res.Neighbours))
		}
	}
	if _, err := r.Search(ctx, Request{Query: "  "}); err == nil {
		t.Error("empty query accepted")
	}
	if _, err := (&Retriever{}).Search(ctx, Request{Query: "x"}); err == nil {
		t.Error("retriever without store accepted")
	}
}

// Queries and chunks leave the cluster for the embedding endpoint without credentials.
func TestOpenAIEmbedderSendsNoCredentials(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		seen = append(seen, req.Input...)
		var data []map[string]any
		for i := range req.Input {
			data = append(data, map[string]any{"object": "embedding", "embedding": []float32{1, 0}, "index": i})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	e, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"why does login fail with password=Zq8mN3vR7tY1uI5o", "token ghp_Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8v"}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Fatalf("inputs %q", seen)
	}
	for _, in := range seen {
		if strings.Contains(in, "Zq8mN3vR7tY1uI5o") || !strings.Contains(in, "[REDACTED:") {
			t.Errorf("sent %q", in)
		}
	}
}
