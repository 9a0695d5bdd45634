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

package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Analyzer turns text into index terms: split on anything that is not a letter
// or digit, lowercase, drop stop words and one-character tokens, stem with the
// Snowball (Porter2) English stemmer. CamelCase words such as alert names
// ("etcdMembersDown") are indexed whole and also as their parts, so a query can
// match either the alert name or the words in it.
type Analyzer struct {
	// NoStem disables stemming.
	NoStem bool
	// KeepStopWords disables stop-word removal.
	KeepStopWords bool
	// NoExpand disables expanding common abbreviations in queries (see QueryTerms).
	NoExpand bool
}

// abbreviations are the shorthands operators type in questions ("env vars",
// "pvc", "k8s") mapped to the words documentation spells out. Only queries are
// expanded: the original term is kept, the expansion is added.
var abbreviations = map[string]string{
	"env": "environment", "envs": "environment", "var": "variable", "vars": "variables",
	"ns": "namespace", "svc": "service", "svcs": "services", "cm": "configmap", "cms": "configmaps",
	"pv": "persistent volume", "pvs": "persistent volumes", "pvc": "persistent volume claim",
	"pvcs": "persistent volume claims", "ds": "daemonset", "sts": "statefulset", "rs": "replicaset",
	"deploy": "deployment", "hpa": "horizontal pod autoscaler", "pdb": "pod disruption budget",
	"sa": "service account", "crd": "custom resource definition", "k8s": "kubernetes",
	"cfg": "configuration", "config": "configuration", "configs": "configuration", "oom": "out of memory",
	"fd": "file descriptor", "fds": "file descriptors", "mem": "memory", "img": "image", "repo": "repository",
	"ctr": "container", "certs": "certificates", "cert": "certificate", "auth": "authentication",
	"apiserver": "api server", "creds": "credentials", "dir": "directory",
}

// maxTermBytes bounds a term; longer runs (hashes, base64) are not useful to match.
const maxTermBytes = 48

// Terms returns the analyzed terms of text in order, duplicates kept.
func (a Analyzer) Terms(text string) []string {
	var out []string
	a.each(text, func(t string) { out = append(out, t) })
	return out
}

// QueryTerms analyzes a query: like Terms, plus the expansions of known abbreviations.
func (a Analyzer) QueryTerms(text string) []string {
	terms := a.Terms(text)
	if a.NoExpand {
		return terms
	}
	var extra []string
	a.eachWord(text, func(w string) {
		if exp, ok := abbreviations[strings.ToLower(w)]; ok {
			extra = append(extra, a.Terms(exp)...)
		}
	})
	return append(terms, extra...)
}

// eachWord calls fn for every run of letters and digits.
func (a Analyzer) eachWord(text string, fn func(string)) {
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			fn(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(text[start:])
	}
}

// each calls emit for every term of text.
func (a Analyzer) each(text string, emit func(string)) {
	a.eachWord(text, func(w string) { a.word(w, emit) })
}

func (a Analyzer) word(w string, emit func(string)) {
	if len(w) > maxTermBytes {
		return
	}
	parts := camelParts(w)
	a.term(strings.ToLower(w), emit)
	if len(parts) > 1 {
		for _, p := range parts {
			a.term(strings.ToLower(p), emit)
		}
	}
}

func (a Analyzer) term(t string, emit func(string)) {
	if utf8.RuneCountInString(t) < 2 {
		return
	}
	if !a.KeepStopWords && stopWords[t] {
		return
	}
	if !a.NoStem && !isNumeric(t) {
		t = english.Stem(t, true)
	}
	emit(t)
}

// camelParts splits "etcdGRPCRequestsSlow" into etcd, GRPC, Requests, Slow.
func camelParts(w string) []string {
	var parts []string
	runes := []rune(w)
	start := 0
	for i := 1; i < len(runes); i++ {
		prev, cur := runes[i-1], runes[i]
		split := unicode.IsLower(prev) && unicode.IsUpper(cur)
		// "GRPCRequests": split before the last upper of a run followed by a lower.
		if !split && unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) {
			split = true
		}
		if split {
			parts = append(parts, string(runes[start:i]))
			start = i
		}
	}
	return append(parts, string(runes[start:]))
}

func isNumeric(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// stopWords is a standard English list minus words that matter when troubleshooting
// ("down", "up", "out", "off", "not", "no", "over", "under", "full", "before", "after").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above again against all am an and any are aren as at be
		because been being below between both but by can cannot could couldn did didn do does doesn doing
		don during each few for from further had hadn has hasn have haven having he her here hers herself
		him himself his how i if in into is isn it its itself just let me more most my myself nor of on
		once only or other ought our ours ourselves own same she should shouldn so some such than that the
		their theirs them themselves then there these they this those through to until very was wasn we
		were weren what when where which while who whom why will with won would wouldn you your yours
		yourself yourselves also may might must shall s t ll re ve d m e g eg ie etc via`) {
		m[w] = true
	}
	return m
}()
