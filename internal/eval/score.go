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

package eval

import (
	"fmt"
	"strings"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/tools"
)

// Tally is a pass rate.
type Tally struct {
	Passed int `json:"passed"`
	Total  int `json:"total"`
	// PassRate is in percent.
	PassRate int `json:"passRate"`
}

func (t *Tally) add(pass bool) {
	t.Total++
	if pass {
		t.Passed++
	}
	t.PassRate = t.Passed * 100 / t.Total
}

// Baseline is a brain scored without a model on the same fixtures.
type Baseline struct {
	Tally
	ByClass map[string]Tally `json:"byClass,omitempty"`
	BySplit map[string]Tally `json:"bySplit,omitempty"`
	// Failed names the scenarios it fails, with why.
	Failed map[string][]string `json:"failed,omitempty"`
}

func addTo(m map[string]Tally, key string, pass bool) {
	if key == "" {
		key = "none"
	}
	t := m[key]
	t.add(pass)
	m[key] = t
}

// ScoreRuleEngine scores the rule engine's recorded conclusions (nil when no scenario
// carries one).
func ScoreRuleEngine(scenarios []Scenario) *Baseline {
	b := &Baseline{ByClass: map[string]Tally{}, BySplit: map[string]Tally{}, Failed: map[string][]string{}}
	for _, sc := range scenarios {
		if sc.RuleEngine == nil {
			continue
		}
		f := sc.Expect.check(*sc.RuleEngine, nil)
		pass := len(f) == 0
		b.add(pass)
		addTo(b.ByClass, sc.Class, pass)
		addTo(b.BySplit, sc.Split, pass)
		if !pass {
			b.Failed[sc.Name] = f
		}
	}
	if b.Total == 0 {
		return nil
	}
	return b
}

func (e Expectation) check(rc agent.RootCause, used map[string]int) []string {
	var f []string
	if len(e.Categories) > 0 {
		ok := false
		for _, c := range e.Categories {
			ok = ok || strings.EqualFold(c, rc.Category)
		}
		if !ok {
			f = append(f, fmt.Sprintf("category %q is not one of %s", rc.Category, strings.Join(e.Categories, ", ")))
		}
	}
	if e.Culprit != nil && !sameObject(*e.Culprit, rc.Culprit) {
		f = append(f, fmt.Sprintf("culprit %s/%s, want %s/%s", rc.Culprit.Kind, rc.Culprit.Name, e.Culprit.Kind, e.Culprit.Name))
	}
	for _, want := range e.Culprits {
		named := sameObject(want, rc.Culprit)
		for _, a := range rc.AffectedObjects {
			named = named || sameObject(want, a)
		}
		if !named {
			f = append(f, fmt.Sprintf("%s/%s is neither the culprit nor among the affected objects", want.Kind, want.Name))
		}
	}
	if rc.Confidence < e.MinConfidence {
		f = append(f, fmt.Sprintf("confidence %d%% below %d%%", rc.Confidence, e.MinConfidence))
	}
	for _, w := range e.SummaryContains {
		if !strings.Contains(strings.ToLower(rc.Summary), strings.ToLower(w)) {
			f = append(f, fmt.Sprintf("summary does not mention %q", w))
		}
	}
	for _, t := range e.ForbiddenTools {
		if used[t] > 0 {
			f = append(f, fmt.Sprintf("forbidden tool %s was called", t))
		}
	}
	return f
}

func sameObject(want, got agent.ObjectRef) bool {
	wk, gk := want.Kind, got.Kind
	if k, err := tools.ResolveKind(wk); err == nil {
		wk = k.Kind
	}
	if k, err := tools.ResolveKind(gk); err == nil {
		gk = k.Kind
	}
	return strings.EqualFold(wk, gk) && want.Name == got.Name
}
