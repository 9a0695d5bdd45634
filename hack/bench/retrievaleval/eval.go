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
	"hash/fnv"
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
	// LinkWeight and Rerank configure the link and rerank stages; zero takes the
	// retrieval package defaults.
	LinkWeight float64
	Rerank     retrieval.RerankWeights
}

// Stage is one configuration of the retrieval pipeline that the report measures.
type Stage struct {
	Name string
	// FollowLinks is Request.FollowLinks: links of this many top documents are followed.
	FollowLinks int
	// Rerank adds the deterministic reranker after fusion (and links).
	Rerank bool
}

// followLinks is how many top documents the link stage follows.
const followLinks = 3

// Stages are the pipeline's stages in order, each adding to the one before.
var Stages = []Stage{
	{Name: "bm25"},
	{Name: "links", FollowLinks: followLinks},
	{Name: "rerank", FollowLinks: followLinks, Rerank: true},
}

// Split names the half of the development queries a query belongs to: "tune" (the half
// the defaults were tuned on) or "holdout". A hash of the id keeps it stable as queries
// are added.
func Split(id string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	if h.Sum32()%2 == 0 {
		return "tune"
	}
	return "holdout"
}

// StageReport is the quality of one stage over all queries and over each half, and its latency.
type StageReport struct {
	Name    string        `json:"name"`
	All     Metrics       `json:"all"`
	Tune    Metrics       `json:"tune"`
	Holdout Metrics       `json:"holdout"`
	Latency LatencyReport `json:"latency"`
}

// Retriever returns the retriever of a stage over store.
func (c Config) Retriever(store retrieval.Store, st Stage) *retrieval.Retriever {
	c = c.withDefaults()
	r := &retrieval.Retriever{Store: store, Fusion: c.Fusion, Candidates: c.Candidates, LinkWeight: c.LinkWeight}
	if st.Rerank {
		r.Reranker = &retrieval.DeterministicReranker{Analyzer: c.Store.Analyzer, Weights: c.Rerank}
	}
	return r
}

// EvaluateStage scores one stage on all queries and on each half of the split.
func EvaluateStage(ctx context.Context, r *retrieval.Retriever, st Stage, queries []Query, depth int) (StageReport, error) {
	rep := StageReport{Name: st.Name}
	var tune, holdout []Query
	for _, q := range queries {
		if Split(q.ID) == "tune" {
			tune = append(tune, q)
		} else {
			holdout = append(holdout, q)
		}
	}
	var err error
	for _, part := range []struct {
		qs  []Query
		out *Metrics
	}{{queries, &rep.All}, {tune, &rep.Tune}, {holdout, &rep.Holdout}} {
		if *part.out, err = evaluate(ctx, r, part.qs, nil, st.FollowLinks, depth, nil); err != nil {
			return rep, err
		}
	}
	return rep, nil
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
	return evaluate(ctx, r, queries, legs, 0, depth, misses)
}

func evaluate(ctx context.Context, r *retrieval.Retriever, queries []Query, legs []retrieval.Leg, follow, depth int, misses map[string][]string) (Metrics, error) {
	var m Metrics
	for _, q := range queries {
		docs, err := RankDocuments(ctx, r, q.Query, legs, follow, depth)
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

// RankDocuments returns the documents of a search in rank order ("<source>/<path>").
func RankDocuments(ctx context.Context, r *retrieval.Retriever, query string, legs []retrieval.Leg, follow, depth int) ([]string, error) {
	resp, err := r.Search(ctx, retrieval.Request{Query: query, TopK: depth, Legs: legs, FollowLinks: follow})
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
	return latency(ctx, r, queries, n, topK, 0)
}

func latency(ctx context.Context, r *retrieval.Retriever, queries []string, n, topK, follow int) (LatencyReport, error) {
	if len(queries) == 0 || n <= 0 {
		return LatencyReport{}, fmt.Errorf("latency needs queries and n > 0")
	}
	d := make([]time.Duration, n)
	var total time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := r.Search(ctx, retrieval.Request{Query: queries[i%len(queries)], TopK: topK, FollowLinks: follow}); err != nil {
			return LatencyReport{}, err
		}
		d[i] = time.Since(start)
		total += d[i]
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	pct := func(p float64) time.Duration { return d[min(n-1, int(math.Ceil(p*float64(n)))-1)] }
	return LatencyReport{Queries: n, P50: pct(0.50), P95: pct(0.95), P99: pct(0.99), Mean: total / time.Duration(n)}, nil
}

// BenchReport is what `make bench` prints: quality, index cost and latency, overall
// (the fused BM25 legs) and per stage (BM25 only, + links, + rerank).
type BenchReport struct {
	Dev     *Report       `json:"dev"`
	Latency LatencyReport `json:"latency"`
	// Stages measure each pipeline stage on all dev queries and on both halves of the
	// split: the defaults were tuned on "tune" only, so "holdout" shows what carries over.
	Stages []StageReport `json:"stages"`
	// Summary is one line per stage, for people.
	Summary []string `json:"summary"`
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
	rep := &BenchReport{Dev: dev, Latency: lat}
	for _, st := range Stages {
		r := cfg.Retriever(store, st)
		sr, err := EvaluateStage(ctx, r, st, queries, cfg.Depth)
		if err != nil {
			return nil, err
		}
		if sr.Latency, err = latency(ctx, r, texts, latencyQueries, 10, st.FollowLinks); err != nil {
			return nil, err
		}
		rep.Stages = append(rep.Stages, sr)
		rep.Summary = append(rep.Summary, sr.String())
	}
	return rep, nil
}

// String renders a stage as one line: quality on all queries (tune / holdout) and latency.
func (s StageReport) String() string {
	return fmt.Sprintf("%-7s Recall@5 %.3f (%.3f/%.3f) MRR@10 %.3f (%.3f/%.3f) nDCG@10 %.3f (%.3f/%.3f) p50 %v p99 %v",
		s.Name, s.All.Recall5, s.Tune.Recall5, s.Holdout.Recall5, s.All.MRR10, s.Tune.MRR10, s.Holdout.MRR10,
		s.All.NDCG10, s.Tune.NDCG10, s.Holdout.NDCG10, s.Latency.P50.Round(time.Microsecond), s.Latency.P99.Round(time.Microsecond))
}
