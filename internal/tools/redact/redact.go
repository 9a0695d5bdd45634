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
	// repl renders the replacement of one match given its submatch indexes.
	repl func(r *Redactor, s string, m []int) string
}

var (
	pemRE       = regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)`)
	pemB64RE    = regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/=]*`)
	urlCredRE   = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]{1,20}://)([^/\s:@'"]{1,256}):([^/\s@'"]{1,256})@`)
	jwtRE       = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)
	apiKeyRE    = regexp.MustCompile(`\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|(?:AKIA|ASIA)[A-Z0-9]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,})`)
	authRE      = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{8,})`)
	keyValueRE  = regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|credentials?))(["']?)(\s*[:=]\s*)("(?:[^"\\\n]|\\.){0,1000}"|'[^'\n]{0,1000}'|[^\s,;&"'}\]\[<>]{1,1000})`)
	emailRE     = regexp.MustCompile(`\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}\b`)
	ipv4RE      = regexp.MustCompile(`\b(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\b`)
	ipv6RE      = regexp.MustCompile(`(?i)(?:[0-9a-f]{0,4}:){2,7}(?:[0-9a-f]{1,4}|(?:[0-9]{1,3}\.){3}[0-9]{1,3})?`)
	placeholder = regexp.MustCompile(`^\[(?:REDACTED:[a-z0-9-]+|(?:email|ipv4|ipv6):[0-9a-f]{6})\]$`)
)

func secretRule(kind string, re *regexp.Regexp) rule {
	return rule{kind: kind, re: re, repl: func(_ *Redactor, _ string, _ []int) string { return Marker + kind + "]" }}
}

var rules = []rule{
	secretRule(KindPrivateKey, pemRE),
	secretRule(KindPrivateKey, pemB64RE),
	{kind: KindPassword, re: urlCredRE, repl: func(_ *Redactor, s string, m []int) string {
		return s[m[2]:m[3]] + s[m[4]:m[5]] + ":" + Marker + KindPassword + "]@"
	}},
	secretRule(KindJWT, jwtRE),
	secretRule(KindAPIKey, apiKeyRE),
	{kind: KindToken, re: authRE, repl: func(_ *Redactor, s string, m []int) string {
		if !tokenLike(s[m[6]:m[7]]) {
			return s[m[0]:m[1]]
		}
		return s[m[2]:m[3]] + s[m[4]:m[5]] + Marker + KindToken + "]"
	}},
	{kind: KindPassword, re: keyValueRE, repl: redactKeyValue},
	{kind: KindEmail, re: emailRE, repl: func(r *Redactor, s string, m []int) string { return r.pseudonym(KindEmail, s[m[0]:m[1]]) }},
	{kind: KindIPv4, re: ipv4RE, repl: func(r *Redactor, s string, m []int) string { return r.pseudonym(KindIPv4, s[m[0]:m[1]]) }},
	{kind: KindIPv6, re: ipv6RE, repl: redactIPv6},
}

// redactKeyValue keeps the key and the quoting of a sensitive key=value pair.
func redactKeyValue(_ *Redactor, s string, m []int) string {
	key, quote, sep, val := s[m[2]:m[3]], s[m[4]:m[5]], s[m[6]:m[7]], s[m[8]:m[9]]
	kind := KindSecret
	lk := strings.ToLower(key)
	switch {
	case strings.Contains(lk, "pass") || strings.HasSuffix(lk, "pwd"):
		kind = KindPassword
	case strings.HasSuffix(lk, "token"):
		kind = KindToken
	case strings.Contains(lk, "key"):
		kind = KindAPIKey
	}
	inner := val
	open, closing := "", ""
	if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') {
		open, closing, inner = val[:1], val[len(val)-1:], val[1:len(val)-1]
	}
	// Values already redacted, empty ones and obvious non-secrets (booleans, a
	// reference to where the secret lives) stay, so the model still sees structure.
	if inner == "" || strings.HasPrefix(inner, Marker) || isHarmless(inner) {
		return s[m[0]:m[1]]
	}
	return key + quote + sep + open + Marker + kind + "]" + closing
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

func redactIPv6(r *Redactor, s string, m []int) string {
	cand := s[m[0]:m[1]]
	// The candidate must stand alone: not glued to a longer hex word or a ':' run.
	if m[0] > 0 && isHexOrColon(s[m[0]-1]) {
		return cand
	}
	if m[1] < len(s) && (isHexOrColon(s[m[1]]) || s[m[1]] == '.') {
		return cand
	}
	a, err := netip.ParseAddr(cand)
	if err != nil || !a.Is6() || a.IsUnspecified() {
		return cand
	}
	return r.pseudonym(KindIPv6, cand)
}

func isHexOrColon(c byte) bool {
	return c == ':' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
		(c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z') || c == '_'
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
