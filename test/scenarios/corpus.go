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

package scenarios

import (
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/session"
)

// Class is the kind of reasoning a scenario needs, after the classes of misses in issue 12.
type Class int

const (
	// ClassSingle: the cause is on one object, the one showing the symptom or its owner.
	ClassSingle Class = 0
	// ClassRanking: one fault produces several visible problems; the cause must win.
	ClassRanking Class = 1
	// ClassProvider: a consumer fails because of a provider it calls (Service, NetworkPolicy, DNS).
	ClassProvider Class = 2
	// ClassClue: the clue is in text (termination message, log line, event) naming something.
	ClassClue Class = 3
	// ClassReference: a reference points at something missing; name both ends.
	ClassReference Class = 4
	// ClassMechanism: the explanation needs the cluster's numbers (limits, probe timing, quota).
	ClassMechanism Class = 5
	// ClassOutside: outside the failure catalogue (RBAC questions, Running pods whose logs repeat
	// an error, objects configured not to run).
	ClassOutside Class = 6
)

// Split is the half of the corpus a scenario belongs to.
type Split string

const (
	// Tune scenarios may be read while changing rules; the e2e suite asserts them.
	Tune Split = "tune"
	// HeldOut scenarios are only measured: reading them while changing rules spoils the estimate.
	HeldOut Split = "heldout"
)

// Split is computed once from the name (FNV-1a 32, a third held out), never chosen by hand.
func (s *Scenario) Split() Split {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s.Name))
	if h.Sum32()%3 == 0 {
		return HeldOut
	}
	return Tune
}

// HopCount is the scenario's distance from symptom to cause: Hops, or MinHops when larger.
func (s *Scenario) HopCount() int { return max(s.Hops, s.MinHops) }

// Variant is one way of asking about a scenario.
type Variant string

const (
	// Targeted points the session at the scenario's Target.
	Targeted Variant = "targeted"
	// TargetLess gives only the problem text: the session scans the namespace.
	TargetLess Variant = "target-less"
	// NoLogs is target-less on a client whose container-log requests fail, as for an operator
	// without pods/log access or a node whose kubelet does not answer.
	NoLogs Variant = "no-logs"
)

// AllVariants are the variants in the order they run.
var AllVariants = []Variant{Targeted, TargetLess, NoLogs}

// Operator labels results of a target-less Troubleshoot created for the running operator
// (make bench), judged on the status it writes; timed from create to status.rootCause.
const Operator Variant = "operator"

// Variants are the variants a scenario runs: bad-input scenarios only make sense targeted.
func (s *Scenario) Variants() []Variant {
	if s.BadInput {
		return []Variant{Targeted}
	}
	return AllVariants
}

// NoLogsConfig copies cfg so that every container-log request (…/pods/NAME/log) is answered
// 403 Forbidden without reaching the apiserver; everything else passes through.
func NoLogsConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	prev := c.WrapTransport
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return noLogs{next: rt}
	}
	return c
}

type noLogs struct{ next http.RoundTripper }

func (n noLogs) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/log") {
		return n.next.RoundTrip(req)
	}
	body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"pods \"log\" is forbidden: container logs are unreachable in this scenario variant","reason":"Forbidden","code":403}`
	return &http.Response{
		StatusCode: http.StatusForbidden, Status: "403 Forbidden", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}

// terms are the scenario's Terms with "{ns}" replaced by its namespace.
func (s *Scenario) terms(e *Env) []string {
	out := make([]string, len(s.Want.Terms))
	for i, t := range s.Want.Terms {
		out[i] = strings.ReplaceAll(t, "{ns}", e.Namespace)
	}
	return out
}

// judge is the corpus check on what a user reads in status: rootCause as the session writes it
// (the culprit first in affectedObjects, the summary cleaned and bounded).
func (s *Scenario) judge(c agent.Conclusion, e *Env) string {
	return s.JudgeStatus(e, session.RootCause(c.RootCause, nil))
}

// JudgeStatus is the corpus check on a Troubleshoot's status.rootCause: every culprit among
// the affectedObjects and every term in the summary. It returns why it failed, or "".
func (s *Scenario) JudgeStatus(e *Env, rc *kubagev1alpha1.RootCause) string {
	if rc == nil {
		return "no rootCause"
	}
	var miss []string
	for _, r := range s.Want.Culprits() {
		want := e.Resolve(r)
		found := false
		for _, a := range rc.AffectedObjects {
			if a.Kind == want.Kind && a.Name == want.Name && (want.Namespace == "" || a.Namespace == "" || a.Namespace == want.Namespace) {
				found = true
				break
			}
		}
		if !found {
			miss = append(miss, refString(want)+" not in affectedObjects")
		}
	}
	summary := strings.ToLower(rc.Summary)
	// The namespace is generated from the scenario's name, so a term the name contains would
	// be found in every summary that names the namespace: it does not count there.
	bare := summary
	if e.Namespace != "" {
		bare = strings.ReplaceAll(summary, strings.ToLower(e.Namespace), "")
	}
	for _, t := range s.terms(e) {
		in := bare
		if e.Namespace != "" && strings.Contains(strings.ToLower(t), strings.ToLower(e.Namespace)) {
			in = summary // a term that names the namespace ("{ns}") is looked for as written
		}
		if !strings.Contains(in, strings.ToLower(t)) {
			miss = append(miss, fmt.Sprintf("summary lacks %q", t))
		}
	}
	return strings.Join(miss, "; ")
}

// expected renders what the scenario wants, for tables.
func (s *Scenario) expected(e *Env) string {
	var parts []string
	if s.Want.Rule != "" {
		parts = append(parts, s.Want.Category()+" "+s.Want.Rule)
	}
	var refs []string
	for _, r := range s.Want.Culprits() {
		refs = append(refs, refString(e.Resolve(r)))
	}
	parts = append(parts, strings.Join(refs, "+"))
	if ts := s.terms(e); len(ts) > 0 {
		parts = append(parts, fmt.Sprintf("%q", ts))
	}
	return strings.Join(parts, " ")
}

// ListLine is the scenario's line in `make scenarios-list`.
func (s *Scenario) ListLine() string {
	return fmt.Sprintf("%-36s %-7s hops=%d class=%d %s", s.Name, s.Split(), s.HopCount(), s.Class, s.Source)
}

// Cell is one split × variant figure.
type Cell struct {
	Split   Split   `json:"split"`
	Variant Variant `json:"variant"`
	Hits    int     `json:"hits"`
	Runs    int     `json:"runs"`
	// Percent is Hits/Runs rounded down.
	Percent int `json:"percent"`
	// P50Ms is the median session duration of these runs.
	P50Ms float64 `json:"p50Ms"`
}

// Accuracy pools results (bad-input scenarios excluded by the caller) per split × variant.
func Accuracy(results []Result) []Cell {
	type key struct {
		s Split
		v Variant
	}
	durs := map[key][]time.Duration{}
	cells := map[key]*Cell{}
	for _, r := range results {
		k := key{r.Split, r.Variant}
		c := cells[k]
		if c == nil {
			c = &Cell{Split: r.Split, Variant: r.Variant}
			cells[k] = c
		}
		c.Runs++
		if r.Hit() {
			c.Hits++
		}
		durs[k] = append(durs[k], r.Duration)
	}
	var out []Cell
	for _, sp := range []Split{Tune, HeldOut} {
		for _, v := range append(AllVariants[:len(AllVariants):len(AllVariants)], Operator) {
			c := cells[key{sp, v}]
			if c == nil {
				continue
			}
			c.Percent = 100 * c.Hits / c.Runs
			d := durs[key{sp, v}]
			sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
			c.P50Ms = float64(d[(len(d)-1)/2].Microseconds()) / 1000
			out = append(out, *c)
		}
	}
	return out
}

// AccuracyTable renders Accuracy as Markdown.
func AccuracyTable(cells []Cell) string {
	var b strings.Builder
	b.WriteString("| Split | Variant | Hits | Runs | Accuracy | Session p50 |\n|---|---|---|---|---|---|\n")
	for _, c := range cells {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d %% | %.0f ms |\n", c.Split, c.Variant, c.Hits, c.Runs, c.Percent, c.P50Ms)
	}
	return b.String()
}

// Kinds of corpus misses, for MissKindTable.
const (
	MissNothingFound  = "nothing found"
	MissCulpritRanked = "culprit in a finding that lost"
	MissCulpritSeen   = "culprit read, no finding on it"
	MissCulpritAbsent = "culprit never read"
	MissTermsOnly     = "culprit named, terms missing"
	MissFailed        = "session failed"
)

// MissKind sorts a missed run into one of the kinds above ("" for a hit): the engine named the
// culprit without the terms that explain it, or, when it did not name it, whether a finding
// of the session named it (a ranking miss), the session read it without a finding (a
// detection miss) or never read it (a reach miss), or found nothing at all.
func (r Result) MissKind() string {
	rc := r.Conclusion.RootCause
	switch {
	case r.Hit():
		return ""
	case rc.Rule == "" && rc.Summary == "":
		return MissFailed
	case !strings.Contains(r.Miss, "not in affectedObjects"):
		return MissTermsOnly
	}
	wanted := func(o agent.ObjectRef) bool {
		return o.Name != "" && strings.Contains(" "+strings.ReplaceAll(r.Expected, "+", " ")+" ", " "+o.Kind+"/"+o.Name+" ")
	}
	seen := false
	for _, it := range r.Trace.Iterations {
		for _, tr := range it.Results {
			for _, f := range tr.Findings {
				for _, o := range append([]agent.ObjectRef{f.Culprit, f.Object}, f.Affected...) {
					if wanted(o) {
						return MissCulpritRanked
					}
				}
			}
			for _, o := range tr.Examined {
				seen = seen || wanted(o)
			}
		}
	}
	switch {
	case rc.Rule == "no-problem-found":
		return MissNothingFound
	case seen:
		return MissCulpritSeen
	}
	return MissCulpritAbsent
}

// MissKindTable counts misses per kind and variant; it names no scenario, so it may be printed
// for the held-out split.
func MissKindTable(results []Result) string {
	kinds := []string{MissNothingFound, MissCulpritRanked, MissCulpritSeen, MissCulpritAbsent, MissTermsOnly, MissFailed}
	n := map[string]map[Variant]int{}
	for _, r := range results {
		if k := r.MissKind(); k != "" {
			if n[k] == nil {
				n[k] = map[Variant]int{}
			}
			n[k][r.Variant]++
		}
	}
	var b strings.Builder
	b.WriteString("| Miss | targeted | target-less | no-logs |\n|---|---|---|---|\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "| %s |", k)
		for _, v := range AllVariants {
			fmt.Fprintf(&b, " %d |", n[k][v])
		}
		b.WriteString("\n")
	}
	// Which rules won the target-less misses, per kind: the rules whose summaries leave out
	// what explains the fault, or that win where another object is at fault.
	byRule := map[string]map[string]int{}
	for _, r := range results {
		if k := r.MissKind(); k != "" && r.Variant == TargetLess {
			if byRule[k] == nil {
				byRule[k] = map[string]int{}
			}
			byRule[k][orNone(r.Conclusion.RootCause.Rule)]++
		}
	}
	for _, k := range kinds {
		if len(byRule[k]) == 0 {
			continue
		}
		rules := make([]string, 0, len(byRule[k]))
		for r := range byRule[k] {
			rules = append(rules, r)
		}
		sort.Slice(rules, func(i, j int) bool {
			a, c := byRule[k][rules[i]], byRule[k][rules[j]]
			return a > c || a == c && rules[i] < rules[j]
		})
		var parts []string
		for _, r := range rules {
			parts = append(parts, fmt.Sprintf("%s %d", r, byRule[k][r]))
		}
		fmt.Fprintf(&b, "target-less, %s, by winning rule: %s\n", k, strings.Join(parts, ", "))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ClassTable counts hits per class × variant over results (held-out results shown this way
// reveal no scenario).
func ClassTable(results []Result) string {
	type key struct {
		c Class
		v Variant
	}
	hits, runs := map[key]int{}, map[key]int{}
	for _, r := range results {
		k := key{r.Class, r.Variant}
		runs[k]++
		if r.Hit() {
			hits[k]++
		}
	}
	var b strings.Builder
	b.WriteString("| Class | targeted | target-less | no-logs |\n|---|---|---|---|\n")
	for c := ClassSingle; c <= ClassOutside; c++ {
		fmt.Fprintf(&b, "| %d |", c)
		for _, v := range AllVariants {
			k := key{c, v}
			fmt.Fprintf(&b, " %d/%d |", hits[k], runs[k])
		}
		b.WriteString("\n")
	}
	return b.String()
}
