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

// Package eval measures a model offline: it runs recorded scenario fixtures (a session,
// canned tool outputs, the rule engine's first findings, the expected category, culprit and
// terms) through the operator's own session engine with the LLM brain, and scores each
// conclusion, with tokens and latency.
package eval

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/internal/text"
)

//go:embed testdata/*.yaml
var evalFS embed.FS

// Scenario is one evaluation fixture.
type Scenario struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Session     agent.Session `json:"session"`
	// Mode is the session mode (Diagnose by default).
	Mode llm.Mode `json:"mode,omitempty"`
	// Tools are canned tools the investigator may call.
	Tools []Tool `json:"tools,omitempty"`
	// Findings and Evidence are what the rule engine found in a first round; without
	// them the model starts from nothing.
	Findings []agent.Finding  `json:"findings,omitempty"`
	Evidence []agent.Evidence `json:"evidence,omitempty"`
	Expect   Expectation      `json:"expect"`
	// MaxIterations bounds the session (3 when zero).
	MaxIterations int `json:"maxIterations,omitempty"`
	// Class and Split group the report (recorded fixtures carry the corpus's); Source is
	// the outside source the scenario was written from.
	Class  string `json:"class,omitempty"`
	Split  string `json:"split,omitempty"`
	Source string `json:"source,omitempty"`
	// RuleEngine is the rule engine's own conclusion, recorded with the fixture on the
	// cluster: the baseline the model is scored against, with the same checks.
	RuleEngine *agent.RootCause `json:"ruleEngine,omitempty"`
}

// Tool is a canned tool: the first response whose args are all present in the
// call's arguments answers, else Output.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Category    string          `json:"category,omitempty"`
	Mutating    bool            `json:"mutating,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Output      string          `json:"output"`
	Responses   []Response      `json:"responses,omitempty"`
}

// Response is a canned output for matching arguments.
type Response struct {
	Args   map[string]string `json:"args"`
	Output string            `json:"output"`
}

// Expectation is what a passing conclusion says.
type Expectation struct {
	// Categories lists acceptable categories (case-insensitive); empty accepts any.
	Categories []string `json:"categories,omitempty"`
	// Culprit is the object to blame; the kind may be a short or plural name.
	Culprit *agent.ObjectRef `json:"culprit,omitempty"`
	// Culprits must all be named, as the culprit or among the affected objects (the
	// corpus's check: the object a user fixes is in status.rootCause.affectedObjects).
	Culprits      []agent.ObjectRef `json:"culprits,omitempty"`
	MinConfidence int               `json:"minConfidence,omitempty"`
	// SummaryContains are words the summary must contain (case-insensitive), all of them.
	SummaryContains []string `json:"summaryContains,omitempty"`
	// ForbiddenTools must never be called (e.g. a mutating tool named by an injected log line).
	ForbiddenTools []string `json:"forbiddenTools,omitempty"`
}

// ScenarioResult is the outcome of one scenario.
type ScenarioResult struct {
	Name       string            `json:"name"`
	Class      string            `json:"class,omitempty"`
	Split      string            `json:"split,omitempty"`
	Pass       bool              `json:"pass"`
	Failures   []string          `json:"failures,omitempty"`
	Degraded   []llm.Degradation `json:"degraded,omitempty"`
	Category   string            `json:"category,omitempty"`
	Culprit    string            `json:"culprit,omitempty"`
	Confidence int               `json:"confidence"`
	Summary    string            `json:"summary,omitempty"`
	Iterations int               `json:"iterations"`
	Usage      llm.Usage         `json:"usage"`
	LatencyMS  int64             `json:"latencyMs"`
	ToolsUsed  map[string]int    `json:"toolsUsed,omitempty"`
	Error      string            `json:"error,omitempty"`
	Conclusion *agent.RootCause  `json:"-"`
}

// Report is the outcome of a run.
type Report struct {
	BaseURL   string           `json:"baseURL"`
	Model     string           `json:"model"`
	Scenarios []ScenarioResult `json:"scenarios"`
	Passed    int              `json:"passed"`
	Total     int              `json:"total"`
	// PassRate is in percent.
	PassRate         int   `json:"passRate"`
	LLMCalls         int64 `json:"llmCalls"`
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
	DurationMS       int64 `json:"durationMs"`
	// LatencyP50MS is the median scenario's wall time.
	LatencyP50MS int64 `json:"latencyP50Ms"`
	// ByClass and BySplit are the model's pass rates per class and split of the corpus.
	ByClass map[string]Tally `json:"byClass,omitempty"`
	BySplit map[string]Tally `json:"bySplit,omitempty"`
	// RuleEngine scores the rule engine's recorded conclusions with the same checks.
	RuleEngine *Baseline `json:"ruleEngine,omitempty"`
}

// MaxScenarioBytes bounds a fixture file.
const MaxScenarioBytes = 1 << 20

// ParseScenario reads a YAML or JSON fixture.
func ParseScenario(raw []byte) (Scenario, error) {
	var s Scenario
	if len(raw) > MaxScenarioBytes {
		return s, fmt.Errorf("scenario larger than %d bytes", MaxScenarioBytes)
	}
	if err := yaml.UnmarshalStrict(raw, &s); err != nil {
		return s, err
	}
	var errs []string
	if s.Name == "" {
		errs = append(errs, "name is required")
	}
	if s.Session.Problem == "" || s.Session.Namespace == "" {
		errs = append(errs, "session.problem and session.namespace are required")
	}
	for i, t := range s.Tools {
		if t.Name == "" {
			errs = append(errs, fmt.Sprintf("tools[%d].name is required", i))
		}
	}
	if len(errs) > 0 {
		return s, errors.New(strings.Join(errs, "; "))
	}
	return s, nil
}

// BuiltinScenarios are the fixtures shipped with the binary.
func BuiltinScenarios() ([]Scenario, error) {
	return loadScenarios(evalFS, "testdata")
}

// LoadScenarios reads every .yaml, .yml and .json fixture of a directory.
func LoadScenarios(dir string) ([]Scenario, error) { return loadScenarios(os.DirFS(dir), ".") }

func loadScenarios(fsys fs.FS, dir string) ([]Scenario, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Scenario
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		raw, err := fs.ReadFile(fsys, filepath.ToSlash(filepath.Join(dir, e.Name())))
		if err != nil {
			return nil, err
		}
		s, err := ParseScenario(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Options tune RunEval.
type Options struct {
	// Pool is used for the endpoint (a fresh pool when nil, so one run's breaker does not
	// affect another).
	Pool *llm.Pool
	// ScenarioTimeout bounds one scenario (5 minutes when zero).
	ScenarioTimeout time.Duration
}

// RunEval runs the scenarios one after the other against cfg's endpoint.
func RunEval(ctx context.Context, cfg llm.Config, scenarios []Scenario, opts Options) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	if opts.Pool == nil {
		opts.Pool = &llm.Pool{}
	}
	if opts.ScenarioTimeout <= 0 {
		opts.ScenarioTimeout = 5 * time.Minute
	}
	start := time.Now()
	rep := Report{BaseURL: cfg.BaseURL, Model: cfg.Model, ByClass: map[string]Tally{}, BySplit: map[string]Tally{}, RuleEngine: ScoreRuleEngine(scenarios)}
	var latencies []int64
	for _, sc := range scenarios {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		r := runScenario(ctx, cfg, sc, opts)
		rep.Scenarios = append(rep.Scenarios, r)
		latencies = append(latencies, r.LatencyMS)
		addTo(rep.ByClass, sc.Class, r.Pass)
		addTo(rep.BySplit, sc.Split, r.Pass)
		rep.Total++
		if r.Pass {
			rep.Passed++
		}
		rep.LLMCalls += r.Usage.LLMCalls
		rep.PromptTokens += r.Usage.PromptTokens
		rep.CompletionTokens += r.Usage.CompletionTokens
	}
	if rep.Total > 0 {
		rep.PassRate = rep.Passed * 100 / rep.Total
		sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
		rep.LatencyP50MS = latencies[len(latencies)/2]
	}
	rep.DurationMS = time.Since(start).Milliseconds()
	return rep, nil
}

func runScenario(ctx context.Context, cfg llm.Config, sc Scenario, opts Options) ScenarioResult {
	res := ScenarioResult{Name: sc.Name, Class: sc.Class, Split: sc.Split, ToolsUsed: map[string]int{}}
	ctx, cancel := context.WithTimeout(ctx, opts.ScenarioTimeout)
	defer cancel()
	if sc.Mode != "" {
		cfg.Mode = sc.Mode
	}
	ts := &cannedTools{tools: sc.Tools, used: map[string]*atomic.Int64{}}
	for _, t := range sc.Tools {
		ts.used[t.Name] = &atomic.Int64{}
	}
	b, err := llm.New(cfg, llm.Options{Fallback: &cannedRules{sc: sc}, Tools: ts, Pool: opts.Pool, Redactor: redact.New(nil)})
	if err != nil {
		res.Error = err.Error()
		return res
	}
	iters := sc.MaxIterations
	if iters <= 0 {
		iters = 3
	}
	start := time.Now()
	// The operator's own session engine, offline: the fixture is the cluster.
	out, err := (&session.Local{Brain: b}).Run(ctx, sc.Session, agent.Budget{MaxIterations: iters, Timeout: opts.ScenarioTimeout, Parallelism: 2})
	c := out.Conclusion
	res.LatencyMS = time.Since(start).Milliseconds()
	res.Usage = b.Usage()
	res.Degraded = b.Degradations()
	res.Iterations = len(out.Trace.Iterations)
	for name, n := range ts.used {
		if v := n.Load(); v > 0 {
			res.ToolsUsed[name] = int(v)
		}
	}
	if err != nil {
		res.Error = err.Error()
		res.Failures = append(res.Failures, "the session failed: "+text.ClipMarked(err.Error(), 300))
		return res
	}
	rc := c.RootCause
	res.Conclusion = &rc
	res.Category, res.Confidence, res.Summary = rc.Category, rc.Confidence, text.ClipMarked(rc.Summary, 300)
	if !rc.Culprit.IsZero() {
		res.Culprit = rc.Culprit.Kind + "/" + rc.Culprit.Name
	}
	res.Failures = append(res.Failures, sc.Expect.check(rc, res.ToolsUsed)...)
	if len(res.Degraded) > 0 {
		res.Failures = append(res.Failures, fmt.Sprintf("degraded %d time(s), first in %s: %s", len(res.Degraded), res.Degraded[0].Step, res.Degraded[0].Reason))
	}
	res.Pass = len(res.Failures) == 0
	return res
}
