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
	"fmt"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
)

// MaxParseBytes bounds the input of every parser; sources reject larger files first.
const MaxParseBytes = 16 << 20

var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.DefinitionList),
	goldmark.WithParserOptions(parser.WithHeadingAttribute(), parser.WithAutoHeadingID()),
)

// ParseMarkdown parses Markdown with optional front matter and Hugo shortcodes into a section tree.
func ParseMarkdown(docPath string, content []byte) (*ParsedDocument, error) {
	if len(content) > MaxParseBytes {
		return nil, fmt.Errorf("document is %d bytes, limit %d", len(content), MaxParseBytes)
	}
	content = validUTF8(content)
	doc := &ParsedDocument{}
	fm, delim, body := splitFrontMatter(string(content))
	if fm != "" {
		m, err := decodeFrontMatter(fm, delim)
		if err != nil {
			doc.Warnings = append(doc.Warnings, err.Error())
		}
		doc.FrontMatter = m
		doc.Title = stringField(m, "title")
		doc.Description = stringField(m, "description")
		doc.Links = frontMatterLinks(m)
	}
	body, doc.References = expandShortcodes(body)
	src := []byte(body)
	root := markdown.Parser().Parse(text.NewReader(src))

	tb := newTreeBuilder(doc)
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			tb.heading(h.Level, inlineText(h, src), headingID(h))
			continue
		}
		for _, b := range renderBlocks(n, src) {
			tb.block(b)
		}
	}
	if doc.Title == "" {
		doc.Title = titleFromPath(docPath)
	}
	return doc, nil
}

func headingID(h *ast.Heading) string {
	if v, ok := h.AttributeString("id"); ok {
		switch id := v.(type) {
		case []byte:
			return string(id)
		case string:
			return id
		}
	}
	return ""
}

// renderBlocks turns one top-level Markdown block into chunkable blocks; a list
// becomes one block per item so long lists can be cut between items.
func renderBlocks(n ast.Node, src []byte) []Block {
	switch n := n.(type) {
	case *ast.List:
		var out []Block
		num := n.Start
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			var b strings.Builder
			renderListItem(&b, it, src, n, num, "")
			num++
			if t := strings.TrimRight(b.String(), "\n"); strings.TrimSpace(t) != "" {
				out = append(out, Block{Kind: BlockListItem, Text: t, Links: collectLinks(it, src)})
			}
		}
		return out
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var b strings.Builder
		renderNode(&b, n, src, "")
		return []Block{{Kind: BlockCode, Text: strings.TrimRight(b.String(), "\n")}}
	case *east.Table:
		var b strings.Builder
		renderNode(&b, n, src, "")
		return []Block{{Kind: BlockTable, Text: strings.TrimRight(b.String(), "\n"), Links: collectLinks(n, src)}}
	case *ast.Blockquote:
		var b strings.Builder
		renderNode(&b, n, src, "")
		if t := strings.TrimRight(b.String(), "\n"); strings.TrimSpace(t) != "" {
			return []Block{{Kind: BlockQuote, Text: t, Links: collectLinks(n, src)}}
		}
		return nil
	default:
		var b strings.Builder
		renderNode(&b, n, src, "")
		if t := strings.TrimRight(b.String(), "\n"); strings.TrimSpace(t) != "" {
			return []Block{{Kind: BlockParagraph, Text: t, Links: collectLinks(n, src)}}
		}
		return nil
	}
}

// renderNode writes a block node as plain Markdown-like text, each line prefixed by indent.
func renderNode(b *strings.Builder, n ast.Node, src []byte, indent string) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		writeLines(b, indent, strings.TrimSpace(inlineText(n, src)))
	case *ast.Heading:
		writeLines(b, indent, strings.Repeat("#", n.Level)+" "+strings.TrimSpace(inlineText(n, src)))
	case *ast.FencedCodeBlock:
		lang := ""
		if n.Info != nil {
			lang = strings.Fields(string(n.Info.Segment.Value(src)) + " ")[0]
			lang = strings.TrimPrefix(strings.SplitN(lang, "{", 2)[0], ".")
		}
		writeLines(b, indent, "```"+lang)
		writeLines(b, indent, strings.TrimRight(string(n.Lines().Value(src)), "\n"))
		writeLines(b, indent, "```")
	case *ast.CodeBlock:
		writeLines(b, indent, "```")
		writeLines(b, indent, strings.TrimRight(string(n.Lines().Value(src)), "\n"))
		writeLines(b, indent, "```")
	case *ast.List:
		num := n.Start
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			renderListItem(b, it, src, n, num, indent)
			num++
		}
	case *ast.Blockquote:
		var inner strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			renderNode(&inner, c, src, "")
		}
		writeLines(b, indent+"> ", strings.TrimRight(inner.String(), "\n"))
	case *ast.HTMLBlock:
		if t := htmlBlockText(n, src); t != "" {
			writeLines(b, indent, t)
		}
	case *ast.ThematicBreak:
	case *east.Table:
		for row := n.FirstChild(); row != nil; row = row.NextSibling() {
			var cells []string
			for c := row.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, strings.ReplaceAll(strings.TrimSpace(inlineText(c, src)), "|", `\|`))
			}
			writeLines(b, indent, "| "+strings.Join(cells, " | ")+" |")
			if _, ok := row.(*east.TableHeader); ok {
				writeLines(b, indent, "|"+strings.Repeat(" --- |", len(cells)))
			}
		}
	case *east.DefinitionList:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c.(type) {
			case *east.DefinitionTerm:
				writeLines(b, indent, strings.TrimSpace(inlineText(c, src)))
			case *east.DefinitionDescription:
				var inner strings.Builder
				for d := c.FirstChild(); d != nil; d = d.NextSibling() {
					renderNode(&inner, d, src, "")
				}
				writeLines(b, indent+": ", strings.TrimRight(inner.String(), "\n"))
			}
		}
	default:
		if n.Type() == ast.TypeInline {
			writeLines(b, indent, inlineText(n, src))
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			renderNode(b, c, src, indent)
		}
	}
}

func renderListItem(b *strings.Builder, it ast.Node, src []byte, list *ast.List, num int, indent string) {
	marker := "- "
	if list.IsOrdered() {
		marker = strconv.Itoa(num) + ". "
	}
	var inner strings.Builder
	for c := it.FirstChild(); c != nil; c = c.NextSibling() {
		renderNode(&inner, c, src, "")
	}
	lines := strings.Split(strings.TrimRight(inner.String(), "\n"), "\n")
	pad := strings.Repeat(" ", len(marker))
	for i, l := range lines {
		if i == 0 {
			b.WriteString(indent + marker + l + "\n")
		} else if l == "" {
			b.WriteString("\n")
		} else {
			b.WriteString(indent + pad + l + "\n")
		}
	}
}

func writeLines(b *strings.Builder, indent, s string) {
	if s == "" {
		return
	}
	for _, l := range strings.Split(s, "\n") {
		if l == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(indent)
		b.WriteString(l)
		b.WriteString("\n")
	}
}

// inlineText flattens inline content: link text without URLs, image alt text,
// code spans in backticks, raw HTML dropped.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(src))
				if c.HardLineBreak() {
					b.WriteString("\n")
				} else if c.SoftLineBreak() {
					b.WriteString(" ")
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.CodeSpan:
				b.WriteString("`")
				walk(c)
				b.WriteString("`")
			case *ast.AutoLink:
				b.Write(c.URL(src))
			case *ast.RawHTML:
				// Inline tags such as <br> carry no text worth indexing.
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// htmlBlockText extracts the visible text of a raw HTML block; comments and scripts yield nothing.
func htmlBlockText(n *ast.HTMLBlock, src []byte) string {
	raw := string(n.Lines().Value(src))
	if n.HasClosure() {
		raw += string(n.ClosureLine.Value(src))
	}
	z := html.NewTokenizer(strings.NewReader(raw))
	var b strings.Builder
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.StartTagToken:
			if name, _ := z.TagName(); skipTags[string(name)] {
				skip++
			} else {
				b.WriteString(" ")
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); skipTags[string(name)] && skip > 0 {
				skip--
			} else {
				b.WriteString(" ")
			}
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		}
	}
}
