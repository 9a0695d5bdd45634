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

// Package retrievaleval measures retrieval quality and speed on the shared corpora: it
// indexes them with the embedded store, runs the development queries and
// reports Recall@5/10, MRR@10 and nDCG@10 (fused and per leg), index build time,
// memory and query latency. Tests use it to guard against regressions and the
// benchmark printer calls Dev and Latency to emit JSON.
package retrievaleval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
)

// Query is one line of retrieval-dev.jsonl.
type Query struct {
	ID       string   `json:"id"`
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// LoadQueries reads a JSONL file of queries.
func LoadQueries(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []Query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var q Query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// Config describes an evaluation run. Zero fields take the package defaults,
// which are the tuned production defaults.
type Config struct {
	// CorpusRoot holds one directory per corpus; each becomes a source of that name,
	// so document keys read "<corpus>/<path>" as in the query file.
	CorpusRoot string
	Corpora    []string
	Chunking   kbbuild.ChunkOptions
	Store      retrieval.EmbeddedOptions
	Fusion     retrieval.Fusion
	// Candidates bounds each leg before fusion (see retrieval.Query).
	Candidates int
	// Depth is how many chunks are retrieved per query before ranking documents; 100 when zero.
	Depth int
}

// DefaultCorpora are the shared corpora the query file refers to.
var DefaultCorpora = []string{"runbooks", "k8s-docs"}

// corpusFilter keeps Markdown pages and leaves out the provenance note added next to each corpus.
var corpusFilter = kbbuild.PathFilter{Include: []string{"**/*.md"}, Exclude: []string{"SOURCE.md"}}

// Metrics are document-level retrieval metrics averaged over queries.
type Metrics struct {
	Queries  int     `json:"queries"`
	Recall5  float64 `json:"recall_at_5"`
	Recall10 float64 `json:"recall_at_10"`
	MRR10    float64 `json:"mrr_at_10"`
	NDCG10   float64 `json:"ndcg_at_10"`
}

// IndexReport describes building the index.
type IndexReport struct {
	Docs          int           `json:"docs"`
	Chunks        int           `json:"chunks"`
	Failed        int           `json:"failed"`
	Duration      time.Duration `json:"duration_ns"`
	DocsPerSecond float64       `json:"docs_per_second"`
	// HeapBytes is the live heap after indexing and a GC: what the index costs to keep.
	HeapBytes uint64 `json:"heap_bytes"`
	// PeakSysBytes is the memory the Go runtime obtained from the OS by the end of indexing.
	PeakSysBytes uint64 `json:"peak_sys_bytes"`
}

// Report is the outcome of Dev.
type Report struct {
	Index  IndexReport               `json:"index"`
	Fused  Metrics                   `json:"fused"`
	PerLeg map[retrieval.Leg]Metrics `json:"per_leg"`
	Misses map[string][]string       `json:"misses,omitempty"` // query id → top documents, for queries with MRR 0
}

// Build indexes the corpora into a new embedded store.
func Build(ctx context.Context, cfg Config) (*retrieval.Embedded, IndexReport, error) {
	cfg = cfg.withDefaults()
	store := retrieval.NewEmbedded(cfg.Store)
	var rep IndexReport
	runtime.GC()
	start := time.Now()
	for _, c := range cfg.Corpora {
		src := &kbbuild.DirSource{Root: filepath.Join(cfg.CorpusRoot, c), Filter: corpusFilter}
		st, err := kbbuild.Index(ctx, src, store, kbbuild.IndexConfig{Source: c, Domain: c, TrustLevel: 3, Chunking: cfg.Chunking})
		if err != nil {
			return nil, rep, fmt.Errorf("index %s: %w", c, err)
		}
		rep.Docs += st.Docs
		rep.Chunks += st.Chunks
		rep.Failed += len(st.Failed)
	}
	rep.Duration = time.Since(start)
	if s := rep.Duration.Seconds(); s > 0 {
		rep.DocsPerSecond = float64(rep.Docs) / s
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.PeakSysBytes = ms.Sys
	runtime.GC()
	runtime.ReadMemStats(&ms)
	rep.HeapBytes = ms.HeapAlloc
	return store, rep, nil
}

func (c Config) withDefaults() Config {
	if len(c.Corpora) == 0 {
		c.Corpora = DefaultCorpora
	}
	if c.Depth <= 0 {
		c.Depth = 100
	}
	if c.Fusion.K == 0 && c.Fusion.Weights == nil {
		c.Fusion = retrieval.DefaultFusion
	}
	if c.Store == (retrieval.EmbeddedOptions{}) {
		c.Store = retrieval.DefaultEmbeddedOptions
	}
	return c
}

// Dev builds the index and evaluates the queries fused and with each BM25 leg alone.
func Dev(ctx context.Context, cfg Config, queries []Query) (*Report, error) {
	cfg = cfg.withDefaults()
	store, ir, err := Build(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r := &retrieval.Retriever{Store: store, Fusion: cfg.Fusion, Candidates: cfg.Candidates}
	rep := &Report{Index: ir, PerLeg: map[retrieval.Leg]Metrics{}, Misses: map[string][]string{}}
	rep.Fused, err = Evaluate(ctx, r, queries, nil, cfg.Depth, rep.Misses)
	if err != nil {
		return nil, err
	}
	for _, leg := range []retrieval.Leg{retrieval.LegBody, retrieval.LegTitle} {
		if rep.PerLeg[leg], err = Evaluate(ctx, r, queries, []retrieval.Leg{leg}, cfg.Depth, nil); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// Evaluate runs every query with the given legs (nil = all) and averages the
// document-level metrics. A document's rank is the rank of its best chunk.
// When misses is non-nil, queries whose relevant documents all miss the top 10
// are recorded with the documents that were returned instead.
func Evaluate(ctx context.Context, r *retrieval.Retriever, queries []Query, legs []retrieval.Leg, depth int, misses map[string][]string) (Metrics, error) {
	var m Metrics
	for _, q := range queries {
		docs, err := rankDocuments(ctx, r, q.Query, legs, depth)
		if err != nil {
			return m, fmt.Errorf("query %s: %w", q.ID, err)
		}
		s := Score(docs, q.Relevant)
		m.Recall5 += s.Recall5
		m.Recall10 += s.Recall10
		m.MRR10 += s.MRR10
		m.NDCG10 += s.NDCG10
		if misses != nil && s.MRR10 == 0 {
			misses[q.ID] = docs[:min(5, len(docs))]
		}
	}
	if n := float64(len(queries)); n > 0 {
		m.Queries = len(queries)
		m.Recall5 /= n
		m.Recall10 /= n
		m.MRR10 /= n
		m.NDCG10 /= n
	}
	return m, nil
}

func rankDocuments(ctx context.Context, r *retrieval.Retriever, query string, legs []retrieval.Leg, depth int) ([]string, error) {
	resp, err := r.Search(ctx, retrieval.Request{Query: query, TopK: depth, Legs: legs})
	if err != nil {
		return nil, err
	}
	var docs []string
	seen := map[string]bool{}
	for _, res := range resp.Results {
		key := res.Source + "/" + res.Path
		if !seen[key] {
			seen[key] = true
			docs = append(docs, key)
		}
	}
	return docs, nil
}

// Score computes the metrics of one ranked document list against the relevant set
// (binary relevance).
func Score(ranked, relevant []string) Metrics {
	rel := map[string]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	m := Metrics{Queries: 1}
	if len(rel) == 0 {
		return m
	}
	hits5, hits10 := 0, 0
	dcg := 0.0
	for i, d := range ranked {
		if i >= 10 {
			break
		}
		if !rel[d] {
			continue
		}
		if i < 5 {
			hits5++
		}
		hits10++
		if m.MRR10 == 0 {
			m.MRR10 = 1 / float64(i+1)
		}
		dcg += 1 / math.Log2(float64(i+2))
	}
	idcg := 0.0
	for i := 0; i < min(len(rel), 10); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	m.Recall5 = float64(hits5) / float64(len(rel))
	m.Recall10 = float64(hits10) / float64(len(rel))
	m.NDCG10 = dcg / idcg
	return m
}

// LatencyReport summarises query latency.
type LatencyReport struct {
	Queries int           `json:"queries"`
	P50     time.Duration `json:"p50_ns"`
	P95     time.Duration `json:"p95_ns"`
	P99     time.Duration `json:"p99_ns"`
	Mean    time.Duration `json:"mean_ns"`
}

// Latency runs n searches, cycling through queries, and reports percentiles.
func Latency(ctx context.Context, r *retrieval.Retriever, queries []string, n, topK int) (LatencyReport, error) {
	if len(queries) == 0 || n <= 0 {
		return LatencyReport{}, fmt.Errorf("latency needs queries and n > 0")
	}
	d := make([]time.Duration, n)
	var total time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := r.Search(ctx, retrieval.Request{Query: queries[i%len(queries)], TopK: topK}); err != nil {
			return LatencyReport{}, err
		}
		d[i] = time.Since(start)
		total += d[i]
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	pct := func(p float64) time.Duration { return d[min(n-1, int(math.Ceil(p*float64(n)))-1)] }
	return LatencyReport{Queries: n, P50: pct(0.50), P95: pct(0.95), P99: pct(0.99), Mean: total / time.Duration(n)}, nil
}

// BenchReport is what `make bench` prints: quality, index cost and latency.
type BenchReport struct {
	Dev     *Report       `json:"dev"`
	Latency LatencyReport `json:"latency"`
}

// Bench runs Dev and then measures latency with latencyQueries searches (10,000
// in the benchmark) over the same index, cycling through the query texts.
func Bench(ctx context.Context, cfg Config, queries []Query, latencyQueries int) (*BenchReport, error) {
	cfg = cfg.withDefaults()
	dev, err := Dev(ctx, cfg, queries)
	if err != nil {
		return nil, err
	}
	store, _, err := Build(ctx, cfg)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.Query
	}
	lat, err := Latency(ctx, &retrieval.Retriever{Store: store, Fusion: cfg.Fusion, Candidates: cfg.Candidates}, texts, latencyQueries, 10)
	if err != nil {
		return nil, err
	}
	return &BenchReport{Dev: dev, Latency: lat}, nil
}
