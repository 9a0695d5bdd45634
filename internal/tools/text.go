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

package tools

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Output bounds shared by every tool, so no single call can flood a model's context.
const (
	DefaultMaxLines = 200
	DefaultMaxBytes = 16 << 10
	maxLineBytes    = 400
)

// TruncationMarker starts the line appended to any text that hit a cap.
const TruncationMarker = "[truncated:"

// Sanitize makes untrusted text (logs, event messages, annotations) safe to show:
// invalid UTF-8 and control characters become '.', newlines become spaces when
// singleLine is set, and the result is cut to maxBytes with an ellipsis.
func Sanitize(s string, maxBytes int, singleLine bool) string {
	if maxBytes <= 0 {
		maxBytes = maxLineBytes
	}
	var b strings.Builder
	// Scan a bounded prefix only: enough to fill maxBytes after replacements.
	limit := len(s)
	if limit > maxBytes*4+16 {
		limit = maxBytes*4 + 16
	}
	cut := false
	for i := 0; i < limit; {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			r = '.'
		case r == '\n' || r == '\r':
			if singleLine {
				r = ' '
			} else if r == '\r' {
				continue
			}
		case r == '\t':
			if singleLine {
				r = ' '
			}
		case !unicode.IsPrint(r) && !unicode.IsSpace(r):
			r = '.'
		}
		if b.Len()+utf8.RuneLen(r) > maxBytes {
			cut = true
			break
		}
		b.WriteRune(r)
	}
	if limit < len(s) {
		cut = true
	}
	out := b.String()
	if cut {
		out = strings.TrimRight(out, " ") + "…"
	}
	return out
}

// Text accumulates output lines under a line and byte cap and records what was dropped.
type Text struct {
	MaxLines, MaxBytes int
	lines              []string
	bytes              int
	dropped            int
}

// NewText returns a Text with the given caps (defaults when <= 0).
func NewText(maxLines, maxBytes int) *Text {
	if maxLines <= 0 {
		maxLines = DefaultMaxLines
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Text{MaxLines: maxLines, MaxBytes: maxBytes}
}

// Linef adds one formatted line (cut to a sane width); lines over the caps are counted, not kept.
func (t *Text) Linef(format string, args ...any) {
	t.Line(fmt.Sprintf(format, args...))
}

// Line adds one line verbatim (already sanitized by the caller when it holds untrusted text).
func (t *Text) Line(s string) {
	for _, l := range strings.Split(s, "\n") {
		if len(l) > maxLineBytes {
			l = Sanitize(l, maxLineBytes, true)
		}
		if t.dropped > 0 || len(t.lines) >= t.MaxLines || t.bytes+len(l)+1 > t.MaxBytes {
			t.dropped++
			continue
		}
		t.lines = append(t.lines, l)
		t.bytes += len(l) + 1
	}
}

// Truncated reports whether any line was dropped.
func (t *Text) Truncated() bool { return t.dropped > 0 }

// Note marks output as truncated for a reason found outside Text (e.g. a capped list).
func (t *Text) Note(dropped int) { t.dropped += dropped }

// String renders the kept lines plus a truncation marker when something was dropped.
func (t *Text) String() string {
	s := strings.Join(t.lines, "\n")
	if t.dropped > 0 {
		s += fmt.Sprintf("\n%s %d more line(s) or item(s) omitted]", TruncationMarker, t.dropped)
	}
	return s
}
