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

// Package llmbench measures the LLM brain against the scripted model of test/fakes/llmtest:
// prompt tokens and LLM calls per session (how economically evidence is packed) and the
// operator's own time per LLM call (everything but the model). It is what `make bench`
// reports for the LLM brain; the figures do not depend on a model being reachable.
package llmbench

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/test/fakes/llmtest"
	fx "github.com/kubage/kubage/test/fixtures"
)

// Session is one benchmarked session over a cluster.
type Session struct {
	Name    string
	Client  kubernetes.Interface
	Session agent.Session
	// Now pins the clock of the rule engine and tools (time.Now when nil).
	Now func() time.Time
}

// Result is the figures of one session.
type Result struct {
	Scenario         string `json:"scenario"`
	Category         string `json:"category"`
	Culprit          string `json:"culprit"`
	Degraded         bool   `json:"degraded"`
	Iterations       int    `json:"iterations"`
	LLMCalls         int64  `json:"llmCalls"`
	PromptTokens     int64  `json:"promptTokens"`
	CompletionTokens int64  `json:"completionTokens"`
	// PromptTokensPerCall is PromptTokens / LLMCalls.
	PromptTokensPerCall int64 `json:"promptTokensPerCall"`
	ToolCalls           int64 `json:"toolCalls"`
	// SessionMs is the wall time of the session; ModelMs the scripted server's share.
	SessionMs float64 `json:"sessionMs"`
	ModelMs   float64 `json:"modelMs"`
	// NonModelMsPerCall is (SessionMs - ModelMs) / LLMCalls: the operator's time per
	// model call, rule engine and tools on the cluster included.
	NonModelMsPerCall float64 `json:"nonModelMsPerCall"`
}

// Report is the benchmark.
type Report struct {
	Procedure string   `json:"procedure"`
	Sessions  []Result `json:"sessions"`
	// Means over the sessions.
	MeanPromptTokensPerSession float64 `json:"meanPromptTokensPerSession"`
	MeanLLMCallsPerSession     float64 `json:"meanLlmCallsPerSession"`
	// CallOverheadMicros is the median operator time of one Judge call (prompt
	// rendering, redaction, HTTP over loopback, validation) minus the server's time.
	CallOverheadMicros int64 `json:"callOverheadMicros"`
	CallOverheadRuns   int   `json:"callOverheadRuns"`
}

// Options tune Run.
type Options struct {
	// Sessions to run; FakeSessions() when empty.
	Sessions []Session
	// OverheadRuns is the number of measured Judge calls (200 when zero).
	OverheadRuns int
}

// Run benchmarks the sessions and the per-call overhead.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if len(opts.Sessions) == 0 {
		opts.Sessions = FakeSessions()
	}
	if opts.OverheadRuns <= 0 {
		opts.OverheadRuns = 200
	}
	rep := &Report{Procedure: "each session runs the operator's session engine (session.Local: fake clientset, in-process runner) with the LLM brain (rule engine as fallback, built-in tools) against the scripted OpenAI-compatible server answering with llmtest.DemoResponder (one planned investigation per session); tokens are the server's estimate (bytes/4); the call overhead is the median of repeated Judge calls minus the server's own time"}
	for _, s := range opts.Sessions {
		r, err := Measure(ctx, s)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", s.Name, err)
		}
		rep.Sessions = append(rep.Sessions, r)
		rep.MeanPromptTokensPerSession += float64(r.PromptTokens)
		rep.MeanLLMCallsPerSession += float64(r.LLMCalls)
	}
	if n := float64(len(rep.Sessions)); n > 0 {
		rep.MeanPromptTokensPerSession /= n
		rep.MeanLLMCallsPerSession /= n
	}
	d, err := CallOverhead(ctx, opts.Sessions[0], opts.OverheadRuns)
	if err != nil {
		return rep, err
	}
	rep.CallOverheadMicros, rep.CallOverheadRuns = d.Microseconds(), opts.OverheadRuns
	return rep, nil
}

// newBrain builds an LLM brain for s against srv.
func newBrain(srv *llmtest.Server, s Session) (*llm.LLMBrain, error) {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	re := agent.NewRuleEngine(s.Client)
	re.Now = now
	c := tools.NewClient(s.Client, tools.Scope{Namespace: s.Session.Namespace})
	c.SetClock(now)
	return llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "demo", APIKey: "sk-bench-0000000000000000"},
		llm.Options{Fallback: re, Tools: llm.BuiltinTools(tools.BuiltinFor(c)), Pool: &llm.Pool{}, Redactor: redact.New([]byte("bench"))})
}

// Measure runs one session and measures it.
func Measure(ctx context.Context, s Session) (Result, error) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{PlanInvestigation: true}))
	b, err := newBrain(srv, s)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	// The operator's session engine, on the scenario's cluster.
	l := &session.Local{Client: s.Client, Brain: b}
	out, err := l.Run(ctx, s.Session, agent.Budget{Parallelism: 2})
	wall := time.Since(start)
	if err != nil {
		return Result{}, err
	}
	c, tr := out.Conclusion, out.Trace
	u := b.Usage()
	var model time.Duration
	for _, r := range srv.Requests() {
		model += r.Duration
	}
	res := Result{
		Scenario: s.Name, Category: c.RootCause.Category, Degraded: len(b.Degradations()) > 0, Iterations: len(tr.Iterations),
		LLMCalls: u.LLMCalls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, ToolCalls: int64(tr.ToolCalls),
		SessionMs: ms(wall), ModelMs: ms(model),
	}
	if !c.RootCause.Culprit.IsZero() {
		res.Culprit = c.RootCause.Culprit.Kind + "/" + c.RootCause.Culprit.Name
	}
	if u.LLMCalls > 0 {
		res.PromptTokensPerCall = u.PromptTokens / u.LLMCalls
		res.NonModelMsPerCall = (res.SessionMs - res.ModelMs) / float64(u.LLMCalls)
	}
	return res, nil
}

// CallOverhead is the median operator time of one Judge call on s after one rule-engine
// round, excluding the server's time.
func CallOverhead(ctx context.Context, s Session, runs int) (time.Duration, error) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
	b, err := newBrain(srv, s)
	if err != nil {
		return 0, err
	}
	tasks, err := b.Plan(ctx, s.Session, agent.Progress{Iteration: 1})
	if err != nil {
		return 0, err
	}
	results := make([]agent.TaskResult, 0, len(tasks))
	for _, t := range tasks {
		results = append(results, agent.RunTask(ctx, b, s.Session, t))
	}
	p := agent.Progress{Iteration: 1, Results: results}
	base := len(srv.Requests())
	samples := make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := b.Judge(ctx, s.Session, p); err != nil {
			return 0, err
		}
		samples = append(samples, time.Since(start))
	}
	reqs := srv.Requests()[base:]
	if len(reqs) != runs {
		return 0, fmt.Errorf("%d Judge calls made %d requests", runs, len(reqs))
	}
	for i := range samples {
		samples[i] -= reqs[i].Duration
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	return samples[len(samples)/2], nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// FakeSessions are sessions over fake clusters built from the shared fixtures: a crash
// loop, an image that does not exist, a claim whose StorageClass is missing, and a
// namespace-wide session over 200 pods.
func FakeSessions() []Session {
	const ns = "bench"
	d := fx.Deployment(ns, "web", 2, "registry.example/web:1.1")
	rs := fx.ReplicaSet(d, 2, 2, "registry.example/web:1.1")
	crash := []runtime.Object{d, fx.ReplicaSet(d, 1, 0, "registry.example/web:1.0"), rs, fx.Node("node-1")}
	for i := 0; i < 2; i++ {
		p := fx.PodFor(rs, fmt.Sprintf("c%03d", i))
		fx.CrashLoop(p, 1, "Error", 9)
		crash = append(crash, p, fx.Event(ns, "Pod", p.Name, "Warning", "BackOff", "Back-off restarting failed container app in pod "+p.Name, 20, time.Minute))
	}

	di := fx.Deployment(ns, "api", 1, "registry.example/api:2.0x")
	rsi := fx.ReplicaSet(di, 1, 1, "registry.example/api:2.0x")
	pi := fx.PodFor(rsi, "i000")
	fx.Waiting(pi, "ErrImagePull", `rpc error: code = NotFound desc = failed to pull and unpack image "registry.example/api:2.0x": not found`)
	image := []runtime.Object{di, rsi, pi, fx.Node("node-1")}

	class := "fast-ssd"
	pvc := fx.PVC(ns, "data", &class, corev1.ClaimPending, corev1.ReadWriteOnce)
	storage := []runtime.Object{pvc, fx.StorageClass("standard", "example.com/csi", true, "Immediate"), fx.Node("node-1"),
		fx.Event(ns, "PersistentVolumeClaim", "data", "Warning", "ProvisioningFailed", `storageclass.storage.k8s.io "fast-ssd" not found`, 12, time.Minute)}

	df := fx.Deployment(ns, "fleet", 200, "registry.example/fleet:1")
	rsf := fx.ReplicaSet(df, 1, 200, "registry.example/fleet:1")
	fleet := append([]runtime.Object{df, rsf}, crash...)
	for i := 0; i < 200; i++ {
		fleet = append(fleet, fx.PodFor(rsf, fmt.Sprintf("f%04d", i)))
	}

	now := func() time.Time { return fx.Now }
	return []Session{
		{Name: "crash-loop", Client: fake.NewClientset(crash...), Now: now,
			Session: agent.Session{Problem: "web keeps restarting", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "web"}}},
		{Name: "image-not-found", Client: fake.NewClientset(image...), Now: now,
			Session: agent.Session{Problem: "api never becomes ready", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "api"}}},
		{Name: "storageclass-missing", Client: fake.NewClientset(storage...), Now: now,
			Session: agent.Session{Problem: "the data claim stays Pending", Namespace: ns, Target: &agent.Target{Kind: "PersistentVolumeClaim", Name: "data"}}},
		{Name: "namespace-200-pods", Client: fake.NewClientset(fleet...), Now: now,
			Session: agent.Session{Problem: "something in bench is broken", Namespace: ns}},
	}
}
