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
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/kubage/kubage/internal/retrieval"
)

// Format is a document format.
type Format string

const (
	FormatMarkdown Format = "Markdown"
	FormatHTML     Format = "HTML"
	FormatText     Format = "Text"
)

// ParsedDocument is a document as a tree of sections.
type ParsedDocument struct {
	// Title comes from front matter, <title>, the first H1, or the file name, in that order.
	Title string
	// Description comes from front matter or <meta name="description">.
	Description string
	// FrontMatter holds the decoded YAML front matter, if any.
	FrontMatter map[string]any
	// Root holds content before the first heading; headings nest below it.
	Root *Section
	// References are files the document pulls in but which are not fetched (code samples, includes).
	References []Reference
	// Links are document-level links to related pages (from front matter); links in the
	// text travel with their blocks.
	Links []RawLink
	// Warnings describe recoverable problems, e.g. malformed front matter.
	Warnings []string
}

// Reference is a file a document refers to without containing it.
type Reference struct {
	// Kind is "code_sample" or "include".
	Kind   string
	Target string
}

// Section is one heading and the blocks up to the next heading of the same or higher level.
type Section struct {
	Heading string
	// Level is 1–6 for headings, 0 for the root.
	Level int
	// Anchor is the heading id: an explicit `{#id}` or one generated from the text.
	Anchor   string
	Blocks   []Block
	Children []*Section
}

// BlockKind says how a block may be split.
type BlockKind string

const (
	BlockParagraph BlockKind = "paragraph"
	// BlockListItem is one top-level list item; consecutive items join with a single newline.
	BlockListItem BlockKind = "list-item"
	BlockCode     BlockKind = "code"
	BlockTable    BlockKind = "table"
	BlockQuote    BlockKind = "quote"
)

// Block is a unit of text the chunker keeps together when it can.
type Block struct {
	Kind BlockKind
	Text string
	// Links are the links inside the block, in order.
	Links []RawLink
}

// Walk visits the section and its descendants depth-first, in document order,
// with the heading path leading to each (the root's empty heading excluded).
func (s *Section) Walk(fn func(sec *Section, headingPath []string)) {
	type frame struct {
		sec  *Section
		path []string
	}
	// An explicit stack: documents with thousands of headings must not recurse deeply.
	stack := []frame{{sec: s}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(f.sec, f.path)
		for i := len(f.sec.Children) - 1; i >= 0; i-- {
			c := f.sec.Children[i]
			p := append(append([]string(nil), f.path...), c.Heading)
			stack = append(stack, frame{sec: c, path: p})
		}
	}
}

// Outline renders the tree as indented headings with block counts (for golden tests and debugging).
func (d *ParsedDocument) Outline() string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\n", d.Title)
	if d.Description != "" {
		fmt.Fprintf(&b, "description: %s\n", d.Description)
	}
	for _, r := range d.References {
		fmt.Fprintf(&b, "ref: %s %s\n", r.Kind, r.Target)
	}
	d.Root.Walk(func(s *Section, hp []string) {
		if s.Level == 0 {
			fmt.Fprintf(&b, "(root) blocks=%d\n", len(s.Blocks))
			return
		}
		fmt.Fprintf(&b, "%s%s {#%s} blocks=%d\n", strings.Repeat("  ", len(hp)), s.Heading, s.Anchor, len(s.Blocks))
	})
	return b.String()
}

// titleFromPath turns "docs/pod-overhead.md" into "pod overhead".
func titleFromPath(p string) string {
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if ext := path.Ext(base); ext != "" && len(ext) <= 10 {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "_index" || base == "index" {
		if dir := path.Base(path.Dir(p)); dir != "." && dir != "/" {
			base = dir
		}
	}
	return strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(base))
}

// Parse parses content in the given format. Markdown is the default for an empty format.
func Parse(format Format, docPath string, content []byte) (*ParsedDocument, error) {
	switch format {
	case FormatMarkdown, "":
		return ParseMarkdown(docPath, content)
	case FormatHTML:
		return ParseHTML(docPath, content)
	case FormatText:
		return ParseText(docPath, content), nil
	default:
		return nil, fmt.Errorf("unknown document format %q", format)
	}
}

// treeBuilder nests sections by heading level as headings arrive in document order.
type treeBuilder struct {
	doc   *ParsedDocument
	stack []*Section
	first bool
}

func newTreeBuilder(doc *ParsedDocument) *treeBuilder {
	doc.Root = &Section{}
	return &treeBuilder{doc: doc, stack: []*Section{doc.Root}, first: true}
}

// heading opens a section; an H1 that is the first heading titles an untitled document.
func (t *treeBuilder) heading(level int, title, anchor string) {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return
	}
	if t.first && level == 1 && t.doc.Title == "" {
		t.doc.Title = title
	}
	t.first = false
	if anchor == "" {
		anchor = slug(title)
	}
	sec := &Section{Heading: title, Level: level, Anchor: anchor}
	for len(t.stack) > 1 && t.stack[len(t.stack)-1].Level >= level {
		t.stack = t.stack[:len(t.stack)-1]
	}
	parent := t.stack[len(t.stack)-1]
	parent.Children = append(parent.Children, sec)
	t.stack = append(t.stack, sec)
}

func (t *treeBuilder) block(b Block) {
	if strings.TrimSpace(b.Text) == "" {
		return
	}
	cur := t.stack[len(t.stack)-1]
	if len(b.Links) > 0 && isRelatedHeading(cur.Heading) {
		b.Links = append([]RawLink(nil), b.Links...)
		for i := range b.Links {
			b.Links[i].Kind = retrieval.LinkRelated
		}
	}
	cur.Blocks = append(cur.Blocks, b)
}

// slug makes a heading anchor the way Hugo and goldmark do: lowercase words joined by "-".
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127 {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return b.String()
}

// validUTF8 replaces invalid byte sequences so chunk text is always valid UTF-8
// (protobuf strings, JSON and the Milvus VarChar fields require it).
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}
