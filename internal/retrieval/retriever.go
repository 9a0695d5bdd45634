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
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Retriever answers knowledge questions over a Store, embedding the query when a model is configured.
type Retriever struct {
	Store Store
	// Embedder is optional; without it the dense leg is skipped.
	Embedder Embedder
	// Fusion configures RRF (k and per-leg weights).
	Fusion Fusion
	// Candidates bounds each leg before fusion; see Query.Candidates.
	Candidates int
	// LinkWeight scales the boost a document gets when a top result links to it (see
	// Request.FollowLinks); DefaultLinkWeight when zero, negative disables the boost.
	LinkWeight float64
	// TrustOf, when set, gives the current trust level of a source; fused scores are
	// weighed by TrustFactor of it before the later stages.
	TrustOf func(source string) int
	// Reranker reorders the fused candidates; nil keeps the fused order.
	Reranker Reranker
	// RerankDepth is how many fused candidates the reranker and the link boost see;
	// DefaultRerankDepth when zero.
	RerankDepth int
}

// Request is one knowledge search.
type Request struct {
	// Query is the question in plain words.
	Query string
	// TopK bounds the results; 5 when zero, at most MaxTopK.
	TopK int
	// Domains, Sources and MinTrust filter chunks (see Filter).
	Domains  []string
	Sources  []string
	MinTrust int
	// PerDocument caps results from one document; 0 means no cap.
	PerDocument int
	// Expand adds up to this many neighbours on each side of a hit, plus its parent section; at most MaxExpand.
	Expand int
	// Legs restricts the legs used (evaluation of one leg alone); empty uses all available.
	Legs []Leg
	// FollowLinks follows the links of this many top results one hop (at most MaxFollow):
	// linked documents among the candidates are boosted, and linked documents are listed
	// in Response.Related.
	FollowLinks int
}

// Bounds on a request.
const (
	MaxTopK   = 100
	MaxExpand = 3
	MaxFollow = 10
	// MaxRelated bounds Response.Related.
	MaxRelated = 10
)

// Result is one retrieved chunk with everything needed to cite it.
type Result struct {
	ChunkID     string
	Citation    string
	Source      string
	Path        string
	Title       string
	HeadingPath []string
	Anchor      string
	Text        string
	Score       float64
	LegRanks    map[Leg]int
	// Links are the chunk's links to other documents.
	Links []Link
	// Neighbours are surrounding chunks (parent section, previous, next) for context.
	Neighbours []Neighbour
}

// Neighbour is a chunk near a result along the section tree.
type Neighbour struct {
	ChunkID     string
	Relation    string // "parent", "prev" or "next"
	HeadingPath []string
	Text        string
}

// Related is a document that a result links to.
type Related struct {
	// From is the chunk id of the result holding the link.
	From     string
	Kind     LinkKind
	LinkText string
	// Source, Path and Title name a document of the store; URL is set instead when the link
	// leads outside the source.
	Source, Path, Title string
	URL                 string
	// ChunkID, Anchor, HeadingPath and Text are the linked document's first chunk.
	ChunkID     string
	Anchor      string
	HeadingPath []string
	Text        string
}

// Response is the outcome of a search.
type Response struct {
	Results []Result
	// Related lists documents the top results link to (Request.FollowLinks), strongest link first.
	Related []Related
	// Warnings explain degraded answers, e.g. the embedding endpoint failing (BM25 legs still ran).
	Warnings []string
}

// TrustFactor weighs a fused score by the source's trust level: ±10% per level around
// the default 3, enough to order near-ties (the same advice in a vetted runbook and in
// someone's notes) without letting trust outrank relevance.
func TrustFactor(level int) float64 {
	if level < 1 || level > 5 {
		level = 3
	}
	return 1 + 0.1*float64(level-3)
}

// Search runs a request.
func (r *Retriever) Search(ctx context.Context, req Request) (*Response, error) {
	if r.Store == nil {
		return nil, errors.New("retriever has no store")
	}
	if strings.TrimSpace(req.Query) == "" {
		return nil, errors.New("empty knowledge query")
	}
	topK := req.TopK
	if topK <= 0 {
		topK = 5
	}
	topK = min(topK, MaxTopK)
	q := Query{
		Text:       req.Query,
		TopK:       topK,
		Candidates: r.Candidates,
		Legs:       req.Legs,
		Filter:     Filter{Domains: req.Domains, Sources: req.Sources, MinTrust: req.MinTrust},
		Fusion:     r.Fusion,
	}
	if req.PerDocument > 0 {
		q.TopK = min(topK*4, 4*MaxTopK) // over-fetch so the per-document cap can still fill topK
	}
	resp := &Response{}
	if r.Embedder != nil && q.useLeg(LegDense) {
		vecs, err := r.Embedder.Embed(ctx, []string{req.Query})
		switch {
		case err != nil:
			resp.Warnings = append(resp.Warnings, fmt.Sprintf("dense retrieval skipped: %v", err))
		case len(vecs) == 1:
			q.Vector, q.VectorModel = vecs[0], r.Embedder.Model()
		}
	}
	depth := r.rerankDepth()
	staged := r.Reranker != nil || (req.FollowLinks > 0 && r.linkWeight() > 0)
	if staged {
		q.TopK = max(q.TopK, min(depth, 4*MaxTopK)) // the later stages need candidates below the cut
	}
	hits, err := r.Store.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	if r.TrustOf != nil {
		for i := range hits {
			hits[i].Score *= TrustFactor(r.TrustOf(hits[i].Chunk.Source))
		}
		sort.SliceStable(hits, func(a, b int) bool { return hits[a].Score > hits[b].Score })
	}
	follow := min(req.FollowLinks, MaxFollow)
	if follow > 0 && r.linkWeight() > 0 {
		boostLinked(hits, follow, depth, r.linkWeight())
	}
	if r.Reranker != nil {
		reranked, err := r.Reranker.Rerank(ctx, req.Query, hits[:min(len(hits), depth)])
		if err != nil {
			resp.Warnings = append(resp.Warnings, fmt.Sprintf("rerank skipped: %v", err))
		} else {
			hits = append(reranked, hits[min(len(hits), depth):]...)
		}
	}
	perDoc := map[string]int{}
	for _, h := range hits {
		if len(resp.Results) == topK {
			break
		}
		key := h.Chunk.Source + "\x00" + h.Chunk.Path
		if req.PerDocument > 0 && perDoc[key] >= req.PerDocument {
			continue
		}
		perDoc[key]++
		c := h.Chunk
		resp.Results = append(resp.Results, Result{
			ChunkID: c.ID, Citation: c.Citation(), Source: c.Source, Path: c.Path, Title: c.DocTitle,
			HeadingPath: c.HeadingPath, Anchor: c.Anchor, Text: c.Text, Score: h.Score, LegRanks: h.LegRanks,
			Links: c.Links,
		})
	}
	if follow > 0 {
		if resp.Related, err = r.related(ctx, resp.Results, follow); err != nil {
			return nil, err
		}
	}
	if req.Expand > 0 {
		if err := r.expand(ctx, resp.Results, min(req.Expand, MaxExpand)); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// expand attaches the parent section and up to n previous/next chunks to each result.
func (r *Retriever) expand(ctx context.Context, results []Result, n int) error {
	for i := range results {
		self, err := r.Store.Get(ctx, []string{results[i].ChunkID})
		if err != nil {
			return err
		}
		if len(self) == 0 {
			continue
		}
		var nb []Neighbour
		if p := self[0].ParentID; p != "" && p != self[0].ID {
			got, err := r.Store.Get(ctx, []string{p})
			if err != nil {
				return err
			}
			for _, c := range got {
				nb = append(nb, Neighbour{ChunkID: c.ID, Relation: "parent", HeadingPath: c.HeadingPath, Text: c.Text})
			}
		}
		for _, dir := range []string{"prev", "next"} {
			cur := self[0]
			for step := 0; step < n; step++ {
				id := cur.PrevID
				if dir == "next" {
					id = cur.NextID
				}
				if id == "" || id == self[0].ParentID {
					break
				}
				got, err := r.Store.Get(ctx, []string{id})
				if err != nil {
					return err
				}
				if len(got) == 0 {
					break
				}
				cur = got[0]
				nb = append(nb, Neighbour{ChunkID: cur.ID, Relation: dir, HeadingPath: cur.HeadingPath, Text: cur.Text})
			}
		}
		results[i].Neighbours = nb
	}
	return nil
}
