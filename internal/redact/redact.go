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
