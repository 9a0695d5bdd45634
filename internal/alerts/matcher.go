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

package alerts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MatchOp is the operator of a label matcher, as in Alertmanager routes.
type MatchOp string

const (
	MatchEqual    MatchOp = "="
	MatchNotEqual MatchOp = "!="
	MatchRegexp   MatchOp = "=~"
	MatchNotRegex MatchOp = "!~"
)

// maxMatcherLen bounds one matcher expression (and so the regexp it compiles).
const maxMatcherLen = 1024

// Matcher tests one label of an alert. A missing label matches as the empty string, as in
// Alertmanager.
type Matcher struct {
	Name  string
	Op    MatchOp
	Value string
	re    *regexp.Regexp
}

// ParseMatcher reads `name=value`, `name!=value`, `name=~regexp` or `name!~regexp`; the
// value may be double-quoted. Regular expressions are anchored at both ends.
func ParseMatcher(s string) (Matcher, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxMatcherLen {
		return Matcher{}, fmt.Errorf("matcher is longer than %d bytes", maxMatcherLen)
	}
	i := strings.IndexAny(s, "=!")
	if i <= 0 {
		return Matcher{}, fmt.Errorf("matcher %q: want name, operator (=, !=, =~, !~) and value", s)
	}
	m := Matcher{Name: strings.TrimSpace(s[:i])}
	rest := s[i:]
	for _, op := range []MatchOp{MatchRegexp, MatchNotRegex, MatchNotEqual, MatchEqual} {
		if strings.HasPrefix(rest, string(op)) {
			m.Op = op
			rest = rest[len(op):]
			break
		}
	}
	if m.Op == "" || !validLabelName(m.Name) {
		return Matcher{}, fmt.Errorf("matcher %q: want name, operator (=, !=, =~, !~) and value", s)
	}
	v := strings.TrimSpace(rest)
	if strings.HasPrefix(v, `"`) {
		uq, err := strconv.Unquote(v)
		if err != nil {
			return Matcher{}, fmt.Errorf("matcher %q: bad quoted value: %w", s, err)
		}
		v = uq
	}
	m.Value = v
	if m.Op == MatchRegexp || m.Op == MatchNotRegex {
		re, err := regexp.Compile("^(?:" + v + ")$")
		if err != nil {
			return Matcher{}, fmt.Errorf("matcher %q: %w", s, err)
		}
		m.re = re
	}
	return m, nil
}

// Matches reports whether the labels satisfy the matcher.
func (m *Matcher) Matches(labels map[string]string) bool {
	v := labels[m.Name]
	switch m.Op {
	case MatchEqual:
		return v == m.Value
	case MatchNotEqual:
		return v != m.Value
	case MatchRegexp:
		return m.re.MatchString(v)
	case MatchNotRegex:
		return !m.re.MatchString(v)
	}
	return false
}

func (m *Matcher) String() string { return m.Name + string(m.Op) + strconv.Quote(m.Value) }

// validLabelName accepts Prometheus label names.
func validLabelName(s string) bool {
	if s == "" || len(s) > MaxLabelNameBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
