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
	"sort"
)

// Defaults of the link and rerank stages, tuned on the development set (hack/bench/retrievaleval).
const (
	// DefaultLinkWeight: a document linked from a top result gains this share of the
	// linking result's score, times the link kind's weight. Kept small: on the tune half
	// of the dev set 0.3 cost MRR@10 (0.71 → 0.67) and 0.1 changed nothing; links serve
	// mainly to list related pages.
	DefaultLinkWeight = 0.1
	// DefaultRerankDepth is how many fused candidates later stages look at: deeper did not
	// find more on the dev set and costs latency.
	DefaultRerankDepth = 50
)

// linkKindWeight: an author's "read next" list says more than a link in passing.
var linkKindWeight = map[LinkKind]float64{LinkRelated: 1, LinkFrontMatter: 1, LinkInline: 0.5}

func (r *Retriever) linkWeight() float64 {
	if r.LinkWeight == 0 {
		return DefaultLinkWeight
	}
	return r.LinkWeight
}

func (r *Retriever) rerankDepth() int {
	if r.RerankDepth <= 0 {
		return DefaultRerankDepth
	}
	return r.RerankDepth
}

// docKey identifies a document across sources.
func docKey(source, path string) string { return source + "\x00" + path }

// boostLinked follows the links of the chunks of the top `follow` documents one hop:
// the best chunk of every linked document among the first `depth` candidates gains
// weight × kind weight × the linking chunk's score, once per linking document. The
// hits are re-sorted in place.
func boostLinked(hits []Hit, follow, depth int, weight float64) {
	n := min(len(hits), depth)
	best := map[string]int{} // document → index of its best candidate chunk
	for i := 0; i < n; i++ {
		k := docKey(hits[i].Chunk.Source, hits[i].Chunk.Path)
		if _, ok := best[k]; !ok {
			best[k] = i
		}
	}
	boost := make([]float64, n)
	seenDocs := map[string]bool{}
	for i := 0; i < n && len(seenDocs) < follow; i++ {
		c := &hits[i].Chunk
		from := docKey(c.Source, c.Path)
		if seenDocs[from] {
			continue // one linking chunk per document: the best one
		}
		seenDocs[from] = true
		given := map[int]bool{}
		for _, l := range c.Links {
			if l.Path == "" {
				continue
			}
			j, ok := best[docKey(c.Source, l.Path)]
			if !ok || j == i || given[j] {
				continue
			}
			given[j] = true
			boost[j] += weight * linkKindWeight[l.Kind] * hits[i].Score
		}
	}
	for j := range boost {
		hits[j].Score += boost[j]
	}
	sort.SliceStable(hits[:n], func(a, b int) bool { return hits[a].Score > hits[b].Score })
}

// related lists the documents the first `follow` results link to, strongest link kind
// first, then in result order; documents that are results themselves are left out.
func (r *Retriever) related(ctx context.Context, results []Result, follow int) ([]Related, error) {
	inResults := map[string]bool{}
	for _, res := range results {
		inResults[docKey(res.Source, res.Path)] = true
	}
	var out []Related
	seen := map[string]bool{}
	for i := 0; i < min(follow, len(results)); i++ {
		res := results[i]
		for _, l := range res.Links {
			key := docKey(res.Source, l.Path)
			if l.Path == "" {
				key = "url\x00" + l.URL
			}
			if seen[key] || inResults[key] {
				continue
			}
			seen[key] = true
			rel := Related{From: res.ChunkID, Kind: l.Kind, LinkText: l.Text, URL: l.URL, Anchor: l.Anchor}
			if l.Path != "" {
				rel.Source, rel.Path = res.Source, l.Path
			}
			out = append(out, rel)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		return linkKindWeight[out[a].Kind] > linkKindWeight[out[b].Kind]
	})
	if len(out) > MaxRelated {
		out = out[:MaxRelated]
	}
	dr, ok := r.Store.(DocumentReader)
	if !ok {
		return out, nil
	}
	bySource := map[string][]string{}
	for _, rel := range out {
		if rel.Path != "" {
			bySource[rel.Source] = append(bySource[rel.Source], rel.Path)
		}
	}
	lead := map[string]Chunk{}
	for src, paths := range bySource {
		chunks, err := dr.LeadChunks(ctx, src, paths)
		if err != nil {
			return nil, err
		}
		for _, c := range chunks {
			lead[docKey(c.Source, c.Path)] = c
		}
	}
	for i := range out {
		if c, ok := lead[docKey(out[i].Source, out[i].Path)]; ok {
			out[i].Title, out[i].ChunkID, out[i].HeadingPath, out[i].Text = c.DocTitle, c.ID, c.HeadingPath, c.Text
			if out[i].Anchor == "" {
				out[i].Anchor = c.Anchor
			}
		}
	}
	return out, nil
}
