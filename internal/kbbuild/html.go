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
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipTags hold no readable content (or only site chrome).
var skipTags = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true,
	"iframe": true, "object": true, "nav": true, "footer": true, "head": true, "button": true, "form": true,
}

// maxHTMLDepth bounds element nesting the walker follows.
const maxHTMLDepth = 512

// ParseHTML converts an HTML page into the same section tree as Markdown:
// h1–h6 open sections, paragraphs, list items, <pre> and tables become blocks,
// scripts, styles and navigation are dropped.
func ParseHTML(docPath string, content []byte) (*ParsedDocument, error) {
	if len(content) > MaxParseBytes {
		return nil, fmt.Errorf("document is %d bytes, limit %d", len(content), MaxParseBytes)
	}
	content = validUTF8(content)
	root, err := html.Parse(bytes.NewReader(content))
	if err != nil {
		return nil, fmt.Errorf("parse HTML: %w", err)
	}
	doc := &ParsedDocument{}
	w := &htmlWalker{tb: newTreeBuilder(doc)}
	w.head(root, 0)
	w.walk(root, 0)
	w.flush()
	if doc.Title == "" {
		doc.Title = titleFromPath(docPath)
	}
	return doc, nil
}

type htmlWalker struct {
	tb  *treeBuilder
	buf strings.Builder
}

// head reads <title> and <meta name="description">.
func (w *htmlWalker) head(n *html.Node, depth int) {
	if depth > maxHTMLDepth {
		return
	}
	if n.Type == html.ElementNode {
		switch n.DataAtom {
		case atom.Title:
			if w.tb.doc.Title == "" {
				w.tb.doc.Title = strings.Join(strings.Fields(textContent(n)), " ")
			}
		case atom.Meta:
			if strings.EqualFold(attr(n, "name"), "description") {
				w.tb.doc.Description = strings.Join(strings.Fields(attr(n, "content")), " ")
			}
		case atom.Body:
			return
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.head(c, depth+1)
	}
}

func (w *htmlWalker) flush() {
	if t := strings.TrimSpace(collapseSpaces(w.buf.String())); t != "" {
		w.tb.block(Block{Kind: BlockParagraph, Text: t})
	}
	w.buf.Reset()
}

func (w *htmlWalker) walk(n *html.Node, depth int) {
	if depth > maxHTMLDepth {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.buf.WriteString(n.Data)
		return
	case html.ElementNode:
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, depth+1)
		}
		return
	}
	if skipTags[n.Data] {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.flush()
		w.tb.heading(int(n.Data[1]-'0'), textContent(n), firstNonEmpty(attr(n, "id"), childAnchor(n)))
		return
	case atom.Pre:
		w.flush()
		lang := ""
		for _, cls := range strings.Fields(attr(n, "class") + " " + attr(n.FirstChild, "class")) {
			if l, ok := strings.CutPrefix(cls, "language-"); ok {
				lang = l
			}
		}
		w.tb.block(Block{Kind: BlockCode, Text: "```" + lang + "\n" + strings.Trim(textContent(n), "\n") + "\n```"})
		return
	case atom.Table:
		w.flush()
		w.tb.block(Block{Kind: BlockTable, Text: htmlTable(n)})
		return
	case atom.Ul, atom.Ol:
		w.flush()
		for li := n.FirstChild; li != nil; li = li.NextSibling {
			if li.Type == html.ElementNode && li.DataAtom == atom.Li {
				var b strings.Builder
				htmlListItem(&b, li, n.DataAtom == atom.Ol, 0, depth)
				w.tb.block(Block{Kind: BlockListItem, Text: strings.TrimRight(b.String(), "\n")})
			}
		}
		return
	case atom.Blockquote:
		w.flush()
		w.tb.block(Block{Kind: BlockQuote, Text: "> " + collapseSpaces(textContent(n))})
		return
	case atom.Br:
		w.buf.WriteString("\n")
		return
	case atom.Code:
		if n.Parent == nil || n.Parent.DataAtom != atom.Pre {
			w.buf.WriteString("`" + textContent(n) + "`")
			return
		}
	}
	block := isBlockElement(n.DataAtom)
	if block {
		w.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, depth+1)
	}
	if block {
		w.flush()
	}
}

func isBlockElement(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Aside, atom.Dl, atom.Dt,
		atom.Dd, atom.Hr, atom.Figure, atom.Figcaption, atom.Details, atom.Summary, atom.Body, atom.Li, atom.Tr:
		return true
	}
	return false
}

func htmlListItem(b *strings.Builder, li *html.Node, ordered bool, level, depth int) {
	var text strings.Builder
	var nested []*html.Node
	for c := li.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol) {
			nested = append(nested, c)
			continue
		}
		if c.Type == html.ElementNode && skipTags[c.Data] {
			continue
		}
		text.WriteString(textContent(c))
	}
	marker := "- "
	if ordered {
		marker = "1. "
	}
	b.WriteString(strings.Repeat("  ", level) + marker + collapseSpaces(text.String()) + "\n")
	if depth+level > maxHTMLDepth {
		return
	}
	for _, l := range nested {
		for c := l.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Li {
				htmlListItem(b, c, l.DataAtom == atom.Ol, level+1, depth)
			}
		}
	}
}

func htmlTable(t *html.Node) string {
	var b strings.Builder
	var rows []*html.Node
	var collect func(n *html.Node, depth int)
	collect = func(n *html.Node, depth int) {
		if depth > 4 {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Tr {
				rows = append(rows, c)
			} else if c.DataAtom == atom.Thead || c.DataAtom == atom.Tbody || c.DataAtom == atom.Tfoot {
				collect(c, depth+1)
			}
		}
	}
	collect(t, 0)
	for i, r := range rows {
		var cells []string
		header := false
		for c := r.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
				header = header || c.DataAtom == atom.Th
				cells = append(cells, strings.ReplaceAll(collapseSpaces(textContent(c)), "|", `\|`))
			}
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if i == 0 && header {
			b.WriteString("|" + strings.Repeat(" --- |", len(cells)) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// textContent concatenates the text below n, skipping script-like elements.
func textContent(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node, int)
	walk = func(n *html.Node, depth int) {
		if depth > maxHTMLDepth {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && skipTags[n.Data] {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func childAnchor(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if id := firstNonEmpty(attr(c, "id"), attr(c, "name")); id != "" {
				return id
			}
		}
	}
	return ""
}

func attr(n *html.Node, key string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// collapseSpaces collapses runs of blanks inside lines and drops empty lines.
func collapseSpaces(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
