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
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/text"
)

// RawLink is a link as written in a document, before it is resolved against the source.
type RawLink struct {
	Dest string
	Text string
	Kind retrieval.LinkKind
}

// maxLinkText bounds the text kept with a link.
const maxLinkText = 200

// relatedHeading matches the headings under which authors list pages to read next.
var relatedHeading = regexp.MustCompile(`(?i)^(what'?s next|see also|related( (pages|topics|links|runbooks|documentation|docs))?|further reading|next steps|learn more|references)\b`)

// isRelatedHeading reports whether a section's links are the author's "read next" list.
func isRelatedHeading(h string) bool {
	return relatedHeading.MatchString(strings.TrimSpace(strings.ReplaceAll(h, "’", "'")))
}

// frontMatterLinkKeys are the front-matter fields whose values name related pages.
var frontMatterLinkKeys = []string{"related", "see_also", "seealso", "see-also", "references", "links", "runbook_url", "runbook"}

// frontMatterLinks reads related-page references from decoded front matter: a string, a
// list of strings, or a list of maps with a url/link/path/ref field (and an optional title).
func frontMatterLinks(m map[string]any) []RawLink {
	var out []RawLink
	add := func(v any) {
		switch v := v.(type) {
		case string:
			if d := strings.TrimSpace(v); d != "" {
				out = append(out, RawLink{Dest: d, Kind: retrieval.LinkFrontMatter})
			}
		case map[string]any:
			for _, k := range []string{"url", "link", "path", "ref", "href"} {
				if d, ok := v[k].(string); ok && strings.TrimSpace(d) != "" {
					title, _ := v["title"].(string)
					out = append(out, RawLink{Dest: strings.TrimSpace(d), Text: title, Kind: retrieval.LinkFrontMatter})
					break
				}
			}
		}
	}
	for _, k := range frontMatterLinkKeys {
		switch v := m[k].(type) {
		case []any:
			for _, it := range v {
				add(it)
			}
		default:
			add(v)
		}
	}
	return out
}

// collectLinks lists the links inside a Markdown node, in document order.
func collectLinks(n ast.Node, src []byte) []RawLink {
	var out []RawLink
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := c.(type) {
		case *ast.Link:
			out = append(out, RawLink{Dest: string(l.Destination), Text: strings.TrimSpace(inlineText(l, src)), Kind: retrieval.LinkInline})
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			if l.AutoLinkType == ast.AutoLinkURL {
				out = append(out, RawLink{Dest: string(l.URL(src)), Kind: retrieval.LinkInline})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// LinkResolver resolves link destinations against the documents of one source.
type LinkResolver struct {
	// byKey maps a document's site path (no extension, no _index/index, lowercase) to its path.
	byKey map[string]string
}

// NewLinkResolver indexes the document paths of a source.
func NewLinkResolver(paths []string) *LinkResolver {
	r := &LinkResolver{byKey: make(map[string]string, len(paths))}
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted) // on a key collision the first path in order wins, whatever the input order
	for _, p := range sorted {
		k := siteKey(p)
		if _, dup := r.byKey[k]; !dup {
			r.byKey[k] = p
		}
	}
	return r
}

// siteKey is the path a static site generator would serve a file at: "a/b.md" and
// "a/b/_index.md" both become "a/b".
func siteKey(p string) string {
	p = strings.Trim(strings.ToLower(path.Clean("/"+strings.ReplaceAll(p, "\\", "/"))), "/")
	if ext := path.Ext(p); ext == ".md" || ext == ".markdown" || ext == ".html" || ext == ".htm" || ext == ".txt" {
		p = strings.TrimSuffix(p, ext)
	}
	switch b := path.Base(p); b {
	case "_index", "index", "readme":
		p = path.Dir(p)
		if p == "." {
			p = ""
		}
	}
	return p
}

// Resolve turns a link found in the document at from into a stored link: a document of
// the source when one matches, else the destination kept as a URL. ok is false for links
// that lead nowhere worth recording (in-page anchors, mail, the document itself).
func (r *LinkResolver) Resolve(from string, l RawLink) (retrieval.Link, bool) {
	dest := strings.TrimSpace(l.Dest)
	out := retrieval.Link{Text: text.Clip(strings.Join(strings.Fields(l.Text), " "), maxLinkText), Kind: l.Kind}
	if dest == "" || strings.HasPrefix(dest, "#") {
		return out, false
	}
	u, err := url.Parse(dest)
	if err != nil {
		return out, false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		out.URL = text.Clip(dest, 2048)
		return out, true
	case "":
	default:
		return out, false // mailto:, tel:, javascript: ...
	}
	if u.Host != "" { // "//host/path"
		out.URL = text.Clip(dest, 2048)
		return out, true
	}
	out.Anchor = u.Fragment
	if r != nil {
		if p, ok := r.lookup(from, u.Path); ok {
			if p == from {
				return out, false
			}
			out.Path = p
			return out, true
		}
	}
	out.URL = text.Clip(dest, 2048)
	return out, true
}

// lookup finds the document a site-relative or file-relative path names.
func (r *LinkResolver) lookup(from, p string) (string, bool) {
	var cands []string
	if strings.HasPrefix(p, "/") {
		// A site path such as /docs/concepts/x/: the source may hold the docs tree at any
		// depth below the site root, so try it with leading segments dropped.
		segs := strings.Split(strings.Trim(p, "/"), "/")
		for i := range segs {
			cands = append(cands, strings.Join(segs[i:], "/"))
		}
	} else {
		dir := path.Dir(from)
		cands = append(cands, path.Join(dir, p))
		// Hugo serves a page a.md at a/, so its relative links resolve against a/ itself.
		if k := siteKey(from); k != siteKey(dir) {
			cands = append(cands, path.Join(k, p))
		}
	}
	for _, c := range cands {
		if strings.HasPrefix(c, "..") {
			continue
		}
		if doc, ok := r.byKey[siteKey(c)]; ok {
			return doc, true
		}
	}
	return "", false
}

// resolveLinks resolves, de-duplicates and bounds the links of one chunk.
func resolveLinks(r *LinkResolver, from string, raw []RawLink) []retrieval.Link {
	var out []retrieval.Link
	seen := map[string]int{}
	for _, l := range raw {
		rl, ok := r.Resolve(from, l)
		if !ok {
			continue
		}
		key := rl.Path + "\x00" + rl.URL
		if i, dup := seen[key]; dup {
			// The same page linked twice: keep the strongest kind (related over inline).
			if out[i].Kind == retrieval.LinkInline && rl.Kind != retrieval.LinkInline {
				out[i].Kind = rl.Kind
			}
			continue
		}
		if len(out) == retrieval.MaxLinksPerChunk {
			break
		}
		seen[key] = len(out)
		out = append(out, rl)
	}
	return out
}

// shareDocumentLinks gives every chunk the document's own "read next" list (What's next,
// See also, front matter): it speaks for the whole page, not only for the chunk it sits in.
func shareDocumentLinks(chunks []retrieval.Chunk) {
	var doc []retrieval.Link
	for _, c := range chunks {
		for _, l := range c.Links {
			if l.Kind != retrieval.LinkInline {
				doc = append(doc, l)
			}
		}
	}
	if len(doc) == 0 {
		return
	}
	for i := range chunks {
		have := map[string]bool{}
		for _, l := range chunks[i].Links {
			have[l.Path+"\x00"+l.URL] = true
		}
		for _, l := range doc {
			if len(chunks[i].Links) >= retrieval.MaxLinksPerChunk {
				break
			}
			if k := l.Path + "\x00" + l.URL; !have[k] {
				have[k] = true
				chunks[i].Links = append(chunks[i].Links, l)
			}
		}
	}
}

// splitWithLinks is splitBlock that hands each link to the parts holding its text
// (the first part when none does), so a chunk carries the links it shows.
func splitWithLinks(b Block, max int) []Block {
	parts := splitBlock(b, max)
	if len(b.Links) == 0 {
		return parts
	}
	if len(parts) == 1 {
		parts[0].Links = b.Links
		return parts
	}
	for _, l := range b.Links {
		placed := false
		for i := range parts {
			if l.Text != "" && strings.Contains(parts[i].Text, l.Text) {
				parts[i].Links = append(parts[i].Links, l)
				placed = true
			}
		}
		if !placed {
			parts[0].Links = append(parts[0].Links, l)
		}
	}
	return parts
}
