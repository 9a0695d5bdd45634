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

package knowledge

import (
	"sort"
	"strings"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/text"
)

// MaxSummaryTokens bounds the extractive summary of a passage: what of it enters a prompt.
const MaxSummaryTokens = 100

// maxUnquotableBytes bounds the one sentence a non-quotable passage may show.
const maxUnquotableBytes = 300

// Summarize extracts from text the sentences that share the most informative words with
// query, keeps them in their original order and stops before maxTokens (estimated as
// the chunker counts). No word is invented: a summary is a selection of the passage.
func Summarize(passage, query string, maxTokens int) string {
	sents := sentences(passage)
	if len(sents) == 0 || maxTokens <= 0 {
		return ""
	}
	an := retrieval.DefaultEmbeddedOptions.Analyzer
	qset := map[string]bool{}
	for _, t := range an.QueryTerms(query) {
		qset[t] = true
	}
	type scored struct {
		i, score, tokens int
	}
	all := make([]scored, len(sents))
	for i, s := range sents {
		seen := map[string]bool{}
		for _, t := range an.Terms(s) {
			if qset[t] && !seen[t] {
				seen[t] = true
			}
		}
		all[i] = scored{i: i, score: len(seen), tokens: kbbuild.EstimateTokens(s)}
	}
	// The passage's opening usually says what it is about: it wins ties.
	sort.SliceStable(all, func(a, b int) bool { return all[a].score > all[b].score })
	keep := make([]bool, len(sents))
	budget := maxTokens
	for _, s := range all {
		if s.tokens <= budget {
			keep[s.i] = true
			budget -= s.tokens
		}
	}
	var out []string
	for i, s := range sents {
		if keep[i] {
			out = append(out, s)
		}
	}
	if len(out) == 0 { // one sentence longer than the budget: its head
		return clipTokens(sents[all[0].i], maxTokens)
	}
	return strings.Join(out, " ")
}

// clipTokens cuts s at a word boundary within maxTokens.
func clipTokens(s string, maxTokens int) string {
	words := strings.Fields(s)
	for len(words) > 0 && kbbuild.EstimateTokens(strings.Join(words, " ")+" …") > maxTokens {
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ") + " …"
}

// sentences splits a passage into sentences and list items, whitespace folded.
func sentences(passage string) []string {
	var out []string
	for _, line := range strings.Split(passage, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		line = strings.TrimLeft(line, "-*> ")
		for line != "" {
			cut := sentenceEnd(line)
			s := strings.TrimSpace(line[:cut])
			if s != "" {
				out = append(out, s)
			}
			line = strings.TrimSpace(line[cut:])
		}
	}
	return out
}

// sentenceEnd is the index just after the first sentence of line (the whole line when
// it holds one): a '.', '!' or '?' followed by a space and an upper-case letter or digit.
func sentenceEnd(line string) int {
	for i := 0; i+2 < len(line); i++ {
		switch line[i] {
		case '.', '!', '?':
			if line[i+1] == ' ' {
				c := line[i+2]
				if (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '`' {
					return i + 1
				}
			}
		}
	}
	return len(line)
}

// FirstSentence is the opening sentence of a passage, bounded: all a non-quotable
// source lets out besides its title and link.
func FirstSentence(passage string) string {
	s := sentences(passage)
	if len(s) == 0 {
		return ""
	}
	return text.Clip(s[0], maxUnquotableBytes)
}

// sourcePolicy is what a source allows of its passages.
type sourcePolicy struct {
	copyright   string
	notQuotable bool
}

// policies returns the policy of each source key ("namespace/name").
func (s *Service) policies(keys map[string]int) map[string]sourcePolicy {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]sourcePolicy, len(keys))
	for k := range keys {
		if e := s.sources[k]; e != nil {
			out[k] = sourcePolicy{copyright: e.copyright, notQuotable: e.notQuotable}
		}
	}
	return out
}

// limit applies a source's policy to a snippet and adds its summary: a non-quotable
// passage keeps its title, citation and first sentence only.
func (p sourcePolicy) limit(sn *Snippet, query string) {
	sn.Copyright, sn.Quotable = p.copyright, !p.notQuotable
	if p.notQuotable {
		sn.Text = FirstSentence(sn.Text)
		sn.Context = nil
		sn.Summary = sn.Text
		return
	}
	sn.Summary = Summarize(sn.Text, query, MaxSummaryTokens)
}

// limitRelated applies a source's policy to a related page.
func (p sourcePolicy) limitRelated(rp *RelatedPage) {
	rp.Copyright, rp.Quotable = p.copyright, !p.notQuotable
	if p.notQuotable {
		rp.Text = FirstSentence(rp.Text)
	}
}
