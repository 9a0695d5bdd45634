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

	"github.com/kubage/kubage/internal/agent"
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
}

// Want is the expected rule and culprit.
type Want struct {
	Rule    string
	Culprit Ref
}

// Ref names an object relative to a scenario: namespaced objects live in the scenario's
// namespace; Cluster names are prefixed with the namespace to stay unique (see Env.ClusterName).
type Ref struct {
	Kind    string
	Name    string
	Cluster bool
}

// Category is the category of the expected rule.
func (w Want) Category() string { return agent.Catalogue[w.Rule].Category }

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
	return agent.Session{ID: e.Namespace + "/" + s.Name, Problem: s.Problem, Namespace: e.Namespace, Target: s.Target}
}

// Result is one engine run on a deployed scenario.
type Result struct {
	Scenario string `json:"scenario"`
	// Expected is "Category rule Kind/Name".
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
	// Mismatch says how the conclusion differs from the expectation; empty when it matches.
	Mismatch string `json:"mismatch,omitempty"`

	Conclusion agent.Conclusion `json:"-"`
	Trace      agent.Trace      `json:"-"`
}

// OK reports a conclusion that matches the expectation.
func (r Result) OK() bool { return r.Mismatch == "" }

// Run runs one rule-engine session on a deployed scenario and compares it with Want.
func Run(ctx context.Context, s *Scenario, e *Env) (Result, error) {
	return RunWith(ctx, s, e, e.Client)
}

// RunWith is Run with the engine on its own client, so its requests are not throttled by the
// scenarios' own polling (client-go rate limits per client).
func RunWith(ctx context.Context, s *Scenario, e *Env, engineClient kubernetes.Interface) (Result, error) {
	if s.Trigger != nil && e.State["triggered"] == "" {
		if err := s.Trigger(ctx, e); err != nil {
			return Result{Scenario: s.Name, Mismatch: "trigger failed: " + err.Error()}, fmt.Errorf("scenario %s: trigger: %w", s.Name, err)
		}
		e.State["triggered"] = "yes"
	}
	eng := agent.NewRuleEngine(engineClient)
	start := time.Now()
	c, tr, err := agent.RunSession(ctx, eng, s.Session(e), nil, agent.Budget{})
	d := time.Since(start)
	want := e.Resolve(s.Want.Culprit)
	res := Result{
		Scenario:    s.Name,
		Expected:    fmt.Sprintf("%s %s %s", s.Want.Category(), s.Want.Rule, refString(want)),
		Category:    c.RootCause.Category,
		Rule:        c.RootCause.Rule,
		Culprit:     c.RootCause.Culprit,
		Confidence:  c.RootCause.Confidence,
		Hops:        Hops(s.Session(e).TargetRef(), c.RootCause),
		Iterations:  len(tr.Iterations),
		APIRequests: tr.APIRequests,
		Duration:    d,
		Summary:     c.RootCause.Summary,
		Conclusion:  c,
		Trace:       tr,
	}
	if err != nil {
		res.Mismatch = "session failed: " + err.Error()
		return res, err
	}
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

// Table renders results as a Markdown table (scenario, expected, what the engine concluded).
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| Scenario | Expected | Got category | Got rule | Got culprit | Conf. | Hops | API req. | Duration | OK |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		ok := "yes"
		if !r.OK() {
			ok = "NO: " + strings.ReplaceAll(r.Mismatch, "|", "\\|")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d%% | %d | %d | %s | %s |\n", r.Scenario, r.Expected, r.Category, r.Rule,
			refString(r.Culprit), r.Confidence, r.Hops, r.APIRequests, r.Duration.Round(time.Millisecond), ok)
	}
	return b.String()
}

// poll calls f until it returns nil or timeout passes, returning f's last error.
func poll(ctx context.Context, timeout time.Duration, f func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(200 * time.Millisecond)
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

// Ready polls the scenario's Wait until the failure is visible or timeout passes.
func (s *Scenario) Ready(ctx context.Context, e *Env, timeout time.Duration) error {
	if s.Wait == nil {
		return nil
	}
	return poll(ctx, timeout, func() error { return s.Wait(ctx, e) })
}
