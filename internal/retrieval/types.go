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
	"strings"
)

// Chunk is the unit of knowledge that is indexed, retrieved and cited.
type Chunk struct {
	// ID is stable across re-indexing: derived from source, path, heading path and ordinal.
	ID string
	// Source identifies the KnowledgeSource, e.g. "namespace/name".
	Source string
	// Path is the document's path inside the source (file path or URL).
	Path string
	// DocTitle and DocDescription come from the document's front matter or first heading.
	DocTitle       string
	DocDescription string
	// HeadingPath lists the headings from the document root down to this chunk's section.
	HeadingPath []string
	// Anchor is the section's anchor id (from `{#id}` or generated), used in citations.
	Anchor string
	// Text is the chunk body as readable Markdown-like text.
	Text string
	// Tokens is the estimated token count of Text.
	Tokens int
	// Ordinal is the chunk's position in its document, starting at 0.
	Ordinal int
	// ParentID is the first chunk of the enclosing section; PrevID/NextID are document-order neighbours.
	ParentID string
	PrevID   string
	NextID   string
	// Domain and TrustLevel are copied from the KnowledgeSource for filtering.
	Domain     string
	TrustLevel int
	// DocHash is the stored fingerprint of the document this chunk came from.
	DocHash string
	// Vector is the dense embedding of the chunk, produced by VectorModel; empty without a model.
	Vector      []float32
	VectorModel string
	// Links are the references this chunk makes to other documents (in-page links,
	// "What's next" / "See also" entries, front-matter references).
	Links []Link
}

// LinkKind says where a link was found.
type LinkKind string

const (
	// LinkInline is a link in running text.
	LinkInline LinkKind = "inline"
	// LinkRelated is an entry of a "What's next", "See also" or similar section: the author's
	// own list of pages to read next.
	LinkRelated LinkKind = "related"
	// LinkFrontMatter comes from a front-matter field such as `related` or `see_also`.
	LinkFrontMatter LinkKind = "frontmatter"
)

// Link is a reference from a chunk to another document.
type Link struct {
	// Path is a document of the chunk's own source when the link resolved to one.
	Path string `json:"path,omitempty"`
	// URL is the target as written when it did not resolve to a document of the source.
	URL string `json:"url,omitempty"`
	// Anchor is the section the link points at, if any.
	Anchor string `json:"anchor,omitempty"`
	// Text is the link text.
	Text string   `json:"text,omitempty"`
	Kind LinkKind `json:"kind"`
}

// MaxLinksPerChunk bounds the links kept on one chunk; a link farm must not bloat the store.
const MaxLinksPerChunk = 64

// CopyLinks returns a copy of links (stores keep their own).
func CopyLinks(links []Link) []Link {
	if len(links) == 0 {
		return nil
	}
	return append([]Link(nil), links...)
}

// Citation returns the chunk's citation id: "source:path#anchor".
func (c *Chunk) Citation() string {
	return CitationID(c.Source, c.Path, c.Anchor)
}

// CitationID builds a citation id from its parts; the anchor is optional.
func CitationID(source, path, anchor string) string {
	id := source + ":" + path
	if anchor != "" {
		id += "#" + anchor
	}
	return id
}

// TitleText is the text indexed in the title leg.
func (c *Chunk) TitleText(withDescription bool) string {
	var b strings.Builder
	b.WriteString(c.DocTitle)
	if withDescription && c.DocDescription != "" {
		b.WriteString("\n")
		b.WriteString(c.DocDescription)
	}
	for _, h := range c.HeadingPath {
		if h == c.DocTitle {
			continue // a runbook's H1 usually repeats the title; counting it twice skews BM25
		}
		b.WriteString("\n")
		b.WriteString(h)
	}
	return b.String()
}

// EmbeddingText is what gets embedded: the heading context followed by the body.
func (c *Chunk) EmbeddingText() string {
	var b strings.Builder
	b.WriteString(c.DocTitle)
	for _, h := range c.HeadingPath {
		if h == c.DocTitle {
			continue
		}
		b.WriteString(" > ")
		b.WriteString(h)
	}
	b.WriteString("\n\n")
	b.WriteString(c.Text)
	return b.String()
}

// Leg names one ranked list that takes part in fusion.
type Leg string

const (
	LegBody  Leg = "body"
	LegTitle Leg = "title"
	LegDense Leg = "dense"
)

// AllLegs lists every leg in a fixed order.
var AllLegs = []Leg{LegBody, LegTitle, LegDense}

// Filter restricts which chunks a query may return.
type Filter struct {
	// Domains keeps chunks whose Domain is one of these; empty keeps all.
	Domains []string
	// Sources keeps chunks whose Source is one of these; empty keeps all.
	Sources []string
	// MinTrust keeps chunks with TrustLevel >= MinTrust.
	MinTrust int
}

// Match reports whether the filter admits the chunk.
func (f *Filter) Match(c *Chunk) bool {
	if c.TrustLevel < f.MinTrust {
		return false
	}
	if len(f.Domains) > 0 && !contains(f.Domains, c.Domain) {
		return false
	}
	if len(f.Sources) > 0 && !contains(f.Sources, c.Source) {
		return false
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Fusion configures Reciprocal Rank Fusion.
type Fusion struct {
	// K is the RRF constant; 60 when zero.
	K int
	// Weights multiplies each leg's contribution; a missing leg weighs 1.
	Weights map[Leg]float64
}

// DefaultRRFK is the RRF constant from the original paper (Cormack et al., 2009).
const DefaultRRFK = 60

func (f Fusion) k() float64 {
	if f.K <= 0 {
		return DefaultRRFK
	}
	return float64(f.K)
}

func (f Fusion) weight(l Leg) float64 {
	if w, ok := f.Weights[l]; ok {
		return w
	}
	return 1
}

// Query is what a Store searches for.
type Query struct {
	// Text is the user's query; it feeds the BM25 legs.
	Text string
	// Vector is the query embedding made by VectorModel; it feeds the dense leg when set.
	Vector      []float32
	VectorModel string
	// TopK bounds the fused result list.
	TopK int
	// Candidates bounds each leg's list before fusion; 4*TopK (at least 50) when zero.
	Candidates int
	// Legs selects legs; empty means every leg that has input.
	Legs   []Leg
	Filter Filter
	Fusion Fusion
}

func (q *Query) useLeg(l Leg) bool {
	return len(q.Legs) == 0 || contains(legStrings(q.Legs), string(l))
}

func legStrings(ls []Leg) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = string(l)
	}
	return out
}

func (q *Query) candidates() int {
	if q.Candidates > 0 {
		return q.Candidates
	}
	return max(4*q.TopK, 50)
}

// Hit is one fused search result.
type Hit struct {
	// Chunk is returned without its vector.
	Chunk Chunk
	// Score is the fused RRF score.
	Score float64
	// LegRanks holds the 1-based rank of the chunk in each leg that returned it.
	LegRanks map[Leg]int
}

// Store persists chunks grouped by source and document and answers hybrid queries.
// Implementations must be safe for concurrent use.
type Store interface {
	// DocumentHashes returns path → stored document hash for one source.
	DocumentHashes(ctx context.Context, source string) (map[string]string, error)
	// ReplaceDocument atomically replaces every chunk of (source, path) and records hash.
	ReplaceDocument(ctx context.Context, source, path, hash string, chunks []Chunk) error
	// DeleteDocument removes a document and its chunks; deleting a missing one is not an error.
	DeleteDocument(ctx context.Context, source, path string) error
	// DeleteSource removes everything indexed for a source.
	DeleteSource(ctx context.Context, source string) error
	// Search runs the query's legs and fuses them.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Get returns the chunks with these ids (missing ids are skipped), without vectors.
	Get(ctx context.Context, ids []string) ([]Chunk, error)
	// Counts returns the number of documents and chunks stored for a source.
	Counts(ctx context.Context, source string) (docs, chunks int, err error)
}

// DocumentReader is implemented by stores that can return the first chunk of a document,
// which is what following a link to that document lands on.
type DocumentReader interface {
	// LeadChunks returns the first chunk (ordinal 0) of each listed document of source that
	// is stored, without vectors, in the order of paths.
	LeadChunks(ctx context.Context, source string, paths []string) ([]Chunk, error)
}

// ErrStoreFull is returned when a write would exceed a store's configured capacity.
var ErrStoreFull = errors.New("knowledge store is full")
