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

package agent

import (
	"strings"
)

// A Ready server often logs more than one kind of error: a sidecar it cannot reach, and the
// feature the user asks about. The line the clue extractor scores highest (a refused
// connection) may be about the first; the user's own words say which one they came for
// ("no alert emails" for "Notify for alerts failed ... email[0]: SMTP not configured").

// askedStop are words of a problem that name no part of an error.
var askedStop = map[string]bool{"since": true, "have": true, "been": true, "from": true, "with": true, "that": true, "this": true,
	"were": true, "into": true, "they": true, "their": true, "there": true, "after": true, "before": true, "when": true, "what": true,
	"which": true, "still": true, "only": true, "some": true, "more": true, "than": true, "then": true, "them": true, "also": true,
	"does": true, "keeps": true, "every": true, "none": true, "about": true, "nothing": true, "anything": true, "team": true,
	"received": true, "show": true, "shows": true, "moved": true, "namespace": true, "yesterday": true, "today": true, "works": true,
	// Words of any failure: they say that something fails, not which error it is.
	"error": true, "errors": true, "server": true, "internal": true, "fail": true, "failed": true, "failing": true, "fails": true,
	"failure": true, "page": true, "pages": true, "request": true, "requests": true, "response": true, "work": true, "working": true,
	"broken": true, "down": true, "issue": true, "problem": true, "user": true, "users": true, "customer": true, "customers": true,
	"anymore": true, "again": true, "time": true, "times": true, "seem": true, "seems": true, "getting": true, "gets": true}

// askedWords are the distinctive words of the problem text, singular.
func askedWords(problem string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(clipString(problem, 2000)), func(r rune) bool { return !isLetter(byte(r)) }) {
		if len(w) >= 4 && !askedStop[w] {
			out[strings.TrimSuffix(w, "s")] = true
		}
	}
	return out
}

// askedOverlap counts the problem's words a line contains.
func askedOverlap(line string, asked map[string]bool) int {
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(line), func(r rune) bool { return !isLetter(byte(r)) }) {
		w = strings.TrimSuffix(w, "s")
		if asked[w] && !seen[w] {
			seen[w] = true
		}
	}
	return len(seen)
}

// askedClue is the error line of lines that shares at least two of the problem's words and
// more of them than clue's line does, as a clue; ok is false when there is none.
func askedClue(lines []string, problem string, clue Clue) (Clue, bool) {
	asked := askedWords(problem)
	if len(asked) < 2 {
		return Clue{}, false
	}
	best, bestN := "", max(1, askedOverlap(clue.Line, asked))
	for i, l := range lines {
		if i >= 400 {
			break
		}
		if n := askedOverlap(l, asked); n > bestN && ExtractClues([]string{l}).IsError() {
			best, bestN = l, n
		}
	}
	if best == "" {
		return Clue{}, false
	}
	c := ExtractClues([]string{best})
	return c, c.IsError()
}

// askedErrorWeight is the ranking weight of a finding whose quoted error says what the user
// asks about in their own words ("no alert emails" and "Notify for alerts failed ...
// email[0]"): the failure they came for outranks a louder one they did not mention.
const askedErrorWeight = 15

// askedErrorAffinity is askedErrorWeight when the finding's error line shares at least two of
// the problem's words that name none of its objects (names are nameAffinity's), else 0. It
// weighs only among findings of the highest cause layer present (top): a consumer's symptom
// quotes the user's words too, and must not outrank the cause found behind it.
func askedErrorAffinity(asked map[string]bool, c *candidate, top int) int {
	line := c.Facts["errorLine"]
	if line == "" || len(asked) < 2 || layerOf(c.Rule) < top {
		return 0
	}
	own := map[string]bool{}
	for _, r := range append([]ObjectRef{c.Culprit, c.Object}, c.Affected...) {
		for _, w := range strings.FieldsFunc(strings.ToLower(r.Name), func(r rune) bool { return !isLetter(byte(r)) }) {
			own[strings.TrimSuffix(w, "s")] = true
		}
	}
	rest := map[string]bool{}
	for w := range asked {
		if !own[w] {
			rest[w] = true
		}
	}
	if askedOverlap(line, rest) >= 2 {
		return askedErrorWeight
	}
	return 0
}
