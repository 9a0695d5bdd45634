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
	"net/netip"
	"strings"
)

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
