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

package kbbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubage/kubage/internal/retrieval"
)

// ChunkOptions bounds chunk sizes in estimated tokens (see EstimateTokens).
type ChunkOptions struct {
	// MinTokens: smaller pieces are merged into a neighbouring section when that fits.
	MinTokens int
	// TargetTokens: blocks are packed into a chunk until the next one would pass this.
	TargetTokens int
	// MaxTokens: a hard limit; only a single block that cannot be cut more finely may pass it.
	MaxTokens int
}

// DefaultChunking was tuned on the shared evaluation set (see package retrieval's EvalDev).
var DefaultChunking = ChunkOptions{MinTokens: 128, TargetTokens: 512, MaxTokens: 1024}

// Bounds on chunk options.
const (
	MinChunkTokens = 16
	MaxChunkTokens = 8192
)

// WithDefaults fills zero fields from DefaultChunking, keeping min <= target <= max.
func (o ChunkOptions) WithDefaults() ChunkOptions {
	if o.TargetTokens == 0 {
		o.TargetTokens = max(DefaultChunking.TargetTokens, o.MinTokens)
		if o.MaxTokens > 0 {
			o.TargetTokens = min(o.TargetTokens, o.MaxTokens)
		}
	}
	if o.MinTokens == 0 {
		o.MinTokens = min(DefaultChunking.MinTokens, o.TargetTokens)
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = max(DefaultChunking.MaxTokens, o.TargetTokens)
	}
	return o
}

// Validate checks MinChunkTokens <= min <= target <= max <= MaxChunkTokens.
func (o ChunkOptions) Validate() error {
	if o.MinTokens < 0 || o.TargetTokens < MinChunkTokens || o.MaxTokens > MaxChunkTokens ||
		o.MinTokens > o.TargetTokens || o.TargetTokens > o.MaxTokens {
		return fmt.Errorf("chunk sizes must satisfy 0 <= min <= target <= max, target >= %d, max <= %d; got %d/%d/%d",
			MinChunkTokens, MaxChunkTokens, o.MinTokens, o.TargetTokens, o.MaxTokens)
	}
	return nil
}

// ChunkMeta is copied onto every chunk of a document.
type ChunkMeta struct {
	Source     string
	Path       string
	Domain     string
	TrustLevel int
	// Links resolves link destinations to documents of the source; nil keeps every
	// link as the URL it was written as.
	Links *LinkResolver
}

type segment struct {
	sec    *Section
	path   []string
	levels []int
	parent int // index of the enclosing segment, -1 for the root
}

type piece struct {
	seg int
	// merged lists other segments whose content was merged into this piece.
	merged []int
	blocks []Block
	tokens int
}

// ChunkDocument cuts a parsed document into chunks. Blocks are packed up to the
// target size; code blocks and tables are only cut when a single one exceeds the
// maximum (then at line or row boundaries, re-fenced / with the header repeated);
// a section smaller than the minimum is merged into a neighbouring sibling or
// child section, whose heading then appears inside the text. Chunk ids derive
// from source, path, heading path and the ordinal among chunks of that heading
// path, so an edit in one section leaves the ids of other sections unchanged.
func ChunkDocument(doc *ParsedDocument, meta ChunkMeta, opts ChunkOptions) ([]retrieval.Chunk, error) {
	opts = opts.WithDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	segs := flatten(doc.Root)
	var pieces []piece
	for i, s := range segs {
		pieces = append(pieces, packSection(i, s.sec.Blocks, opts)...)
	}
	pieces = mergeSmall(pieces, segs, opts)

	chunks := make([]retrieval.Chunk, len(pieces))
	ordinals := map[string]int{}
	firstChunkOfSeg := map[int]int{}
	for i, p := range pieces {
		s := segs[p.seg]
		key := strings.Join(s.path, "\x1f")
		ord := ordinals[key]
		ordinals[key]++
		for _, sg := range append([]int{p.seg}, p.merged...) {
			if _, ok := firstChunkOfSeg[sg]; !ok {
				firstChunkOfSeg[sg] = i
			}
		}
		text := joinBlocks(p.blocks)
		var raw []RawLink
		if i == 0 {
			raw = append(raw, doc.Links...)
		}
		for _, b := range p.blocks {
			raw = append(raw, b.Links...)
		}
		chunks[i] = retrieval.Chunk{
			ID:             chunkID(meta.Source, meta.Path, s.path, ord),
			Source:         meta.Source,
			Path:           meta.Path,
			DocTitle:       doc.Title,
			DocDescription: doc.Description,
			HeadingPath:    append([]string(nil), s.path...),
			Anchor:         anchorOf(segs, p.seg),
			Text:           text,
			Tokens:         EstimateTokens(text),
			Ordinal:        i,
			Domain:         meta.Domain,
			TrustLevel:     meta.TrustLevel,
			Links:          resolveLinks(meta.Links, meta.Path, raw),
		}
	}
	shareDocumentLinks(chunks)
	for i := range chunks {
		if i > 0 {
			chunks[i].PrevID = chunks[i-1].ID
		}
		if i+1 < len(chunks) {
			chunks[i].NextID = chunks[i+1].ID
		}
		for anc := segs[pieces[i].seg].parent; anc >= 0; anc = segs[anc].parent {
			if ci, ok := firstChunkOfSeg[anc]; ok {
				chunks[i].ParentID = chunks[ci].ID
				break
			}
		}
	}
	return chunks, nil
}

func chunkID(source, path string, headingPath []string, ordinal int) string {
	h := sha256.New()
	for _, part := range []string{source, path, strings.Join(headingPath, "\x1f"), strconv.Itoa(ordinal)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func anchorOf(segs []segment, i int) string {
	for ; i >= 0; i = segs[i].parent {
		if a := segs[i].sec.Anchor; a != "" {
			return a
		}
	}
	return ""
}

// flatten lists sections in document order with their heading paths and parents.
func flatten(root *Section) []segment {
	type frame struct {
		sec    *Section
		parent int
		path   []string
		levels []int
	}
	var out []segment
	stack := []frame{{sec: root, parent: -1}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		idx := len(out)
		out = append(out, segment{sec: f.sec, path: f.path, levels: f.levels, parent: f.parent})
		for i := len(f.sec.Children) - 1; i >= 0; i-- {
			c := f.sec.Children[i]
			stack = append(stack, frame{
				sec:    c,
				parent: idx,
				path:   append(append([]string(nil), f.path...), c.Heading),
				levels: append(append([]int(nil), f.levels...), c.Level),
			})
		}
	}
	return out
}

// packSection packs one section's blocks into pieces.
func packSection(seg int, blocks []Block, o ChunkOptions) []piece {
	var out []piece
	cur := piece{seg: seg}
	for _, b := range blocks {
		for _, part := range splitWithLinks(b, o.MaxTokens) {
			t := EstimateTokens(part.Text)
			if len(cur.blocks) > 0 && (cur.tokens+t > o.MaxTokens || (cur.tokens+t > o.TargetTokens && cur.tokens >= o.MinTokens)) {
				out = append(out, cur)
				cur = piece{seg: seg}
			}
			cur.blocks = append(cur.blocks, part)
			cur.tokens += t
		}
	}
	if len(cur.blocks) > 0 {
		// A small tail joins the previous piece when that stays under the maximum.
		if n := len(out); n > 0 && cur.tokens < o.MinTokens && out[n-1].tokens+cur.tokens <= o.MaxTokens {
			out[n-1].blocks = append(out[n-1].blocks, cur.blocks...)
			out[n-1].tokens += cur.tokens
		} else {
			out = append(out, cur)
		}
	}
	return out
}

// mergeSmall merges pieces below the minimum into a related neighbour: forward
// into a sibling or descendant section, else backward into a sibling or ancestor.
func mergeSmall(pieces []piece, segs []segment, o ChunkOptions) []piece {
	for i := 0; i < len(pieces); {
		p := pieces[i]
		if p.tokens >= o.MinTokens {
			i++
			continue
		}
		if i+1 < len(pieces) && related(segs[p.seg], segs[pieces[i+1].seg]) {
			next := pieces[i+1]
			hb := headingBlocks(segs, p, next)
			if add := next.tokens + blockTokens(hb); p.tokens+add <= o.TargetTokens {
				pieces[i].blocks = append(append(p.blocks, hb...), next.blocks...)
				pieces[i].tokens += add
				pieces[i].merged = append(append(pieces[i].merged, next.seg), next.merged...)
				pieces = append(pieces[:i+1], pieces[i+2:]...)
				continue
			}
		}
		if i > 0 && related(segs[p.seg], segs[pieces[i-1].seg]) {
			prev := pieces[i-1]
			hb := headingBlocks(segs, prev, p)
			if add := p.tokens + blockTokens(hb); prev.tokens+add <= o.MaxTokens {
				pieces[i-1].blocks = append(append(prev.blocks, hb...), p.blocks...)
				pieces[i-1].tokens += add
				pieces[i-1].merged = append(append(pieces[i-1].merged, p.seg), p.merged...)
				pieces = append(pieces[:i], pieces[i+1:]...)
				i--
				continue
			}
		}
		i++
	}
	return pieces
}

// related: b is a sibling, descendant or ancestor of a (they share a's parent path).
func related(a, b segment) bool {
	if len(a.path) == 0 || len(b.path) == 0 {
		return len(a.path) == 0 || len(b.path) == 0
	}
	n := len(a.path) - 1
	if len(b.path) < n {
		return false
	}
	for i := 0; i < n; i++ {
		if a.path[i] != b.path[i] {
			return false
		}
	}
	return true
}

// headingBlocks are the heading lines that introduce absorbed's section inside into's text.
func headingBlocks(segs []segment, into, absorbed piece) []Block {
	if into.seg == absorbed.seg {
		return nil
	}
	a, b := segs[into.seg], segs[absorbed.seg]
	common := 0
	for common < len(a.path) && common < len(b.path) && a.path[common] == b.path[common] {
		common++
	}
	var out []Block
	for i := common; i < len(b.path); i++ {
		out = append(out, Block{Kind: BlockParagraph, Text: strings.Repeat("#", max(b.levels[i], 1)) + " " + b.path[i]})
	}
	return out
}

func blockTokens(bs []Block) int {
	n := 0
	for _, b := range bs {
		n += EstimateTokens(b.Text)
	}
	return n
}

func joinBlocks(bs []Block) string {
	var b strings.Builder
	for i, bl := range bs {
		if i > 0 {
			if bl.Kind == BlockListItem && bs[i-1].Kind == BlockListItem {
				b.WriteString("\n")
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(bl.Text)
	}
	return b.String()
}

// splitBlock cuts a block larger than max: code by lines (each part re-fenced),
// tables by rows (header repeated), prose by sentences, then by words.
func splitBlock(b Block, max int) []Block {
	if EstimateTokens(b.Text) <= max {
		return []Block{b}
	}
	switch b.Kind {
	case BlockCode:
		lines := strings.Split(b.Text, "\n")
		open, close := "```", "```"
		if len(lines) >= 2 && strings.HasPrefix(lines[0], "```") && strings.TrimSpace(lines[len(lines)-1]) == "```" {
			open, lines = lines[0], lines[1:len(lines)-1]
		}
		return packLines(b.Kind, lines, open+"\n", "\n"+close, "\n", max)
	case BlockTable:
		lines := strings.Split(b.Text, "\n")
		header := ""
		if len(lines) >= 2 && strings.HasPrefix(lines[1], "| ---") {
			header, lines = lines[0]+"\n"+lines[1]+"\n", lines[2:]
		}
		return packLines(b.Kind, lines, header, "", "\n", max)
	default:
		return packLines(b.Kind, sentences(b.Text), "", "", " ", max)
	}
}

// packLines groups units into blocks of at most max tokens including prefix and suffix.
func packLines(kind BlockKind, units []string, prefix, suffix, sep string, max int) []Block {
	budget := max - EstimateTokens(prefix) - EstimateTokens(suffix)
	if budget < 1 {
		budget = 1
	}
	var out []Block
	var cur []string
	curTok := 0
	emit := func() {
		if len(cur) > 0 {
			out = append(out, Block{Kind: kind, Text: prefix + strings.Join(cur, sep) + suffix})
			cur, curTok = nil, 0
		}
	}
	for _, u := range units {
		t := EstimateTokens(u)
		if t > budget {
			emit()
			for _, w := range wordRuns(u, budget) {
				out = append(out, Block{Kind: kind, Text: prefix + w + suffix})
			}
			continue
		}
		if curTok+t > budget {
			emit()
		}
		cur = append(cur, u)
		curTok += t
	}
	emit()
	return out
}

// sentences splits prose after ". ", "! ", "? " and at newlines; overlong ones are left for wordRuns.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		end := -1
		if c == '\n' {
			end = i
		} else if (c == '.' || c == '!' || c == '?') && i+1 < len(s) && s[i+1] == ' ' {
			end = i + 1
		}
		if end >= 0 {
			if t := strings.TrimSpace(s[start:end]); t != "" {
				out = append(out, t)
			}
			start = end
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// wordRuns splits s at blanks into runs of at most max tokens; a single word
// longer than max is cut by bytes on rune boundaries.
func wordRuns(s string, max int) []string {
	var out []string
	var cur strings.Builder
	curTok := 0
	for _, w := range strings.Fields(s) {
		t := EstimateTokens(w)
		for t > max {
			// Cut an overlong "word" (minified data, base64) in halves until it fits.
			cut := len(w) / 2
			for cut > 0 && (w[cut]&0xC0) == 0x80 {
				cut--
			}
			if cut == 0 {
				cut = len(w) / 2 // no rune boundary: the bytes are not UTF-8 anyway
			}
			out = append(out, wordRuns(w[:cut], max)...)
			w = w[cut:]
			t = EstimateTokens(w)
		}
		if curTok+t > max && cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
			curTok = 0
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
		curTok += t
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
