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
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
)

// EmbeddedOptions configures the in-process store.
type EmbeddedOptions struct {
	// Analyzer turns text into terms for both BM25 legs.
	Analyzer Analyzer
	// Body and Title are the BM25 constants of each leg; zero means DefaultBM25.
	Body  BM25Params
	Title BM25Params
	// TitleDescription adds the document description to the title field.
	TitleDescription bool
	// BodyHeadings prefixes the body field with the chunk's heading path.
	BodyHeadings bool
	// MaxChunks bounds the number of stored chunks; DefaultMaxChunks when zero.
	MaxChunks int
}

// DefaultMaxChunks bounds an Embedded store: ~200k chunks of ~1 KiB is a few hundred MiB.
const DefaultMaxChunks = 200_000

// Embedded is the default Store: everything in memory, in this process.
// Its state is rebuilt from the sources on start (the indexing pipeline re-reads
// them) or restored from a snapshot file with LoadSnapshot.
type Embedded struct {
	opts EmbeddedOptions

	mu     sync.RWMutex
	slots  []*Chunk // nil marks a free slot
	free   []int32
	byID   map[string]int32
	docs   map[string]map[string]*docEntry // source → path → entry
	body   *invertedIndex
	title  *invertedIndex
	chunks int
}

type docEntry struct {
	hash  string
	slots []int32
}

// NewEmbedded returns an empty in-process store.
func NewEmbedded(opts EmbeddedOptions) *Embedded {
	if opts.MaxChunks <= 0 {
		opts.MaxChunks = DefaultMaxChunks
	}
	return &Embedded{
		opts:  opts,
		byID:  map[string]int32{},
		docs:  map[string]map[string]*docEntry{},
		body:  newInvertedIndex(opts.Body),
		title: newInvertedIndex(opts.Title),
	}
}

var (
	_ Store          = (*Embedded)(nil)
	_ DocumentReader = (*Embedded)(nil)
)

// DocumentHashes implements Store.
func (e *Embedded) DocumentHashes(_ context.Context, source string) (map[string]string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make(map[string]string, len(e.docs[source]))
	for p, d := range e.docs[source] {
		out[p] = d.hash
	}
	return out, nil
}

// ReplaceDocument implements Store.
func (e *Embedded) ReplaceDocument(_ context.Context, source, path, hash string, chunks []Chunk) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.replaceLocked(source, path, hash, chunks)
}

func (e *Embedded) replaceLocked(source, path, hash string, chunks []Chunk) error {
	old := e.docs[source][path]
	oldSlots := map[int32]bool{}
	if old != nil {
		for _, s := range old.slots {
			oldSlots[s] = true
		}
	}
	// Validate everything before touching state so a rejected write changes nothing.
	seen := make(map[string]bool, len(chunks))
	for i := range chunks {
		id := chunks[i].ID
		if id == "" {
			return fmt.Errorf("chunk %d of %s has no id", i, path)
		}
		if seen[id] {
			return fmt.Errorf("duplicate chunk id %s in %s", id, path)
		}
		seen[id] = true
		if s, ok := e.byID[id]; ok && !oldSlots[s] {
			c := e.slots[s]
			return fmt.Errorf("chunk id %s of %s already belongs to %s:%s", id, path, c.Source, c.Path)
		}
	}
	if e.chunks-len(oldSlots)+len(chunks) > e.opts.MaxChunks {
		return fmt.Errorf("%w: %d chunks, limit %d", ErrStoreFull, e.chunks-len(oldSlots)+len(chunks), e.opts.MaxChunks)
	}
	if old != nil {
		e.removeSlots(old.slots)
	}
	entry := &docEntry{hash: hash, slots: make([]int32, 0, len(chunks))}
	for i := range chunks {
		c := chunks[i]
		c.Source, c.Path, c.DocHash = source, path, hash
		c.HeadingPath = append([]string(nil), c.HeadingPath...)
		c.Vector = append([]float32(nil), c.Vector...)
		c.Links = CopyLinks(c.Links)
		slot := e.allocSlot(&c)
		e.body.add(slot, e.opts.Analyzer.Terms(e.bodyText(&c)))
		e.title.add(slot, e.opts.Analyzer.Terms(c.TitleText(e.opts.TitleDescription)))
		entry.slots = append(entry.slots, slot)
	}
	if e.docs[source] == nil {
		e.docs[source] = map[string]*docEntry{}
	}
	e.docs[source][path] = entry
	return nil
}

func (e *Embedded) bodyText(c *Chunk) string {
	if e.opts.BodyHeadings {
		return strings.Join(c.HeadingPath, "\n") + "\n" + c.Text
	}
	return c.Text
}

func (e *Embedded) allocSlot(c *Chunk) int32 {
	var slot int32
	if n := len(e.free); n > 0 {
		slot = e.free[n-1]
		e.free = e.free[:n-1]
		e.slots[slot] = c
	} else {
		slot = int32(len(e.slots))
		e.slots = append(e.slots, c)
	}
	e.byID[c.ID] = slot
	e.chunks++
	return slot
}

func (e *Embedded) removeSlots(slots []int32) {
	for _, s := range slots {
		c := e.slots[s]
		if c == nil {
			continue
		}
		delete(e.byID, c.ID)
		e.body.remove(s)
		e.title.remove(s)
		e.slots[s] = nil
		e.free = append(e.free, s)
		e.chunks--
	}
}

// DeleteDocument implements Store.
func (e *Embedded) DeleteDocument(_ context.Context, source, path string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d := e.docs[source][path]; d != nil {
		e.removeSlots(d.slots)
		delete(e.docs[source], path)
		if len(e.docs[source]) == 0 {
			delete(e.docs, source)
		}
	}
	return nil
}

// DeleteSource implements Store.
func (e *Embedded) DeleteSource(_ context.Context, source string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.deleteSourceLocked(source)
	return nil
}

// Counts implements Store.
func (e *Embedded) Counts(_ context.Context, source string) (int, int, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	chunks := 0
	for _, d := range e.docs[source] {
		chunks += len(d.slots)
	}
	return len(e.docs[source]), chunks, nil
}

// Len returns the total number of stored chunks.
func (e *Embedded) Len() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.chunks
}

// Get implements Store.
func (e *Embedded) Get(_ context.Context, ids []string) ([]Chunk, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]Chunk, 0, len(ids))
	for _, id := range ids {
		if s, ok := e.byID[id]; ok {
			out = append(out, withoutVector(e.slots[s]))
		}
	}
	return out, nil
}

func withoutVector(c *Chunk) Chunk {
	cp := *c
	cp.Vector = nil
	cp.HeadingPath = append([]string(nil), c.HeadingPath...)
	cp.Links = CopyLinks(c.Links)
	return cp
}

// LeadChunks implements DocumentReader.
func (e *Embedded) LeadChunks(_ context.Context, source string, paths []string) ([]Chunk, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]Chunk, 0, len(paths))
	for _, p := range paths {
		d := e.docs[source][p]
		if d == nil || len(d.slots) == 0 {
			continue
		}
		// Slots keep the document's chunk order, so the first is ordinal 0.
		out = append(out, withoutVector(e.slots[d.slots[0]]))
	}
	return out, nil
}

// Search implements Store.
func (e *Embedded) Search(ctx context.Context, q Query) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.TopK <= 0 {
		return nil, nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	accept := func(s int32) bool { return e.slots[s] != nil && q.Filter.Match(e.slots[s]) }
	cand := q.candidates()
	lists := map[Leg][]string{}
	if q.Text != "" && (q.useLeg(LegBody) || q.useLeg(LegTitle)) {
		terms := e.opts.Analyzer.QueryTerms(q.Text)
		if q.useLeg(LegBody) {
			lists[LegBody] = e.ids(e.body.search(terms, cand, accept))
		}
		if q.useLeg(LegTitle) {
			lists[LegTitle] = e.ids(e.title.search(terms, cand, accept))
		}
	}
	if len(q.Vector) > 0 && q.useLeg(LegDense) {
		lists[LegDense] = e.ids(e.dense(q.Vector, q.VectorModel, cand, accept))
	}
	fused := RRF(lists, q.Fusion)
	if len(fused) > q.TopK {
		fused = fused[:q.TopK]
	}
	hits := make([]Hit, len(fused))
	for i, f := range fused {
		hits[i] = Hit{Chunk: withoutVector(e.slots[e.byID[f.ID]]), Score: f.Score, LegRanks: f.Ranks}
	}
	return hits, nil
}

func (e *Embedded) ids(s []scored) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = e.slots[x.slot].ID
	}
	return out
}

// dense ranks chunks embedded by the same model by cosine similarity (brute force:
// exact, and fast enough for the store's bounded size).
func (e *Embedded) dense(v []float32, model string, limit int, accept func(int32) bool) []scored {
	qn := norm(v)
	if qn == 0 {
		return nil
	}
	var out []scored
	for s, c := range e.slots {
		if c == nil || len(c.Vector) != len(v) || (model != "" && c.VectorModel != model) || !accept(int32(s)) {
			continue
		}
		cn := norm(c.Vector)
		if cn == 0 {
			continue
		}
		var dot float64
		for i := range v {
			dot += float64(v[i]) * float64(c.Vector[i])
		}
		out = append(out, scored{slot: int32(s), score: dot / (qn * cn)})
	}
	sortScored(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// sources returns the stored source names, sorted.
func (e *Embedded) sources() []string {
	out := make([]string, 0, len(e.docs))
	for s := range e.docs {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// AvgFieldLengths returns the mean analysed length of the body and title fields,
// the figures the Milvus store needs for its BM25 length normalisation.
func (e *Embedded) AvgFieldLengths() (body, title float64) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.body.avgLen(), e.title.avgLen()
}
