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
	"sort"
	"strings"
)

// Hugo shortcodes of the Kubernetes docs are rewritten into plain Markdown before
// goldmark sees them: glossary tooltips become their text, heading shortcodes
// become real headings, callouts keep their content behind a "Note:" label,
// tabs are flattened, code_sample/include references are recorded (not
// fetched), and unknown shortcodes are stripped while their inner content stays.

// maxShortcodeLen bounds how far the scanner looks for a shortcode's closing
// delimiter; a stray "{{<" must not make the scan quadratic.
const maxShortcodeLen = 4096

// maxPairedLen bounds the content of a paired shortcode (comment, mermaid, code tab)
// for the same reason.
const maxPairedLen = 256 << 10

type shortcode struct {
	name    string
	closing bool
	args    map[string]string
	pos     []string // positional arguments
}

func (s *shortcode) arg(names ...string) string {
	for _, n := range names {
		if v, ok := s.args[n]; ok {
			return v
		}
	}
	return ""
}

// headingNames maps the docs' heading shortcodes to the text Hugo renders.
var headingNames = map[string]string{
	"prerequisites": "Before you begin",
	"whatsnext":     "What's next",
	"objectives":    "Objectives",
	"cleanup":       "Cleaning up",
	"synopsis":      "Synopsis",
	"options":       "Options",
	"seealso":       "See also",
	"body":          "",
	"overview":      "",
}

var calloutLabels = map[string]string{
	"note":    "Note:",
	"caution": "Caution:",
	"warning": "Warning:",
	"alert":   "",
}

// expandShortcodes rewrites Hugo shortcodes in src and returns the rewritten text
// and the references found. It runs in linear time: delimiter lookups are cached
// and closing tags of paired shortcodes are indexed once.
func expandShortcodes(src string) (string, []Reference) {
	var out strings.Builder
	out.Grow(len(src))
	var refs []Reference
	sc := newScanner(src)
	var closers map[string][]span
	i := 0
	for i < len(src) {
		j := strings.Index(src[i:], "{{")
		if j < 0 {
			out.WriteString(src[i:])
			break
		}
		out.WriteString(src[i : i+j])
		i += j
		code, end, ok := sc.parseAt(i)
		if !ok {
			out.WriteString("{{")
			i += 2
			continue
		}
		// Paired shortcodes whose content must not be treated as Markdown.
		if !code.closing && (code.name == "comment" || code.name == "mermaid" || (code.name == "tab" && code.arg("codelang") != "")) {
			if closers == nil {
				closers = indexClosers(src)
			}
			if c, found := nextCloser(closers[code.name], end); found {
				body := src[end:c.start]
				switch code.name {
				case "mermaid":
					fmt.Fprintf(&out, "\n```mermaid\n%s\n```\n", strings.Trim(body, "\n"))
				case "tab":
					if name := code.arg("name"); name != "" {
						fmt.Fprintf(&out, "\n**%s**\n", name)
					}
					fmt.Fprintf(&out, "\n```%s\n%s\n```\n", code.arg("codelang"), strings.Trim(body, "\n"))
				}
				i = c.end
				continue
			}
		}
		lineStart := blankBefore(src, i)
		lineEnd := restOfLineBlank(src, end)
		out.WriteString(renderShortcode(code, lineStart && lineEnd, &refs))
		i = end
	}
	return out.String(), refs
}

type span struct{ start, end int }

// pairedNames are the shortcodes whose closing tags indexClosers records.
var pairedNames = map[string]bool{"comment": true, "mermaid": true, "tab": true}

// indexClosers lists the closing tags of paired shortcodes in document order.
func indexClosers(src string) map[string][]span {
	out := map[string][]span{}
	sc := newScanner(src)
	for i := 0; i < len(src); {
		j := strings.Index(src[i:], "{{")
		if j < 0 {
			break
		}
		i += j
		code, end, ok := sc.parseAt(i)
		if ok && code.closing && pairedNames[code.name] {
			out[code.name] = append(out[code.name], span{start: i, end: end})
			i = end
			continue
		}
		i += 2
	}
	return out
}

// nextCloser returns the first closer starting at or after from, within maxPairedLen.
func nextCloser(list []span, from int) (span, bool) {
	k := sort.Search(len(list), func(i int) bool { return list[i].start >= from })
	if k == len(list) || list[k].start-from > maxPairedLen {
		return span{}, false
	}
	return list[k], true
}

// scanner finds shortcode delimiters; it caches the next closing delimiter so a
// left-to-right scan over many unclosed "{{<" stays linear.
type scanner struct {
	src  string
	next map[string]struct{ from, at int }
}

func newScanner(src string) *scanner {
	return &scanner{src: src, next: map[string]struct{ from, at int }{}}
}

// index returns the position of seq at or after from, or -1.
func (s *scanner) index(seq string, from int) int {
	if c, ok := s.next[seq]; ok && from >= c.from && (c.at < 0 || from <= c.at) {
		return c.at
	}
	at := strings.Index(s.src[from:], seq)
	if at >= 0 {
		at += from
	}
	s.next[seq] = struct{ from, at int }{from, at}
	return at
}

func renderShortcode(sc shortcode, ownLine bool, refs *[]Reference) string {
	if sc.closing {
		return ""
	}
	switch sc.name {
	case "glossary_tooltip":
		if t := sc.arg("text"); t != "" {
			return t
		}
		return termName(sc.arg("term_id"))
	case "glossary_definition":
		text := termName(sc.arg("term_id"))
		if p := strings.TrimSpace(sc.arg("prepend")); p != "" {
			text = p + " " + text
		}
		return text
	case "heading":
		name := firstOf(sc.pos)
		text, known := headingNames[name]
		if !known {
			text = strings.ReplaceAll(name, "-", " ")
		}
		return asHeading(text, ownLine)
	case "prerequisites-heading", "whatsnext-heading", "objectives-heading", "cleanup-heading":
		return asHeading(headingNames[strings.TrimSuffix(sc.name, "-heading")], ownLine)
	case "note", "caution", "warning", "alert":
		label := calloutLabels[sc.name]
		if t := sc.arg("title"); t != "" {
			label = t + ":"
		}
		if label == "" {
			return ""
		}
		// On its own line the label joins the next line into one "Note: ..." paragraph.
		return label + " "
	case "feature-state":
		v, st := sc.arg("for_k8s_version"), sc.arg("state")
		if v == "" && st == "" {
			return ""
		}
		return strings.TrimSpace(fmt.Sprintf("Feature state: Kubernetes %s [%s]", v, st))
	case "code_sample", "codenew", "code":
		file := sc.arg("file")
		if file == "" {
			file = firstOf(sc.pos)
		}
		if file == "" {
			return ""
		}
		*refs = append(*refs, Reference{Kind: "code_sample", Target: file})
		return "[code sample: " + file + "]"
	case "include":
		if f := firstOf(sc.pos); f != "" {
			*refs = append(*refs, Reference{Kind: "include", Target: f})
		}
		return ""
	case "tab":
		if name := sc.arg("name"); name != "" {
			return "\n**" + name + "**\n"
		}
		return ""
	case "table":
		if c := sc.arg("caption"); c != "" {
			return "Table: " + c + "\n\n"
		}
		return ""
	case "figure":
		if c := firstNonEmpty(sc.arg("caption"), sc.arg("alt"), sc.arg("title")); c != "" {
			return "Figure: " + c
		}
		return ""
	case "link":
		return sc.arg("text")
	case "ref", "relref":
		// Used as a link destination, `[x]({{< ref "./Other.md" >}})`: the target path is
		// what the link graph needs; Hugo would render the page's URL.
		return firstOf(sc.pos)
	default:
		// capture, tabs, param, version-check, toc, skew, ...: strip the tag, keep the content around it.
		return ""
	}
}

func asHeading(text string, ownLine bool) string {
	if text == "" {
		return ""
	}
	if ownLine {
		return "## " + text
	}
	return text
}

func termName(id string) string {
	return strings.ReplaceAll(id, "-", " ")
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// blankBefore reports whether only blanks precede position i on its line
// (a "## " prefix makes a heading shortcode the heading's text, not its own heading).
func blankBefore(src string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch src[j] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return true
}

// restOfLineBlank reports whether only blanks follow position from on its line.
func restOfLineBlank(src string, from int) bool {
	for j := from; j < len(src); j++ {
		switch src[j] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return true
}

// parseAt parses "{{< name args >}}" or "{{% name args %}}" starting at i.
func (s *scanner) parseAt(i int) (shortcode, int, bool) {
	src := s.src
	if i+3 > len(src) || (src[i+2] != '<' && src[i+2] != '%') {
		return shortcode{}, 0, false
	}
	closeSeq := "%}}"
	if src[i+2] == '<' {
		closeSeq = ">}}"
	}
	k := s.index(closeSeq, i+3)
	if k < 0 || k-i > maxShortcodeLen {
		return shortcode{}, 0, false
	}
	inner := strings.TrimSpace(src[i+3 : k])
	end := k + 3
	// Hugo's escaped form "{{</* x */>}}" shows a shortcode literally.
	if strings.HasPrefix(inner, "/*") {
		return shortcode{}, 0, false
	}
	sc := shortcode{args: map[string]string{}}
	if strings.HasPrefix(inner, "/") {
		sc.closing = true
		inner = strings.TrimSpace(inner[1:])
	}
	toks := splitArgs(inner)
	if len(toks) == 0 || !validName(toks[0]) {
		return shortcode{}, 0, false
	}
	sc.name = toks[0]
	for n := 1; n < len(toks); n++ {
		t := toks[n]
		// Accept key=value, key="value" and key = "value".
		if n+2 < len(toks) && toks[n+1] == "=" {
			sc.args[t] = unquote(toks[n+2])
			n += 2
			continue
		}
		if eq := strings.IndexByte(t, '='); eq > 0 && !strings.HasPrefix(t, `"`) {
			sc.args[t[:eq]] = unquote(t[eq+1:])
			continue
		}
		sc.pos = append(sc.pos, unquote(t))
	}
	return sc, end, true
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '/' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// splitArgs splits on blanks outside double quotes and backticks; "=" surrounded by blanks is its own token.
func splitArgs(s string) []string {
	var toks []string
	var cur strings.Builder
	var quote byte
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			cur.WriteByte(c)
			if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
			cur.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return toks
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
		if strings.Contains(s, `\"`) {
			s = strings.ReplaceAll(s, `\"`, `"`)
		}
	}
	return s
}
