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
	"hash/fnv"
	"math"
	"sort"
)

// BM25Params are the Okapi BM25 constants. The zero value means DefaultBM25.
type BM25Params struct {
	// K1 controls term-frequency saturation; 1.2 when not positive.
	K1 float64
	// B controls length normalisation (0 none, 1 full); 0.75 when outside [0,1].
	B float64
}

// DefaultBM25 holds the textbook constants.
var DefaultBM25 = BM25Params{K1: 1.2, B: 0.75}

func (p BM25Params) orDefault() BM25Params {
	if p == (BM25Params{}) {
		return DefaultBM25
	}
	if p.K1 <= 0 {
		p.K1 = DefaultBM25.K1
	}
	if p.B < 0 || p.B > 1 {
		p.B = DefaultBM25.B
	}
	return p
}

// TF is the saturated, length-normalised term-frequency part of BM25.
func (p BM25Params) TF(tf, docLen int, avgLen float64) float64 {
	if tf <= 0 {
		return 0
	}
	if avgLen <= 0 {
		avgLen = 1
	}
	f := float64(tf)
	return f * (p.K1 + 1) / (f + p.K1*(1-p.B+p.B*float64(docLen)/avgLen))
}

// IDF is the BM25 inverse document frequency (the "+1" variant, never negative).
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// TermID maps a term to a sparse-vector dimension (32-bit FNV-1a); collisions are rare and harmless.
func TermID(term string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(term))
	return h.Sum32()
}

// invertedIndex is a BM25 index over one text field. Documents live in integer
// slots owned by the caller.
type invertedIndex struct {
	params   BM25Params
	postings map[string][]posting
	// docLen and docTerms are indexed by slot; docLen < 0 marks an empty slot.
	docLen   []int32
	docTerms [][]string
	live     int
	totalLen int64
}

type posting struct {
	slot int32
	tf   int32
}

func newInvertedIndex(p BM25Params) *invertedIndex {
	return &invertedIndex{params: p.orDefault(), postings: map[string][]posting{}}
}

// add indexes terms in slot, replacing whatever the slot held.
func (ix *invertedIndex) add(slot int32, terms []string) {
	ix.remove(slot)
	for int(slot) >= len(ix.docLen) {
		ix.docLen = append(ix.docLen, -1)
		ix.docTerms = append(ix.docTerms, nil)
	}
	tf := map[string]int32{}
	for _, t := range terms {
		tf[t]++
	}
	uniq := make([]string, 0, len(tf))
	for t, n := range tf {
		ix.postings[t] = append(ix.postings[t], posting{slot: slot, tf: n})
		uniq = append(uniq, t)
	}
	ix.docLen[slot] = int32(len(terms))
	ix.docTerms[slot] = uniq
	ix.live++
	ix.totalLen += int64(len(terms))
}

// remove drops slot from the index; removing an empty slot is a no-op.
func (ix *invertedIndex) remove(slot int32) {
	if int(slot) >= len(ix.docLen) || ix.docLen[slot] < 0 {
		return
	}
	for _, t := range ix.docTerms[slot] {
		ps := ix.postings[t]
		for i := range ps {
			if ps[i].slot == slot {
				ps[i] = ps[len(ps)-1]
				ps = ps[:len(ps)-1]
				break
			}
		}
		if len(ps) == 0 {
			delete(ix.postings, t)
		} else {
			ix.postings[t] = ps
		}
	}
	ix.totalLen -= int64(ix.docLen[slot])
	ix.live--
	ix.docLen[slot] = -1
	ix.docTerms[slot] = nil
}

func (ix *invertedIndex) avgLen() float64 {
	if ix.live == 0 {
		return 1
	}
	return float64(ix.totalLen) / float64(ix.live)
}

type scored struct {
	slot  int32
	score float64
}

// search scores every accepted slot containing a query term and returns the best
// limit slots, highest score first, ties broken by slot for determinism.
// Repeated query terms count once.
func (ix *invertedIndex) search(qterms []string, limit int, accept func(int32) bool) []scored {
	if ix.live == 0 || limit <= 0 {
		return nil
	}
	avg := ix.avgLen()
	acc := map[int32]float64{}
	seen := map[string]bool{}
	for _, t := range qterms {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := IDF(ix.live, len(ps))
		for _, p := range ps {
			if accept != nil && !accept(p.slot) {
				continue
			}
			acc[p.slot] += idf * ix.params.TF(int(p.tf), int(ix.docLen[p.slot]), avg)
		}
	}
	out := make([]scored, 0, len(acc))
	for s, v := range acc {
		out = append(out, scored{slot: s, score: v})
	}
	sortScored(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func sortScored(s []scored) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].score != s[j].score {
			return s[i].score > s[j].score
		}
		return s[i].slot < s[j].slot
	})
}

// SparseVector is a sparse BM25 vector: parallel, ascending dimension ids and weights.
type SparseVector struct {
	Indices []uint32
	Values  []float32
}

// DocumentSparse returns the document side of BM25 as a sparse vector: each term's
// saturated TF against avgLen (the expected field length). Its inner product with
// QuerySparse is the BM25 score, which is how Milvus ranks without knowing BM25.
func DocumentSparse(terms []string, avgLen float64, p BM25Params) SparseVector {
	p = p.orDefault()
	tf := map[uint32]int{}
	for _, t := range terms {
		tf[TermID(t)]++
	}
	return buildSparse(tf, func(n int) float64 { return p.TF(n, len(terms), avgLen) })
}

// QuerySparse returns the query side of BM25: each distinct term weighted by its IDF
// (from idf, which may return 1 when corpus statistics are unknown).
func QuerySparse(terms []string, idf func(term string) float64) SparseVector {
	w := map[uint32]float64{}
	for _, t := range terms {
		w[TermID(t)] = idf(t)
	}
	ids := make([]uint32, 0, len(w))
	for id := range w {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	sv := SparseVector{Indices: ids, Values: make([]float32, len(ids))}
	for i, id := range ids {
		sv.Values[i] = float32(w[id])
	}
	return sv
}

func buildSparse(tf map[uint32]int, weight func(int) float64) SparseVector {
	ids := make([]uint32, 0, len(tf))
	for id := range tf {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	sv := SparseVector{Indices: ids, Values: make([]float32, len(ids))}
	for i, id := range ids {
		sv.Values[i] = float32(weight(tf[id]))
	}
	return sv
}
