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
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

func TestAnalyzer(t *testing.T) {
	a := Analyzer{}
	cases := map[string][]string{
		"The pods are Running":         {"pod", "run"},
		"etcdMembersDown fired":        {"etcdmembersdown", "etcd", "member", "down", "fire"},
		"etcdGRPCRequestsSlow":         {"etcdgrpcrequestsslow", "etcd", "grpc", "request", "slow"},
		"config-reloader: p99 > 150ms": {"config", "reload", "p99", "150ms"},
		"node is NOT ready, it's down": {"node", "not", "readi", "down"},
		"a b c x":                      nil,
		"0 12 345":                     {"12", "345"},
		"Ünïcödé wörds":                {"ünïcödé", "wörds"}, // the English stemmer leaves non-ASCII words alone
		"sha 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": {"sha"},
	}
	for in, want := range cases {
		if got := a.Terms(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (Analyzer{NoStem: true, KeepStopWords: true}).Terms("The pods"); !reflect.DeepEqual(got, []string{"the", "pods"}) {
		t.Errorf("raw terms = %q", got)
	}
	q := a.QueryTerms("env vars for the pvc")
	for _, want := range []string{"env", "environ", "variabl", "pvc", "persist", "volum", "claim"} {
		if !contains(q, want) {
			t.Errorf("QueryTerms lacks %q: %q", want, q)
		}
	}
	if got := (Analyzer{NoExpand: true}).QueryTerms("env"); !reflect.DeepEqual(got, []string{"env"}) {
		t.Errorf("NoExpand = %q", got)
	}
}

func TestBM25Index(t *testing.T) {
	ix := newInvertedIndex(BM25Params{})
	docs := [][]string{
		{"disk", "full", "disk"},
		{"disk", "slow"},
		{"certif", "expir", "certif", "certif", "renew"},
	}
	for i, d := range docs {
		ix.add(int32(i), d)
	}
	got := ix.search([]string{"disk"}, 10, nil)
	if len(got) != 2 || got[0].slot != 0 || got[1].slot != 1 {
		t.Fatalf("disk ranking = %+v", got)
	}
	// Hand-computed BM25 for doc 1: idf(3 docs, df 2) * tf part with avgdl 10/3.
	avg := 10.0 / 3
	want := IDF(3, 2) * (1 * 2.2 / (1 + 1.2*(0.25+0.75*2/avg)))
	if math.Abs(got[1].score-want) > 1e-9 {
		t.Errorf("score = %v, want %v", got[1].score, want)
	}
	if r := ix.search([]string{"disk"}, 10, func(s int32) bool { return s != 0 }); len(r) != 1 || r[0].slot != 1 {
		t.Errorf("filtered = %+v", r)
	}
	if r := ix.search([]string{"disk", "disk"}, 10, nil); r[0].score != got[0].score {
		t.Error("repeated query terms counted twice")
	}
	ix.remove(0)
	ix.remove(0)
	if ix.live != 2 || len(ix.postings["full"]) != 0 || ix.totalLen != 7 {
		t.Errorf("after remove: live %d postings %v total %d", ix.live, ix.postings["full"], ix.totalLen)
	}
	ix.add(1, []string{"replaced"})
	if r := ix.search([]string{"slow"}, 10, nil); len(r) != 0 {
		t.Error("re-adding a slot kept its old terms")
	}
	if IDF(10, 10) <= 0 {
		t.Error("IDF must stay positive")
	}
}

func TestSparseVectorsReproduceBM25(t *testing.T) {
	p := DefaultBM25
	docs := map[int32][]string{0: {"a", "b", "a"}, 1: {"b", "c"}, 2: {"c", "c", "d", "e"}}
	ix := newInvertedIndex(p)
	for s, d := range docs {
		ix.add(s, d)
	}
	q := []string{"a", "c", "zzz"}
	idf := func(term string) float64 { return IDF(ix.live, len(ix.postings[term])) }
	qv := QuerySparse(q, idf)
	for _, sc := range ix.search(q, 10, nil) {
		dv := DocumentSparse(docs[sc.slot], ix.avgLen(), p)
		var dot float64
		for i, id := range qv.Indices {
			for j, jd := range dv.Indices {
				if id == jd {
					dot += float64(qv.Values[i]) * float64(dv.Values[j])
				}
			}
		}
		if math.Abs(dot-sc.score) > 1e-4 {
			t.Errorf("slot %d: sparse dot %v != BM25 %v", sc.slot, dot, sc.score)
		}
	}
	for i := 1; i < len(qv.Indices); i++ {
		if qv.Indices[i-1] >= qv.Indices[i] {
			t.Fatal("sparse indices not ascending")
		}
	}
	if TermID("disk") != TermID("disk") || TermID("disk") == TermID("disks") {
		t.Error("TermID not a stable hash")
	}
}

func TestRRF(t *testing.T) {
	lists := map[Leg][]string{
		LegBody:  {"a", "b", "c"},
		LegTitle: {"b", "d", "b"},
	}
	got := RRF(lists, Fusion{K: 1})
	// b: 1/(1+2) + 1/(1+1) = 0.8333, a: 0.5, d: 1/3, c: 0.25
	order := []string{}
	for _, f := range got {
		order = append(order, f.ID)
	}
	if !reflect.DeepEqual(order, []string{"b", "a", "d", "c"}) {
		t.Fatalf("order = %v", order)
	}
	if math.Abs(got[0].Score-(1.0/3+0.5)) > 1e-12 || got[0].Ranks[LegBody] != 2 || got[0].Ranks[LegTitle] != 1 {
		t.Errorf("b = %+v", got[0])
	}
	w := RRF(lists, Fusion{K: 1, Weights: map[Leg]float64{LegTitle: 0}})
	if w[0].ID != "a" {
		t.Errorf("zero title weight: first = %s", w[0].ID)
	}
	tie := RRF(map[Leg][]string{LegBody: {"x"}, LegTitle: {"y"}}, Fusion{})
	if tie[0].ID != "x" || tie[1].ID != "y" || tie[0].Score != 1.0/61 {
		t.Errorf("tie/default k = %+v", tie)
	}
}

func newFixtureStore(t *testing.T) *Embedded {
	t.Helper()
	s := NewEmbedded(DefaultEmbeddedOptions)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.ReplaceDocument(ctx, "rb", "etcd/etcdMembersDown.md", "h1", []Chunk{
		{ID: "e0", DocTitle: "etcdMembersDown", HeadingPath: []string{"etcdMembersDown", "Meaning"}, Anchor: "meaning", Text: "One or more etcd members are down.", NextID: "e1", Domain: "runbooks", TrustLevel: 4},
		{ID: "e1", DocTitle: "etcdMembersDown", HeadingPath: []string{"etcdMembersDown", "Mitigation"}, Anchor: "mitigation", Text: "Reboot the master node and check etcdctl endpoint health.", PrevID: "e0", NextID: "e2", ParentID: "e0", Domain: "runbooks", TrustLevel: 4},
		{ID: "e2", DocTitle: "etcdMembersDown", HeadingPath: []string{"etcdMembersDown", "Mitigation", "AWS"}, Text: "AWS instance retirement needs a manual reboot.", PrevID: "e1", ParentID: "e1", Domain: "runbooks", TrustLevel: 4},
	}))
	must(s.ReplaceDocument(ctx, "docs", "tasks/configure-upgrade-etcd.md", "h2", []Chunk{
		{ID: "d0", DocTitle: "Operating etcd clusters", HeadingPath: []string{"Backing up an etcd cluster"}, Text: "Use etcdctl snapshot save to back up etcd members.", Domain: "k8s", TrustLevel: 2},
	}))
	must(s.ReplaceDocument(ctx, "docs", "concepts/secret.md", "h3", []Chunk{
		{ID: "s0", DocTitle: "Secrets", HeadingPath: []string{"Size limit"}, Text: "Individual secrets are limited to 1MiB in size.", Domain: "k8s", TrustLevel: 2},
	}))
	return s
}

func ids(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Chunk.ID)
	}
	return out
}

func TestEmbeddedSearchAndFilters(t *testing.T) {
	s := newFixtureStore(t)
	ctx := context.Background()
	hits, err := s.Search(ctx, Query{Text: "etcd members down after reboot", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 3 || hits[0].Chunk.Source != "rb" || hits[0].Chunk.Path != "etcd/etcdMembersDown.md" || hits[0].LegRanks[LegBody] == 0 {
		t.Fatalf("hits = %+v", hits)
	}
	if hits[0].Chunk.Citation() != "rb:etcd/etcdMembersDown.md#meaning" && hits[0].Chunk.Citation() != "rb:etcd/etcdMembersDown.md#mitigation" {
		t.Errorf("citation = %s", hits[0].Chunk.Citation())
	}
	hits, _ = s.Search(ctx, Query{Text: "etcd", TopK: 10, Filter: Filter{MinTrust: 3}})
	for _, h := range hits {
		if h.Chunk.TrustLevel < 3 {
			t.Errorf("trust filter leaked %s", h.Chunk.ID)
		}
	}
	hits, _ = s.Search(ctx, Query{Text: "etcd", TopK: 10, Filter: Filter{Domains: []string{"k8s"}}})
	if !reflect.DeepEqual(ids(hits), []string{"d0"}) {
		t.Errorf("domain filter = %v", ids(hits))
	}
	hits, _ = s.Search(ctx, Query{Text: "etcd", TopK: 10, Filter: Filter{Sources: []string{"rb"}}, Legs: []Leg{LegTitle}})
	for _, h := range hits {
		if h.Chunk.Source != "rb" || h.LegRanks[LegBody] != 0 {
			t.Errorf("source filter / title-only leg: %+v", h)
		}
	}
	if hits, _ := s.Search(ctx, Query{Text: "etcd", TopK: 0}); len(hits) != 0 {
		t.Error("TopK 0 returned hits")
	}
	if hits, _ := s.Search(ctx, Query{Text: "etcd", TopK: 1}); len(hits) != 1 {
		t.Error("TopK not applied")
	}
}

func TestEmbeddedReplaceDeleteCounts(t *testing.T) {
	s := newFixtureStore(t)
	ctx := context.Background()
	if d, c, _ := s.Counts(ctx, "rb"); d != 1 || c != 3 {
		t.Fatalf("counts rb = %d/%d", d, c)
	}
	hashes, _ := s.DocumentHashes(ctx, "docs")
	if !reflect.DeepEqual(hashes, map[string]string{"tasks/configure-upgrade-etcd.md": "h2", "concepts/secret.md": "h3"}) {
		t.Fatalf("hashes = %v", hashes)
	}
	// Replacing keeps ids that stay, drops the ones that go.
	if err := s.ReplaceDocument(ctx, "rb", "etcd/etcdMembersDown.md", "h1b", []Chunk{{ID: "e0", Text: "rewritten members text"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, []string{"e0", "e1", "missing"}); len(got) != 1 || got[0].Text != "rewritten members text" || got[0].DocHash != "h1b" {
		t.Fatalf("after replace: %+v", got)
	}
	if hits, _ := s.Search(ctx, Query{Text: "reboot", TopK: 5}); len(hits) != 0 {
		t.Errorf("removed chunks still searchable: %v", ids(hits))
	}
	// A chunk id owned by another document is rejected and nothing changes.
	err := s.ReplaceDocument(ctx, "docs", "concepts/secret.md", "h3b", []Chunk{{ID: "e0", Text: "steal"}})
	if err == nil {
		t.Fatal("id collision accepted")
	}
	if h, _ := s.DocumentHashes(ctx, "docs"); h["concepts/secret.md"] != "h3" {
		t.Error("rejected write changed state")
	}
	if s.ReplaceDocument(ctx, "x", "y", "h", []Chunk{{ID: "a"}, {ID: "a"}}) == nil || s.ReplaceDocument(ctx, "x", "y", "h", []Chunk{{}}) == nil {
		t.Error("duplicate or empty ids accepted")
	}
	if err := s.DeleteDocument(ctx, "docs", "concepts/secret.md"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDocument(ctx, "docs", "never-there.md"); err != nil {
		t.Fatal(err)
	}
	if d, c, _ := s.Counts(ctx, "docs"); d != 1 || c != 1 {
		t.Errorf("after delete: %d/%d", d, c)
	}
	if err := s.DeleteSource(ctx, "docs"); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 {
		t.Errorf("Len = %d after deleting a source", s.Len())
	}
}

func TestEmbeddedCapacity(t *testing.T) {
	s := NewEmbedded(EmbeddedOptions{MaxChunks: 2})
	ctx := context.Background()
	if err := s.ReplaceDocument(ctx, "s", "a", "h", []Chunk{{ID: "1"}, {ID: "2"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceDocument(ctx, "s", "b", "h", []Chunk{{ID: "3"}}); !errors.Is(err, ErrStoreFull) {
		t.Fatalf("err = %v, want ErrStoreFull", err)
	}
	// Replacing a document in place may reuse its own room.
	if err := s.ReplaceDocument(ctx, "s", "a", "h2", []Chunk{{ID: "4"}, {ID: "5"}}); err != nil {
		t.Fatal(err)
	}
}

func TestEmbeddedDenseLeg(t *testing.T) {
	s := NewEmbedded(DefaultEmbeddedOptions)
	ctx := context.Background()
	_ = s.ReplaceDocument(ctx, "s", "a", "h", []Chunk{
		{ID: "x", Text: "alpha", Vector: []float32{1, 0}, VectorModel: "m"},
		{ID: "y", Text: "beta", Vector: []float32{0.6, 0.8}, VectorModel: "m"},
		{ID: "z", Text: "gamma", Vector: []float32{0, 1}, VectorModel: "other"},
		{ID: "w", Text: "delta", Vector: []float32{1, 0, 0}, VectorModel: "m"},
	})
	hits, _ := s.Search(ctx, Query{Vector: []float32{0, 1}, VectorModel: "m", TopK: 5})
	if !reflect.DeepEqual(ids(hits), []string{"y", "x"}) || hits[0].LegRanks[LegDense] != 1 {
		t.Fatalf("dense = %v", ids(hits))
	}
	if hits, _ := s.Search(ctx, Query{Vector: []float32{0, 0}, TopK: 5}); len(hits) != 0 {
		t.Error("zero query vector matched")
	}
	if hits[0].Chunk.Vector != nil {
		t.Error("hits should not carry vectors")
	}
}

func TestEmbeddedSnapshotRoundTrip(t *testing.T) {
	s := newFixtureStore(t)
	ctx := context.Background()
	_ = s.ReplaceDocument(ctx, "v", "vec.md", "hv", []Chunk{{ID: "v0", Text: "vector", Vector: []float32{0.5, 0.5}, VectorModel: "m"}})
	path := filepath.Join(t.TempDir(), "kb.snap")
	if err := s.SaveSnapshot(path); err != nil {
		t.Fatal(err)
	}
	r := NewEmbedded(DefaultEmbeddedOptions)
	if err := r.LoadSnapshot(path); err != nil {
		t.Fatal(err)
	}
	q := Query{Text: "etcd members reboot", TopK: 10}
	a, _ := s.Search(ctx, q)
	b, _ := r.Search(ctx, q)
	if !reflect.DeepEqual(ids(a), ids(b)) || r.Len() != s.Len() {
		t.Fatalf("restored store answers differently: %v vs %v", ids(a), ids(b))
	}
	if h, _ := r.Search(ctx, Query{Vector: []float32{1, 1}, VectorModel: "m", TopK: 1}); len(h) != 1 {
		t.Error("vectors not restored")
	}
	if err := NewEmbedded(EmbeddedOptions{}).LoadSnapshot(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing snapshot err = %v", err)
	}
	if err := r.ReadSnapshot(bytes.NewReader([]byte("garbage"))); err == nil || r.Len() != s.Len() {
		t.Error("garbage snapshot accepted or corrupted the store")
	}
}

func TestEmbeddedConcurrentUse(t *testing.T) {
	s := newFixtureStore(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if w%2 == 0 {
					_ = s.ReplaceDocument(ctx, "c", fmt.Sprintf("d%d", w), "h", []Chunk{{ID: fmt.Sprintf("c%d-%d", w, i%3), Text: "etcd concurrent"}})
				} else {
					_, _ = s.Search(ctx, Query{Text: "etcd", TopK: 5})
				}
			}
		}(w)
	}
	wg.Wait()
	if d, _, _ := s.Counts(ctx, "c"); d != 2 {
		t.Fatalf("docs = %d", d)
	}
}
