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

// Package text bounds untrusted or unbounded strings before they reach the API, a report,
// a prompt or a log line. It is the one home of string clipping: every package cuts text
// the same way, on a UTF-8 boundary, so nothing written to the API is ever invalid UTF-8.
package text

import (
	"strings"
	"unicode/utf8"
)

// Clip returns s cut to at most n bytes, never splitting a UTF-8 sequence.
func Clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ellipsis marks text that was cut, so a reader knows there was more.
const ellipsis = "…"

// ClipMarked is Clip with an ellipsis appended when s was cut; the ellipsis is not counted
// in n, so callers that must stay within a hard limit pass n-3.
func ClipMarked(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Clip(s, n) + ellipsis
}

// ClipWords is ClipMarked that drops the word the cut falls in (when a space lies in the
// last quarter): text redacted after clipping must not keep half a value the redactor's
// patterns no longer recognise ("oncall@payme…" from an e-mail address).
func ClipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := Clip(s, n)
	if i := strings.LastIndexAny(cut, " \t\n"); i > 0 && i >= n-n/4 {
		cut = cut[:i]
	}
	return cut + ellipsis
}
