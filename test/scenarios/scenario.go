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

// Package scenarios holds real failure scenarios for the rule engine: each one deploys a broken
// application on a live cluster (the local kwok cluster of hack/cluster.sh) through the real
// controllers and scheduler, waits until the failure is visible, runs a rule-engine session
// and checks that it names the expected rule and culprit. The e2e suite and hack/bench share
// these definitions.
package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/session"
)

// LabelScenario marks the namespaces and cluster-scoped objects a scenario created.
const LabelScenario = "scenarios.kubage.io/name"

// Scenario is one failure deployed for real.
type Scenario struct {
	// Name is a short kebab-case id; the namespace is generated from it.
	Name string
	// Covers says which failure mode of the catalogue it exercises, in plain words.
	Covers string
	// Problem is what the user would type.
	Problem string
	// Target is what the user would point at; nil scans the namespace.
	Target *agent.Target
	// Want is the expected conclusion.
	Want Want
	// MinHops is how many follow steps the engine must take from the symptom to the cause
	// (len(RootCause.Chain)-1); 0 when the cause is on the target itself.
	MinHops int
	// Bench marks the scenarios of the benchmark's representative subset.
	Bench bool
	// Slow marks scenarios whose failure takes tens of seconds to show (CronJob schedules).
	Slow bool
	// Setup creates the scenario's objects in e.Namespace (and cluster-scoped ones through Env).
	Setup func(ctx context.Context, e *Env) error
	// Wait returns nil once the failure is visible. It is polled, and may take the scenario's
	// later steps once earlier ones are visible (a rollout after v1 is up, a node that fails
	// after its pods run).
	Wait func(ctx context.Context, e *Env) error
	// Trigger is the user's last action before asking, run once just before the first session
	// (so the session sees its effect fresh, e.g. a deletion that has just started).
	Trigger func(ctx context.Context, e *Env) error
	// Check adds assertions on the conclusion beyond rule and culprit (bad-input scenarios).
	Check func(c agent.Conclusion, tr agent.Trace, e *Env) error

	// Source is the outside text the scenario was written from: a path under the shared corpus
	// (k8s-docs/..., runbooks/...) or the title of a public incident write-up.
	Source string
	// Class is the kind of reasoning the scenario needs (see the Class* constants).
	Class Class
	// Hops is how many objects lie between the symptom a user sees and the cause (0 when the
	// cause is the object showing the symptom). Unlike MinHops it is not asserted.
	Hops int
	// BadInput marks scenarios about hostile or wrong input rather than a diagnosis: they run
	// targeted only and stay out of the corpus accuracy.
	BadInput bool
	// KnownMiss says, in a line, why the engine misses this tune-split scenario today; the e2e
	// spec reports such a scenario instead of failing on it until the rules catch up.
	KnownMiss string
}

// Want is the expected conclusion. The corpus check needs Culprit and every Also object in
// rootCause.affectedObjects and every Term in the summary; scenarios with a Rule also assert the
// rule and the exact culprit (the project's original catalogue).
type Want struct {
	Rule    string
	Culprit Ref
	// Also are further objects the conclusion must name (the object a user edits to fix a
	// reference, next to the missing one).
	Also []Ref
	// Terms must appear in the summary, case-insensitively: words a competent SRE would use.
	// "{ns}" is replaced with the scenario's namespace.
	Terms []string
}

// Ref names an object relative to a scenario: namespaced objects live in the scenario's
// namespace; Cluster names are prefixed with the namespace to stay unique (see Env.ClusterName).
type Ref struct {
	Kind    string
	Name    string
	Cluster bool
}

// Category is the category of the expected rule ("" for corpus scenarios without a rule).
func (w Want) Category() string { return agent.Catalogue[w.Rule].Category }

// Culprits are the objects the conclusion must name in its affectedObjects.
func (w Want) Culprits() []Ref { return append([]Ref{w.Culprit}, w.Also...) }

// Env is a deployed scenario: its namespace, client, and what to clean up.
type Env struct {
	Client    kubernetes.Interface
	Namespace string
	// State carries values between Setup and Wait steps (names of generated objects).
	State map[string]string

	mu       sync.Mutex
	cleanups []func(context.Context) error
	sims     map[string]*SimNode
	bg       context.Context
	stopBg   context.CancelFunc
}

// ClusterName is a cluster-scoped object name unique to this scenario.
func (e *Env) ClusterName(name string) string { return e.Namespace + "-" + name }

// Resolve turns a scenario-relative reference into an object reference.
func (e *Env) Resolve(r Ref) agent.ObjectRef {
	if r.Cluster {
		return agent.ObjectRef{Kind: r.Kind, Name: e.ClusterName(r.Name)}
	}
	return agent.ObjectRef{Kind: r.Kind, Namespace: e.Namespace, Name: r.Name}
}

// onCleanup registers a cleanup step, run in reverse order by Cleanup.
func (e *Env) onCleanup(f func(context.Context) error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanups = append(e.cleanups, f)
}

// Deploy creates the scenario's namespace and runs its Setup.
func Deploy(ctx context.Context, cs kubernetes.Interface, s *Scenario) (*Env, error) {
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "scn-" + s.Name + "-",
		Labels:       map[string]string{LabelScenario: s.Name},
	}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: create namespace: %w", s.Name, err)
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	e := &Env{Client: cs, Namespace: ns.Name, State: map[string]string{}, sims: map[string]*SimNode{}, bg: bg, stopBg: stop}
	e.onCleanup(func(ctx context.Context) error {
		err := cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	// Pods are only admitted once the namespace's default ServiceAccount exists.
	if err := poll(ctx, 30*time.Second, func() error {
		_, err := cs.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}); err != nil {
		return e, fmt.Errorf("scenario %s: default ServiceAccount: %w", s.Name, err)
	}
	if s.Setup != nil {
		if err := s.Setup(ctx, e); err != nil {
			return e, fmt.Errorf("scenario %s: setup: %w", s.Name, err)
		}
	}
	return e, nil
}

// Cleanup stops the scenario's simulated nodes and deletes what it created (the namespace
// last, so finalizers held by the scenario are released first).
func (e *Env) Cleanup(ctx context.Context) error {
	if e == nil {
		return nil
	}
	e.stopBg()
	e.mu.Lock()
	steps := append([]func(context.Context) error(nil), e.cleanups...)
	e.mu.Unlock()
	var errs []error
	for i := len(steps) - 1; i >= 0; i-- {
		if err := steps[i](ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Session is the session a user would start for the scenario.
func (s *Scenario) Session(e *Env) agent.Session {
	return s.SessionFor(e, Targeted)
}

// SessionFor is the session of one variant: target-less variants drop the Target, as an alert
// without labels or a user who only describes the symptom would.
func (s *Scenario) SessionFor(e *Env, v Variant) agent.Session {
	t := s.Target
	if v != Targeted {
		t = nil
	}
	return agent.Session{ID: e.Namespace + "/" + s.Name + "/" + string(v), Problem: s.Problem, Namespace: e.Namespace, Target: t}
}

// Result is one engine run on a deployed scenario.
type Result struct {
	Scenario string  `json:"scenario"`
	Variant  Variant `json:"variant"`
	Split    Split   `json:"split"`
	Class    Class   `json:"class"`
	// Expected is "Category rule Kind/Name" (or the culprits and terms of a corpus scenario).
	Expected    string          `json:"expected"`
	Category    string          `json:"category"`
	Rule        string          `json:"rule"`
	Culprit     agent.ObjectRef `json:"culprit"`
	Confidence  int             `json:"confidence"`
	Hops        int             `json:"hops"`
	Iterations  int             `json:"iterations"`
	APIRequests int64           `json:"apiRequests"`
	Duration    time.Duration   `json:"duration"`
	Summary     string          `json:"summary,omitempty"`
	// Mismatch says how the conclusion differs from the expected rule and culprit (scenarios
	// with a Want.Rule, targeted variant); empty when it matches.
	Mismatch string `json:"mismatch,omitempty"`
	// Miss says why the corpus check failed (a culprit missing from affectedObjects, a term
	// missing from the summary); empty on a hit.
	Miss string `json:"miss,omitempty"`

	Conclusion agent.Conclusion `json:"-"`
	Trace      agent.Trace      `json:"-"`
}

// OK reports a conclusion that matches the expected rule and culprit.
func (r Result) OK() bool { return r.Mismatch == "" }

// Hit reports a conclusion that passes the corpus check.
func (r Result) Hit() bool { return r.Miss == "" }

// Run runs one targeted rule-engine session on a deployed scenario and compares it with Want.
func Run(ctx context.Context, s *Scenario, e *Env) (Result, error) {
	return RunWith(ctx, s, e, e.Client)
}

// RunWith is Run with the engine on its own client, so its requests are not throttled by the
// scenarios' own polling (client-go rate limits per client).
func RunWith(ctx context.Context, s *Scenario, e *Env, engineClient kubernetes.Interface) (Result, error) {
	return RunVariant(ctx, s, e, engineClient, Targeted)
}

// RunVariant runs one rule-engine session of variant v on engineClient (for NoLogs, a client
// whose log requests fail: see NoLogsConfig) and judges it.
func RunVariant(ctx context.Context, s *Scenario, e *Env, engineClient kubernetes.Interface, v Variant) (Result, error) {
	if s.Trigger != nil && e.State["triggered"] == "" {
		if err := s.Trigger(ctx, e); err != nil {
			return Result{Scenario: s.Name, Variant: v, Mismatch: "trigger failed: " + err.Error(), Miss: "trigger failed"}, fmt.Errorf("scenario %s: trigger: %w", s.Name, err)
		}
		e.State["triggered"] = "yes"
	}
	sess := s.SessionFor(e, v)
	eng := agent.NewRuleEngine(engineClient)
	start := time.Now()
	// The operator's session engine, in this process: the cluster is real, the session's
	// state (checkpoint, results) stays in memory.
	out, err := (&session.Local{Client: engineClient, Brain: eng}).Run(ctx, sess, agent.Budget{})
	if err != nil && out.StopReason == kubagev1alpha1.TargetNotFoundReason {
		// The operator fails a session whose target does not exist before any rule runs,
		// with a TargetNotFound condition: that failure is its answer to a bad target.
		out.Conclusion = agent.Conclusion{RootCause: agent.RootCause{Rule: "target-not-found", Category: "TargetNotFound",
			Confidence: 100, Culprit: sess.TargetRef(), Summary: err.Error()}}
		err = nil
	}
	c, tr := out.Conclusion, out.Trace
	d := time.Since(start)
	res := Result{
		Scenario:    s.Name,
		Variant:     v,
		Split:       s.Split(),
		Class:       s.Class,
		Expected:    s.expected(e),
		Category:    c.RootCause.Category,
		Rule:        c.RootCause.Rule,
		Culprit:     c.RootCause.Culprit,
		Confidence:  c.RootCause.Confidence,
		Hops:        Hops(sess.TargetRef(), c.RootCause),
		Iterations:  len(tr.Iterations),
		APIRequests: tr.APIRequests,
		Duration:    d,
		Summary:     c.RootCause.Summary,
		Conclusion:  c,
		Trace:       tr,
	}
	if err != nil {
		res.Mismatch = "session failed: " + err.Error()
		res.Miss = res.Mismatch
		return res, err
	}
	res.Miss = s.judge(c, e)
	if s.Want.Rule == "" || v != Targeted {
		return res, nil
	}
	want := e.Resolve(s.Want.Culprit)
	var bad []string
	if c.RootCause.Rule != s.Want.Rule {
		bad = append(bad, fmt.Sprintf("rule %q, want %q", c.RootCause.Rule, s.Want.Rule))
	}
	if c.RootCause.Category != s.Want.Category() {
		bad = append(bad, fmt.Sprintf("category %q, want %q", c.RootCause.Category, s.Want.Category()))
	}
	if got := c.RootCause.Culprit; got.Kind != want.Kind || got.Name != want.Name || (want.Namespace != "" && got.Namespace != want.Namespace) {
		bad = append(bad, fmt.Sprintf("culprit %s, want %s", refString(got), refString(want)))
	}
	if res.Hops < s.MinHops {
		bad = append(bad, fmt.Sprintf("%d hop(s) %v, want at least %d", res.Hops, c.RootCause.Chain, s.MinHops))
	}
	if s.Check != nil {
		if err := s.Check(c, tr, e); err != nil {
			bad = append(bad, err.Error())
		}
	}
	res.Mismatch = strings.Join(bad, "; ")
	return res, nil
}

func refString(r agent.ObjectRef) string { return r.Kind + "/" + r.Name }

// Hops counts the objects the engine went through from the target (when there is one) along
// the root cause's chain to the culprit, minus one: Ingress → Service → Pod → Deployment is 3.
func Hops(target agent.ObjectRef, rc agent.RootCause) int {
	seen := map[string]bool{}
	add := func(kindName string) {
		if kindName != "/" && kindName != "" {
			seen[kindName] = true
		}
	}
	if !target.IsZero() {
		add(refString(target))
	}
	for _, step := range rc.Chain {
		// Steps read "Kind/Name: what is wrong".
		obj, _, _ := strings.Cut(step, ": ")
		add(obj)
	}
	add(refString(rc.Culprit))
	return max(len(seen)-1, 0)
}

// Table renders results as a Markdown table: the scenario and variant, what was expected, what
// the engine concluded, and both checks (the rule check of the original catalogue, the corpus check).
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| Scenario | Variant | Split | Class | Expected | Got rule | Got culprit | Conf. | Hops | API req. | Duration | Rule check | Corpus |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, r := range results {
		ok := "yes"
		if !r.OK() {
			ok = "NO: " + esc(r.Mismatch)
		}
		hit := "hit"
		if !r.Hit() {
			hit = "MISS: " + esc(r.Miss)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | %d%% | %d | %d | %s | %s | %s |\n", r.Scenario, r.Variant, r.Split, r.Class, esc(r.Expected), r.Rule,
			refString(r.Culprit), r.Confidence, r.Hops, r.APIRequests, r.Duration.Round(time.Millisecond), ok, hit)
	}
	return b.String()
}

// poll calls f until it returns nil or timeout passes, returning f's last error.
// setupWait bounds a setup step that waits for one of its own objects (a Deployment Ready
// before its webhook goes in): the suites deploy the whole corpus at once, and a minute was
// not always enough for a pod to be scheduled and started then.
const setupWait = 3 * time.Minute

func poll(ctx context.Context, timeout time.Duration, f func() error) error {
	return pollEvery(ctx, timeout, 200*time.Millisecond, f)
}

// pollEvery is poll with its own interval.
func pollEvery(ctx context.Context, timeout, interval time.Duration, f func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (after %s)", err, timeout)
		case <-t.C:
		}
	}
}

// readyInterval is how often Ready looks: a whole corpus waits at once (two hundred
// scenarios and more), and every look is a few API requests on a shared, rate-limited client.
const readyInterval = time.Second

// Ready polls the scenario's Wait until the failure is visible or timeout passes.
func (s *Scenario) Ready(ctx context.Context, e *Env, timeout time.Duration) error {
	if s.Wait == nil {
		return nil
	}
	return pollEvery(ctx, timeout, readyInterval, func() error { return s.Wait(ctx, e) })
}
