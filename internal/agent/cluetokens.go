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
	"unicode"
)

// Tokens an error quotes. An application that rejects a value usually repeats it: a quoted
// string ("payments-(api|worker" is not a valid regex), a file name (tls.crt, V3__x.sql), a
// key name (key app.yaml could not be found), the name of something it asked a server for
// (vhost orders not found). Such a token is matched against the configuration the workload
// is given (analyze_tokens.go): where it comes from is where the fix goes. The text is
// untrusted: it is clipped before any regexp runs and every list is capped.

var (
	quotedToken = regexp.MustCompile("\"([^\"]{3,120})\"|'([^']{3,120})'|`([^`]{3,120})`|\u201c([^\u201d]{3,120})\u201d")
	// A file name with a configuration, certificate or migration extension.
	fileToken = regexp.MustCompile(`(?i)(?:^|[\s"'=:(\[,/\x60])([A-Za-z0-9_][A-Za-z0-9_.@-]{0,120}\.(?:ya?ml|json|conf|cfg|ini|toml|hcl|properties|xml|crt|cert|key|pem|ca|sql|env|rules|tmpl|lua|txt))\b`)
	// "key X", "key: X": the name of a key the application looked up.
	keyToken = regexp.MustCompile(`(?i)\bkey[s]?\s*[:=]?\s*["'\x60]?([A-Za-z0-9_][A-Za-z0-9_.-]{1,120})`)
	// The name of something a client asked a server for and the server does not have.
	askedToken = regexp.MustCompile(`(?i)\b(?:vhost|virtual host|database|bucket|topic|queue|index|keyspace|exchange|realm|tenant|stream|collection|namespace)\s+["'\x60]?([A-Za-z0-9_./-]{1,100}?)["'\x60]?\s+(?:not found|does not exist|doesn't exist|is not found|not exist|is unknown|unknown)`)
	// An object of the namespace the text names, the way operators and clients write it:
	// "secret additional-scrape-configs", `configmaps "app-config"`, "Secret ns/name".
	// A value an error shows in parentheses: "data center (eu-west) differs from (datacenter1)".
	parenToken            = regexp.MustCompile(`\(([A-Za-z0-9][A-Za-z0-9_./-]{1,62}[A-Za-z0-9])\)`)
	contractionApostrophe = regexp.MustCompile(`([A-Za-z])'([A-Za-z])`)
	objectToken           = regexp.MustCompile(`(?i)\b(secret|configmap|config map)s?\s+["'\x60]?(?:[a-z0-9-]{1,63}/)?([a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)["'\x60]?`)
)

// maxTokens bounds the tokens read from one text.
const maxTokens = 8

// tokenStopWords are quoted words too common to point at a setting.
var tokenStopWords = map[string]bool{
	"true": true, "false": true, "null": true, "none": true, "default": true, "error": true, "info": true, "warn": true,
	"debug": true, "string": true, "object": true, "array": true, "number": true, "main": true, "could": true, "found": true,
	"the": true, "not": true, "and": true, "for": true, "with": true, "from": true, "this": true, "that": true, "value": true,
}

// ErrorTokens lists the distinctive tokens of an error text, most specific first: the
// names a client asked a server for, quoted strings, file names, then key names.
func ErrorTokens(text string) []string {
	// Quotes escaped inside a logfmt or JSON value quote the token.
	text = strings.ReplaceAll(clipBytes(text, maxClueLineLen), `\"`, `"`)
	var out []string
	add := func(t string) {
		t = strings.TrimSpace(strings.TrimRight(t, ".,:;"))
		if len(out) >= maxTokens || !distinctive(t) || containsStr(out, t) {
			return
		}
		out = append(out, t)
	}
	for _, m := range askedToken.FindAllStringSubmatch(text, 2) {
		add(m[1])
	}
	// An apostrophe inside a word ("doesn't", "plugin's") quotes nothing: read as a quote it
	// pairs with the next real one and swallows the token that follows.
	quoted := contractionApostrophe.ReplaceAllString(text, "$1\u2019$2")
	for _, m := range quotedToken.FindAllStringSubmatch(quoted, maxTokens) {
		for _, g := range m[1:] {
			if g != "" {
				add(g)
			}
		}
	}
	for _, m := range fileToken.FindAllStringSubmatch(text, maxTokens) {
		add(m[1])
	}
	for _, m := range keyToken.FindAllStringSubmatch(text, 2) {
		add(m[1])
	}
	// Last, parenthesized values that look like values (a letter and a digit, dash, dot or
	// underscore), not words: "(eu-west)", not "(deprecated)".
	for _, m := range parenToken.FindAllStringSubmatch(text, 3) {
		if strings.ContainsAny(m[1], "0123456789-_.") && strings.IndexFunc(m[1], unicode.IsLetter) >= 0 {
			add(m[1])
		}
	}
	return out
}

// distinctive reports a token worth matching: long enough, not a number or a common word,
// not a phrase.
func distinctive(t string) bool {
	if len(t) < 3 || len(t) > 120 || tokenStopWords[strings.ToLower(t)] {
		return false
	}
	if strings.Trim(t, "0123456789.:-") == "" {
		return false
	}
	return strings.Count(t, " ") <= 2
}

// NamedObject is an object of the namespace an error text names, with the keys it names.
type NamedObject struct {
	Kind, Name string
	Keys       []string
}

// ErrorObjects finds the Secrets and ConfigMaps a text names, each with the tokens of the
// same text that can be its keys.
func ErrorObjects(text string) []NamedObject {
	text = clipBytes(text, maxClueLineLen)
	var out []NamedObject
	for _, m := range objectToken.FindAllStringSubmatch(text, 3) {
		kind := "Secret"
		if !strings.EqualFold(m[1], "secret") {
			kind = "ConfigMap"
		}
		name := strings.ToLower(m[2])
		if tokenStopWords[name] || name == "failed" || name == "key" || name == "keys" {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o.Kind == kind && o.Name == name
		}
		if dup {
			continue
		}
		o := NamedObject{Kind: kind, Name: name}
		for _, re := range []*regexp.Regexp{keyToken, fileToken} {
			for _, k := range re.FindAllStringSubmatch(text, 3) {
				if t := strings.TrimRight(k[1], ".,:;"); t != name && distinctive(t) && !containsStr(o.Keys, t) && len(o.Keys) < 3 {
					o.Keys = append(o.Keys, t)
				}
			}
		}
		out = append(out, o)
	}
	return out
}

// quoteLine quotes an error line for a summary as the application wrote it (no escapes, so
// its words can be searched for); the line is already sanitized to one line.
func quoteLine(l string) string { return "\u201c" + strings.TrimSpace(l) + "\u201d" }

// clipBytes cuts s to at most n bytes (on a byte boundary; callers sanitize before showing).
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// splitLines breaks a message (a termination message, an event) into at most max lines.
func splitLines(s string, max int) []string {
	s = clipBytes(s, 16<<10)
	out := strings.Split(strings.ReplaceAll(s, "\r", ""), "\n")
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}
