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
	"unicode"
	"unicode/utf8"
)

// EstimateTokens is a deterministic stand-in for a BPE tokenizer:
// every run of letters/digits costs 1 token plus 1 more per 6 runes beyond the
// first (long identifiers split into several BPE pieces), and every other
// non-blank rune (punctuation, symbols) costs 1. On English prose this lands
// close to the cl100k counts of OpenAI models; on code it errs high, which is
// the safe side for staying under a model's context limit.
func EstimateTokens(s string) int {
	n := 0
	run := 0
	flush := func() {
		if run > 0 {
			n += 1 + (run-1)/6
			run = 0
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			run++
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}
