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

// Package redact removes secrets and personal data from text before it leaves the
// operator (for a model, a report or a log): private keys, tokens and API keys,
// passwords in key=value, JSON, YAML and URLs, emails and IP addresses.
//
// Secrets become "[REDACTED:<kind>]". Emails and IP addresses become a keyed
// pseudonym such as "[ipv4:5c1e2a]" so that a model can still tell that two log lines
// talk about the same address without learning which one it is.
package redact

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Kinds of redacted data, as they appear in the markers.
const (
	KindPrivateKey = "private-key"
	KindJWT        = "jwt"
	KindAPIKey     = "api-key"
	KindToken      = "token"
	KindPassword   = "password"
	KindSecret     = "secret"
	KindEmail      = "email"
	KindIPv4       = "ipv4"
	KindIPv6       = "ipv6"
)

// Marker is the prefix of every secret replacement.
const Marker = "[REDACTED:"

// maxKnownSecrets bounds the literal secrets a Redactor remembers.
const maxKnownSecrets = 256

// minKnownSecret is the shortest literal secret worth replacing (shorter ones would
// shred ordinary words).
const minKnownSecret = 6

type rule struct {
	kind string
	re   *regexp.Regexp
	// anchors are lower-case substrings without which the rule cannot match; regular
	// expressions are slow, so they only run on the lines (the whole text for a
	// multi-line rule) that contain one.
	anchors []string
	// multiLine rules see the whole text instead of single lines.
	multiLine bool
	// repl renders the replacement of one match given its submatch indexes.
	repl func(r *Redactor, s string, m []int) string
	// scan replaces a rule's matches without a regular expression.
	scan func(r *Redactor, s string) (string, int)
}

var (
	pemRE       = regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)`)
	pemB64RE    = regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/=]*`)
	urlCredRE   = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)([^/\s:@'"]+):([^/\s@'"]+)@`)
	jwtRE       = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)
	apiKeyRE    = regexp.MustCompile(`\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|(?:AKIA|ASIA)[A-Z0-9]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,})`)
	authRE      = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{8,})`)
	emailRE     = regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`)
	placeholder = regexp.MustCompile(`^\[(?:REDACTED:[a-z0-9-]+|(?:email|ipv4|ipv6):[0-9a-f]{6})\]$`)
)

func secretRule(kind string, re *regexp.Regexp, anchors ...string) rule {
	return rule{kind: kind, re: re, anchors: anchors, repl: func(_ *Redactor, _ string, _ []int) string { return Marker + kind + "]" }}
}

var rules = []rule{
	{kind: KindPrivateKey, re: pemRE, anchors: []string{"private key"}, multiLine: true, repl: func(*Redactor, string, []int) string { return Marker + KindPrivateKey + "]" }},
	secretRule(KindPrivateKey, pemB64RE, "ls0tls1crudjti"),
	{kind: KindPassword, re: urlCredRE, anchors: []string{"://"}, repl: func(_ *Redactor, s string, m []int) string {
		return s[m[2]:m[3]] + s[m[4]:m[5]] + ":" + Marker + KindPassword + "]@"
	}},
	secretRule(KindJWT, jwtRE, "eyj"),
	secretRule(KindAPIKey, apiKeyRE, "sk-", "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "aiza", "glpat-"),
	{kind: KindToken, re: authRE, anchors: []string{"bearer", "basic"}, repl: func(_ *Redactor, s string, m []int) string {
		if !tokenLike(s[m[6]:m[7]]) {
			return s[m[0]:m[1]]
		}
		return s[m[2]:m[3]] + s[m[4]:m[5]] + Marker + KindToken + "]"
	}},
	{kind: KindPassword, scan: scanKeyValue},
	{kind: KindEmail, re: emailRE, anchors: []string{"@"}, repl: func(r *Redactor, s string, m []int) string { return r.pseudonym(KindEmail, s[m[0]:m[1]]) }},
	{kind: KindIPv4, scan: scanIPv4},
	{kind: KindIPv6, scan: scanIPv6},
}

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

// scanIPv4 pseudonymises dotted quads that stand alone: a run of digits and dots with
// exactly four parts of 0–255, not glued to letters, digits or further dots (so version
// strings such as 1.2.3.4.5 stay).
func scanIPv4(r *Redactor, s string) (string, int) {
	if strings.Count(s, ".") < 3 {
		return s, 0
	}
	var b strings.Builder
	n, last := 0, 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) || (i > 0 && (isWordByte(s[i-1]) || s[i-1] == '.')) {
			i++
			continue
		}
		j := i
		for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
			j++
		}
		run := s[i:j]
		if (j == len(s) || !isWordByte(s[j])) && validIPv4(run) {
			b.WriteString(s[last:i])
			b.WriteString(r.pseudonym(KindIPv4, run))
			last = j
			n++
		}
		i = j
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func validIPv4(run string) bool {
	parts := strings.Split(run, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return false
		}
		v := 0
		for _, c := range p {
			v = v*10 + int(c-'0')
		}
		if v > 255 {
			return false
		}
	}
	return true
}

// scanIPv6 pseudonymises IPv6 addresses: runs of hex digits, colons and dots that stand
// alone, hold "::" or seven colons, and parse as an IPv6 address other than "::".
func scanIPv6(r *Redactor, s string) (string, int) {
	if strings.Count(s, ":") < 2 {
		return s, 0
	}
	var b strings.Builder
	n, last := 0, 0
	for i := 0; i < len(s); {
		if !isIPv6Byte(s[i]) || (i > 0 && (isWordByte(s[i-1]) || s[i-1] == ':')) {
			i++
			continue
		}
		j := i
		for j < len(s) && isIPv6Byte(s[j]) {
			j++
		}
		run := strings.TrimRight(s[i:j], ".")
		end := i + len(run)
		if (end == len(s) || !isWordByte(s[end])) && looksIPv6(run) {
			b.WriteString(s[last:i])
			b.WriteString(r.pseudonym(KindIPv6, run))
			last = end
			n++
		}
		i = j
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func looksIPv6(run string) bool {
	if !strings.Contains(run, "::") && strings.Count(run, ":") != 7 {
		return false
	}
	a, err := netip.ParseAddr(run)
	return err == nil && a.Is6() && !a.IsUnspecified()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }

func isIPv6Byte(c byte) bool { return isHex(c) || c == ':' || c == '.' }

// isWordByte is a byte that glues to an address: letters, digits, '_' and non-ASCII.
func isWordByte(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80
}

// Redactor removes secrets and personal data from text. It is safe for concurrent use.
type Redactor struct {
	key []byte

	mu    sync.RWMutex
	known []string // literal secrets, longest first
}

// New returns a Redactor whose pseudonyms are keyed by key; an empty key picks a random
// one, so pseudonyms are stable within a process and meaningless outside it.
func New(key []byte) *Redactor {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return &Redactor{key: append([]byte(nil), key...)}
}

var (
	defaultOnce sync.Once
	defaultR    *Redactor
)

// Default is the process-wide Redactor (random pseudonym key).
func Default() *Redactor {
	defaultOnce.Do(func() { defaultR = New(nil) })
	return defaultR
}

// AddSecrets registers literal values that must never appear in the output, such as
// the API key of the model itself. Values shorter than 6 bytes are ignored; at most
// 256 values are kept.
func (r *Redactor) AddSecrets(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minKnownSecret || len(r.known) >= maxKnownSecrets || contains(r.known, v) {
			continue
		}
		r.known = append(r.known, v)
	}
	// Longest first, so a secret that contains another is replaced whole.
	sort.SliceStable(r.known, func(i, j int) bool { return len(r.known[i]) > len(r.known[j]) })
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Redact returns s with every secret and personal datum replaced.
func (r *Redactor) Redact(s string) string {
	out, _ := r.RedactCount(s)
	return out
}

// RedactCount is Redact that also says how many replacements it made.
func (r *Redactor) RedactCount(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	n := 0
	r.mu.RLock()
	for _, k := range r.known {
		if c := strings.Count(s, k); c > 0 {
			s = strings.ReplaceAll(s, k, Marker+KindSecret+"]")
			n += c
		}
	}
	r.mu.RUnlock()
	for _, ru := range rules {
		s, n = r.apply(ru, s, n)
	}
	return s, n
}

func (r *Redactor) apply(ru rule, s string, n int) (string, int) {
	if ru.scan != nil {
		out, k := ru.scan(r, s)
		return out, n + k
	}
	lower := asciiLower(s)
	if !containsAny(lower, ru.anchors) {
		return s, n
	}
	if ru.multiLine {
		return r.replace(ru, s, n)
	}
	var b strings.Builder
	changed := false
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start + 1
		}
		line := s[start:end]
		if containsAny(lower[start:end], ru.anchors) {
			out, k := r.replace(ru, line, n)
			if k != n {
				if !changed {
					b.Grow(len(s))
					b.WriteString(s[:start])
					changed = true
				}
				n = k
				line = out
			}
		}
		if changed {
			b.WriteString(line)
		}
		start = end
	}
	if !changed {
		return s, n
	}
	return b.String(), n
}

func (r *Redactor) replace(ru rule, s string, n int) (string, int) {
	ms := ru.re.FindAllStringSubmatchIndex(s, -1)
	if len(ms) == 0 {
		return s, n
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		orig := s[m[0]:m[1]]
		rep := ru.repl(r, s, m)
		b.WriteString(s[last:m[0]])
		b.WriteString(rep)
		if rep != orig {
			n++
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func containsAny(s string, subs []string) bool {
	if len(subs) == 0 {
		return true
	}
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// pseudonym is a stable, keyed stand-in for an address.
func (r *Redactor) pseudonym(kind, v string) string {
	mac := hmac.New(sha256.New, r.key)
	mac.Write([]byte(kind))
	mac.Write([]byte{0})
	mac.Write([]byte(strings.ToLower(v)))
	return "[" + kind + ":" + hex.EncodeToString(mac.Sum(nil))[:6] + "]"
}

// IsPlaceholder reports whether s is exactly one marker or pseudonym of this package.
func IsPlaceholder(s string) bool { return placeholder.MatchString(s) }
