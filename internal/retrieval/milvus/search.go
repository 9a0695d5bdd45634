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

package milvus

import (
	"context"
	"fmt"
	"math"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kubage/kubage/internal/retrieval"
)

// Get implements retrieval.Store.
func (s *Store) Get(ctx context.Context, ids []string) ([]retrieval.Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cctx, cancel := s.ctx(ctx)
	defer cancel()
	rs, err := s.c.Query(cctx, s.cfg.Collection, nil, FieldID+" in "+quoteList(ids), s.enc.fields)
	if err != nil {
		return nil, fmt.Errorf("get chunks: %w", err)
	}
	return chunksFromColumns(rs)
}

// LeadChunks implements retrieval.DocumentReader.
func (s *Store) LeadChunks(ctx context.Context, source string, paths []string) ([]retrieval.Chunk, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	cctx, cancel := s.ctx(ctx)
	defer cancel()
	expr := FieldSource + " == " + quote(source) + " && " + FieldPath + " in " + quoteList(paths) + " && " + FieldOrdinal + " == 0"
	rs, err := s.c.Query(cctx, s.cfg.Collection, nil, expr, s.enc.fields)
	if err != nil {
		return nil, fmt.Errorf("get lead chunks: %w", err)
	}
	got, err := chunksFromColumns(rs)
	if err != nil {
		return nil, err
	}
	byPath := make(map[string]retrieval.Chunk, len(got))
	for _, c := range got {
		byPath[c.Path] = c
	}
	out := make([]retrieval.Chunk, 0, len(got))
	for _, p := range paths {
		if c, ok := byPath[p]; ok {
			out = append(out, c)
			delete(byPath, p)
		}
	}
	return out, nil
}

// Search implements retrieval.Store with one HybridSearch request.
func (s *Store) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	reqs, err := s.searchRequests(q)
	if err != nil || len(reqs) == 0 || q.TopK <= 0 {
		return nil, err
	}
	k := float64(q.Fusion.K)
	if k <= 0 {
		k = retrieval.DefaultRRFK
	}
	cctx, cancel := s.ctx(ctx)
	defer cancel()
	res, err := s.c.HybridSearch(cctx, s.cfg.Collection, nil, q.TopK, s.enc.fields, client.NewRRFReranker().WithK(k), reqs)
	if err != nil {
		return nil, fmt.Errorf("hybrid search: %w", err)
	}
	return hitsFromResults(res)
}

// searchRequests builds one ANN request per leg that has input.
func (s *Store) searchRequests(q retrieval.Query) ([]*client.ANNSearchRequest, error) {
	expr := filterExpr(q.Filter)
	limit := q.Candidates
	if limit <= 0 {
		limit = max(4*q.TopK, 50)
	}
	use := func(l retrieval.Leg) bool {
		if len(q.Legs) == 0 {
			return true
		}
		for _, x := range q.Legs {
			if x == l {
				return true
			}
		}
		return false
	}
	var reqs []*client.ANNSearchRequest
	if s.cfg.Dimension > 0 && len(q.Vector) > 0 && use(retrieval.LegDense) {
		if len(q.Vector) != s.cfg.Dimension {
			return nil, fmt.Errorf("query vector has %d dimensions, collection %d", len(q.Vector), s.cfg.Dimension)
		}
		sp, err := entity.NewIndexHNSWSearchParam(hnswEf)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, client.NewANNSearchRequest(FieldDense, entity.COSINE, expr, []entity.Vector{entity.FloatVector(q.Vector)}, sp, limit))
	}
	terms := s.cfg.Analyzer.QueryTerms(q.Text)
	if len(terms) == 0 {
		return reqs, nil
	}
	sp, err := entity.NewIndexSparseInvertedSearchParam(0)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	bodyQ := retrieval.QuerySparse(terms, s.stats.body.idfByTerm)
	titleQ := retrieval.QuerySparse(terms, s.stats.title.idfByTerm)
	s.mu.RUnlock()
	for _, leg := range []struct {
		leg   retrieval.Leg
		field string
		vec   retrieval.SparseVector
	}{{retrieval.LegBody, FieldBodySparse, bodyQ}, {retrieval.LegTitle, FieldTitleSparse, titleQ}} {
		if !use(leg.leg) {
			continue
		}
		emb, err := toEmbedding(leg.vec)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, client.NewANNSearchRequest(leg.field, entity.IP, expr, []entity.Vector{emb}, sp, limit))
	}
	return reqs, nil
}

// hitsFromResults maps the single-query HybridSearch result to hits.
func hitsFromResults(res []client.SearchResult) ([]retrieval.Hit, error) {
	if len(res) == 0 {
		return nil, nil
	}
	r := res[0]
	if r.Err != nil {
		return nil, r.Err
	}
	chunks, err := chunksFromColumns(r.Fields)
	if err != nil {
		return nil, err
	}
	hits := make([]retrieval.Hit, len(chunks))
	for i := range chunks {
		score := 0.0
		if i < len(r.Scores) {
			score = float64(r.Scores[i])
		}
		hits[i] = retrieval.Hit{Chunk: chunks[i], Score: score}
	}
	return hits, nil
}

// termStats counts, per sparse dimension, how many rows contain it.
type termStats struct {
	n  int
	df map[uint32]int
}

func newTermStats() *termStats { return &termStats{df: map[uint32]int{}} }

func (t *termStats) add(sv retrieval.SparseVector) {
	t.n++
	for _, id := range sv.Indices {
		t.df[id]++
	}
}

func (t *termStats) remove(sv retrieval.SparseVector) {
	if t.n > 0 {
		t.n--
	}
	for _, id := range sv.Indices {
		if t.df[id] <= 1 {
			delete(t.df, id)
		} else {
			t.df[id]--
		}
	}
}

// idfByTerm returns the BM25 IDF of a term, or 1 while no statistics exist.
func (t *termStats) idfByTerm(term string) float64 {
	if t.n == 0 {
		return 1
	}
	df := t.df[retrieval.TermID(term)]
	return math.Max(retrieval.IDF(t.n, df), 1e-6)
}
