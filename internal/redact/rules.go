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

import "regexp"

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
