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
	"regexp"
	"strings"
)

// Users name objects the way they see them, not the way the API spells them: a pod with its
// hashes (checkout-7d9f8b6c5-x2k4q), a namespace-qualified name (shop/checkout), a Service's
// DNS name (orders.shop.svc.cluster.local:8080), a URL or an Ingress host, a ServiceAccount as
// system:serviceaccount:ns:name, two words for a hyphenated name ("orders API"), or a part of
// it ("the payments service" for payments-api). Alert labels arrive as key=value pairs.
// mentionForms turns such text into the plain names it may stand for.

// Strengths of a mention: the whole name, or a hyphen-delimited part of it.
const (
	mentionExact   = 3
	mentionPartial = 1
)

var (
	// Generated suffixes use the consonant-and-digit alphabet of the API server's name
	// generator, so "redis-cache" keeps its last word while "web-x2k4q" loses its suffix.
	podSuffix        = regexp.MustCompile(`^(.+[a-z0-9])-[bcdfghjklmnpqrstvwxz2456789]{5}$`)
	replicaSetSuffix = regexp.MustCompile(`^(.+[a-z0-9])-[bcdfghjklmnpqrstvwxz2456789]{6,10}$`)
	ordinalSuffix    = regexp.MustCompile(`^(.+[a-z])-[0-9]{1,4}$`)
	portSuffix       = regexp.MustCompile(`:[0-9]{1,5}$`)
	generatedTail    = regexp.MustCompile(`^([0-9]{1,4}|([a-z0-9]{6,10}-)?[a-z0-9]{5})$`)
)

// mentionStop are words too generic to stand for a part of an object's name.
var mentionStop = map[string]bool{
	"the": true, "and": true, "for": true, "not": true, "from": true, "with": true, "our": true, "all": true,
	"api": true, "app": true, "web": true, "pod": true, "pods": true, "service": true, "svc": true, "job": true,
	"server": true, "worker": true, "data": true, "node": true, "nodes": true, "new": true, "old": true,
	"since": true, "down": true, "slow": true, "error": true, "errors": true, "http": true, "https": true,
	"deployment": true, "namespace": true, "container": true, "cluster": true, "local": true, "default": true,
	"serviceaccount": true, "system": true, "keeps": true, "returns": true, "requests": true, "time": true,
}

// mentionForms returns the names the problem text (and an alert's labels among the hints) may
// stand for, each with its strength.
func mentionForms(problem string, hints []string) map[string]int {
	text := clipString(problem, 4000)
	for _, h := range hints {
		// Alert labels (pod=..., deployment=..., service=...) name objects; other hints
		// (runbook URLs, origins) name documents.
		if strings.HasPrefix(h, "labels:") {
			text += "\n" + clipString(h, 2000)
		}
	}
	forms := map[string]int{}
	add := func(f string, s int) {
		f = strings.Trim(f, ".-_'")
		if len(f) < 2 || len(f) > 253 {
			return
		}
		if forms[f] < s {
			forms[f] = s
		}
	}
	var words []string
	flush := func() {
		// Adjacent plain words joined by hyphens: "orders API" → orders-api.
		for n := 2; n <= 3; n++ {
			for i := 0; i+n <= len(words); i++ {
				add(strings.Join(words[i:i+n], "-"), mentionExact)
			}
		}
		words = words[:0]
	}
	for _, raw := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-._:/@'", r))
	}) {
		tok := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(raw, "'s"), "’s"), ".:'")
		if isPlainWord(tok) && raw == tok {
			words = append(words, tok)
		} else {
			if isPlainWord(tok) {
				words = append(words, tok)
			}
			flush()
		}
		for _, f := range tokenForms(tok) {
			add(f, mentionExact)
		}
	}
	flush()
	return forms
}

func isPlainWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// tokenForms unpacks one token: URL, path, DNS name, port, user, generated suffixes.
func tokenForms(tok string) []string {
	if i := strings.Index(tok, "://"); i >= 0 {
		tok = tok[i+3:]
	}
	var out []string
	if strings.HasPrefix(tok, "system:serviceaccount:") {
		parts := strings.Split(tok, ":")
		return append(out, parts[len(parts)-1])
	}
	for _, part := range strings.Split(tok, "/") {
		if i := strings.LastIndexByte(part, '@'); i >= 0 {
			part = part[i+1:]
		}
		part = portSuffix.ReplaceAllString(part, "")
		for _, p := range strings.Split(part, ":") {
			p = strings.Trim(p, ".-_'")
			if p == "" {
				continue
			}
			out = append(out, p)
			if i := strings.IndexByte(p, '.'); i > 0 {
				// A DNS name: its first label is the Service (or pod) name; the whole
				// name may be an Ingress host.
				out = append(out, p[:i])
				p = p[:i]
			}
			out = append(out, generatedStems(p)...)
		}
	}
	return out
}

// generatedStems strips the suffixes controllers add to pod names.
func generatedStems(p string) []string {
	var out []string
	if m := podSuffix.FindStringSubmatch(p); m != nil {
		out = append(out, m[1])
		p = m[1]
		if m := replicaSetSuffix.FindStringSubmatch(p); m != nil {
			out = append(out, m[1])
		}
	} else if m := replicaSetSuffix.FindStringSubmatch(p); m != nil {
		out = append(out, m[1])
	}
	if m := ordinalSuffix.FindStringSubmatch(p); m != nil {
		out = append(out, m[1])
	}
	return out
}

// mentionScore is how strongly the forms name an object called name: the whole name, or a
// hyphen-delimited part of it that is not a generic word.
func mentionScore(forms map[string]int, name string) int {
	name = strings.ToLower(name)
	if name == "" || len(forms) == 0 {
		return 0
	}
	if s := forms[name]; s > 0 {
		return s
	}
	for f := range forms {
		// A pod or replica named after the object: name-<hash>-<suffix>, name-<ordinal>.
		if rest, ok := strings.CutPrefix(f, name+"-"); ok && generatedTail.MatchString(rest) && strings.ContainsAny(rest, "0123456789") {
			return mentionExact
		}
	}
	for f := range forms {
		if len(f) < 3 || mentionStop[f] || strings.ContainsAny(f, ".:/") {
			continue
		}
		if strings.HasPrefix(name, f+"-") || strings.HasSuffix(name, "-"+f) || strings.Contains(name, "-"+f+"-") {
			return mentionPartial
		}
	}
	return 0
}

// minStem is the shortest common beginning that makes a word of the problem stand for a part
// of a name: "notifications" for notifier, "thumbnails" for thumbnailer, "payment" for
// payments-sync.
const minStem = 5

// stemScore reports a hyphen-delimited part of name sharing its first minStem letters (or
// all of a shorter part's, at least four) with a plain word of the problem. It only orders
// what is read first; it never ranks findings.
func stemScore(forms map[string]int, name string) int {
	for _, part := range strings.Split(strings.ToLower(name), "-") {
		if len(part) < 4 || mentionStop[part] {
			continue
		}
		for f := range forms {
			if len(f) < 4 || mentionStop[f] || strings.ContainsAny(f, ".:/-") {
				continue
			}
			n := min(minStem, len(part), len(f))
			if n >= 4 && f[:n] == part[:n] {
				return mentionPartial
			}
		}
	}
	return 0
}
