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

package redact

import (
	"sort"
	"strings"
)

// secretKeys end the names of keys whose values are secret ("DB_PASSWORD", "apiKey",
// "client_secret"); a key that merely contains one ("secretName", "tokens") is not.
var secretKeys = []string{"password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "access-key", "secretkey", "secret_key", "secret-key", "privatekey", "private_key", "private-key",
	"credential", "credentials"}

// scanKeyValue redacts the values of secret keys in key=value, key: value, JSON and
// YAML, keeping the key and the quoting. It is a scanner rather than a regular
// expression because it runs on nearly every text and must be fast.
func scanKeyValue(_ *Redactor, s string) (string, int) {
	lower := asciiLower(s)
	type span struct{ start, end int }
	var spans []span
	var kinds []string
	for _, k := range secretKeys {
		for off := 0; ; {
			i := strings.Index(lower[off:], k)
			if i < 0 {
				break
			}
			end := off + i + len(k)
			off = end
			vs, ve, ok := valueAfter(s, end)
			if !ok {
				continue
			}
			spans = append(spans, span{vs, ve})
			kinds = append(kinds, keyKind(k))
		}
	}
	if len(spans) == 0 {
		return s, 0
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return spans[order[a]].start < spans[order[b]].start })
	var b strings.Builder
	n, last := 0, 0
	for _, i := range order {
		sp := spans[i]
		if sp.start < last {
			continue // overlaps a value already replaced ("secret_key" and "key")
		}
		val := s[sp.start:sp.end]
		open, closing, inner := "", "", val
		if q := val[0]; q == '"' || q == '\'' {
			open, inner = val[:1], val[1:]
			if len(val) >= 2 && val[len(val)-1] == q {
				closing, inner = val[len(val)-1:], val[1:len(val)-1]
			}
		}
		// Values already redacted, empty ones and obvious non-secrets (booleans,
		// placeholders) stay, so the model still sees the structure.
		if inner == "" || strings.HasPrefix(inner, Marker) || isHarmless(inner) {
			continue
		}
		b.WriteString(s[last:sp.start])
		b.WriteString(open + Marker + kinds[i] + "]" + closing)
		last = sp.end
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func keyKind(k string) string {
	switch {
	case strings.Contains(k, "pass") || k == "pwd":
		return KindPassword
	case k == "token":
		return KindToken
	case strings.Contains(k, "key"):
		return KindAPIKey
	}
	return KindSecret
}

// valueAfter finds the value of a key ending at i: an optional closing quote of the
// key, a ':' or '=' separator with optional blanks, then a quoted or bare value.
func valueAfter(s string, i int) (int, int, bool) {
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	i = skipBlanks(s, i)
	if i >= len(s) || (s[i] != ':' && s[i] != '=') {
		return 0, 0, false
	}
	i++
	if i < len(s) && s[i] == '=' { // ":=" or "=="
		i++
	}
	i = skipBlanks(s, i)
	if i >= len(s) {
		return 0, 0, false
	}
	switch q := s[i]; q {
	case '"', '\'':
		j := i + 1
		for ; j < len(s) && s[j] != '\n'; j++ {
			if q == '"' && s[j] == '\\' {
				j++
				continue
			}
			if s[j] == q {
				return i, j + 1, true
			}
		}
		// Unclosed (a cut-off log line): the rest of the line is the value.
		return i, min(j, len(s)), j > i+1
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\r\n,;&\"'}][<>", rune(s[j])) {
		j++
	}
	return i, j, j > i
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// tokenLike tells a credential after "Bearer"/"Basic" from a plain word ("basic
// authentication"): real tokens carry digits, mixed case or punctuation.
func tokenLike(v string) bool {
	var lower, upper bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9', strings.ContainsRune("._~+/=-", c):
			return true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		}
	}
	return lower && upper
}

func isHarmless(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "{}", "[]", "<none>", "<unset>", "***", "[hidden]":
		return true
	}
	return false
}
