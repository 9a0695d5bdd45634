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

package kubectlplugin

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// ANSI styles of the terminal rendering.
const (
	styleBold      = "\x1b[1m"
	styleUnderline = "\x1b[4m"
	styleCode      = "\x1b[36m"
	styleDim       = "\x1b[2m"
	styleReset     = "\x1b[0m"
)

var (
	headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	listLine    = regexp.MustCompile(`^(\s*)([-*+]|\d+[.)])\s+(.*)$`)
	anchorTag   = regexp.MustCompile(`<a id="[^"]*"></a>`)
	fenceLine   = regexp.MustCompile("^\\s*(`{3,}|~{3,})")
	tableSep    = regexp.MustCompile(`^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$`)
)

// RenderMarkdown renders the Markdown of a report for a terminal of width columns: headings
// bold, lists with bullets and hanging indents, paragraphs wrapped, code blocks indented,
// tables aligned, links and anchors reduced to their text. Without color it emits no escape
// sequences. It handles the subset of Markdown the report writer produces.
func RenderMarkdown(md string, width int, color bool) string {
	if width < 20 {
		width = 20
	}
	r := &renderer{width: width, color: color}
	lines := strings.Split(Sanitize(strings.ReplaceAll(md, "\r\n", "\n")), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		if m := fenceLine.FindStringSubmatch(line); m != nil {
			i = r.code(lines, i+1, m[1])
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
				j++
			}
			r.table(lines[i:j])
			i = j - 1
			continue
		}
		switch m := headingLine.FindStringSubmatch(line); {
		case m != nil:
			style := styleBold
			if len(m[1]) == 1 {
				style = styleBold + styleUnderline
			}
			r.wrap(r.words(m[2], style), "", "")
		case listLine.MatchString(line):
			lm := listLine.FindStringSubmatch(line)
			bullet := lm[2]
			if strings.ContainsAny(bullet, "-*+") {
				bullet = "•"
			}
			r.wrap(r.words(lm[3], ""), lm[1]+bullet+" ", lm[1]+strings.Repeat(" ", utf8.RuneCountInString(bullet)+1))
		case line == "":
			r.out.WriteString("\n")
		default:
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			r.wrap(r.words(strings.TrimSpace(line), ""), indent, indent)
		}
	}
	return strings.TrimRight(r.out.String(), "\n") + "\n"
}

type renderer struct {
	width int
	color bool
	out   strings.Builder
}

func (r *renderer) style(s, style string) string {
	if !r.color || style == "" || s == "" {
		return s
	}
	return style + s + styleReset
}

// code copies a fenced block (from line start up to its closing fence) indented and unwrapped,
// and returns the index of the closing fence.
func (r *renderer) code(lines []string, start int, fence string) int {
	i := start
	for ; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
			break
		}
		r.out.WriteString("    " + r.style(strings.TrimPrefix(lines[i], "  "), styleDim) + "\n")
	}
	return i
}

// table aligns the cells of a Markdown table; the header row is bold.
func (r *renderer) table(rows []string) {
	var cells [][]string
	for _, row := range rows {
		row = strings.TrimSpace(row)
		if tableSep.MatchString(row) {
			continue
		}
		row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
		var cols []string
		for _, c := range strings.Split(row, "|") {
			cols = append(cols, plainInline(strings.TrimSpace(c)))
		}
		cells = append(cells, cols)
	}
	widths := map[int]int{}
	for _, cols := range cells {
		for j, c := range cols {
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	for i, cols := range cells {
		var b strings.Builder
		for j, c := range cols {
			pad := c
			if j < len(cols)-1 {
				pad += strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+2)
			}
			b.WriteString(pad)
		}
		line := strings.TrimRight(b.String(), " ")
		if i == 0 {
			line = r.style(line, styleBold)
		}
		r.out.WriteString(line + "\n")
	}
}

// word is one unbreakable piece of output, with its styling and its width on screen.
type word struct {
	text  string
	width int
}

// words splits a line of inline Markdown into styled words: **bold**, `code`, [links](url)
// and backslash escapes are resolved; base is the style of the whole line.
func (r *renderer) words(s, base string) []word {
	var out []word
	var cur strings.Builder
	curWidth := 0
	flush := func() {
		if curWidth > 0 {
			out = append(out, word{cur.String(), curWidth})
		}
		cur.Reset()
		curWidth = 0
	}
	for _, sp := range inlineSpans(anchorTag.ReplaceAllString(s, "")) {
		style := base
		if sp.bold {
			style += styleBold
		}
		if sp.code {
			style += styleCode
		}
		for i, part := range strings.Split(sp.text, " ") {
			if i > 0 {
				flush()
			}
			if part != "" {
				cur.WriteString(r.style(part, style))
				curWidth += utf8.RuneCountInString(part)
			}
		}
	}
	flush()
	return out
}

// wrap lays words out in lines of at most r.width columns, the first line after first, the
// others after rest. A word longer than a line gets a line of its own.
func (r *renderer) wrap(words []word, first, rest string) {
	prefix := first
	col := utf8.RuneCountInString(prefix)
	r.out.WriteString(prefix)
	startCol := col
	for _, w := range words {
		if col > startCol && col+1+w.width > r.width {
			r.out.WriteString("\n" + rest)
			col = utf8.RuneCountInString(rest)
			startCol = col
		}
		if col > startCol {
			r.out.WriteString(" ")
			col++
		}
		r.out.WriteString(w.text)
		col += w.width
	}
	r.out.WriteString("\n")
}

// span is a run of inline text with one style.
type span struct {
	text       string
	bold, code bool
}

// inlineSpans parses the inline Markdown of one line.
func inlineSpans(s string) []span {
	var out []span
	var cur strings.Builder
	bold := false
	emit := func(code bool) {
		if cur.Len() > 0 {
			out = append(out, span{text: cur.String(), bold: bold, code: code})
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isPunct(s[i+1]):
			i++
			cur.WriteByte(s[i])
		case c == '`':
			ticks := 1
			for i+ticks < len(s) && s[i+ticks] == '`' {
				ticks++
			}
			end := strings.Index(s[i+ticks:], strings.Repeat("`", ticks))
			if end < 0 {
				cur.WriteString(s[i : i+ticks])
				i += ticks - 1
				continue
			}
			emit(false)
			cur.WriteString(strings.TrimSpace(s[i+ticks : i+ticks+end]))
			emit(true)
			i += ticks + end + ticks - 1
		case c == '*' && i+1 < len(s) && s[i+1] == '*':
			emit(false)
			bold = !bold
			i++
		case c == '[':
			text, url, n := link(s[i:])
			if n == 0 {
				cur.WriteByte(c)
				continue
			}
			cur.WriteString(text)
			if !strings.HasPrefix(url, "#") && url != text {
				cur.WriteString(" (" + url + ")")
			}
			i += n - 1
		default:
			cur.WriteByte(c)
		}
	}
	emit(false)
	return out
}

// link parses "[text](url)" at the start of s; n is its length, 0 when s does not start with one.
func link(s string) (text, url string, n int) {
	closeText := strings.Index(s, "](")
	if closeText < 0 || strings.Contains(s[1:closeText], "[") {
		return "", "", 0
	}
	closeURL := strings.IndexByte(s[closeText+2:], ')')
	if closeURL < 0 {
		return "", "", 0
	}
	text = plainInline(s[1:closeText])
	url = s[closeText+2 : closeText+2+closeURL]
	return text, url, closeText + 2 + closeURL + 1
}

// plainInline is the text of inline Markdown without any styling.
func plainInline(s string) string {
	var b strings.Builder
	for _, sp := range inlineSpans(anchorTag.ReplaceAllString(s, "")) {
		b.WriteString(sp.text)
	}
	return b.String()
}

func isPunct(c byte) bool {
	return strings.IndexByte("\\`*_{}[]()<>#+-.!|~\"'", c) >= 0
}

// Sanitize drops control characters but newlines and tabs: reports and evidence quote logs
// and object fields, and an escape sequence in them must not drive the user's terminal.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
}
