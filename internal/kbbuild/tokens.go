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
