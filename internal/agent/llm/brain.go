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

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/internal/tools/redact"
)

// Snippet is one knowledge passage with its citation.
type Snippet struct {
	// Citation identifies the passage, e.g. "runbooks:crashloop.md#oom"; the model cites it.
	Citation string `json:"citation"`
	Title    string `json:"title,omitempty"`
	Text     string `json:"text"`
}

// Knowledge searches the session's knowledge sources.
type Knowledge interface {
	Search(ctx context.Context, query string) ([]Snippet, error)
}

// KnowledgeFunc adapts a function to Knowledge.
type KnowledgeFunc func(ctx context.Context, query string) ([]Snippet, error)

// Search implements Knowledge.
func (f KnowledgeFunc) Search(ctx context.Context, query string) ([]Snippet, error) {
	return f(ctx, query)
}

// Bounds of knowledge in prompts.
const (
	maxSnippets     = 3
	maxSnippetBytes = 800
)

// Options are the collaborators of a brain.
type Options struct {
	// Fallback answers when the model cannot (normally the rule engine); it also runs
	// the Analyze tasks and contributes its findings, leads and candidate conclusion.
	Fallback agent.Brain
	// Tools are the tools the investigator may call (nil: none).
	Tools ToolSet
	// Knowledge is searched while planning and summarizing (nil: none).
	Knowledge Knowledge
	// Redactor cleans everything sent (redact.Default() when nil).
	Redactor *redact.Redactor
	// Pool shares endpoints and circuit breakers (DefaultPool when nil).
	Pool *Pool
	// UsageSink, when set, receives the usage of every model call as it happens (for
	// in-process task runners that account per session).
	UsageSink func(Usage)
}

// LLMBrain is an agent.Brain backed by a chat model, with a fallback brain.
// It is cheap to build, so the controller may build one per session step.
type LLMBrain struct {
	cfg       Config
	ep        *endpoint
	fallback  agent.Brain
	gate      *toolGate
	knowledge Knowledge
	red       *redact.Redactor
	led       ledger

	plan, verdict, conclusion *outputSchema

	kmu    sync.Mutex
	kcache map[string][]Snippet
}

var _ agent.Brain = (*LLMBrain)(nil)

// New builds a brain for cfg.
func New(cfg Config, opts Options) (*LLMBrain, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	pool := opts.Pool
	if pool == nil {
		pool = DefaultPool
	}
	red := opts.Redactor
	if red == nil {
		red = redact.Default()
	}
	if cfg.APIKey != "" {
		red.AddSecrets(cfg.APIKey)
	}
	b := &LLMBrain{cfg: cfg, ep: pool.endpoint(cfg), fallback: opts.Fallback, gate: newToolGate(opts.Tools),
		knowledge: opts.Knowledge, red: red, kcache: map[string][]Snippet{}}
	b.led.sink = opts.UsageSink
	var err error
	if b.plan, err = newOutputSchema(SchemaPlan, planSchema(cfg.MaxPlanTasks)); err != nil {
		return nil, err
	}
	if b.verdict, err = newOutputSchema(SchemaVerdict, verdictSchema()); err != nil {
		return nil, err
	}
	if b.conclusion, err = newOutputSchema(SchemaConclusion, conclusionSchema()); err != nil {
		return nil, err
	}
	return b, nil
}

// Config returns the effective configuration.
func (b *LLMBrain) Config() Config { return b.cfg }

// degrade records that step fell back and returns the error to use when there is no
// fallback answer.
func (b *LLMBrain) degrade(step string, err error) error {
	d := Degradation{Step: step, Reason: reasonOf(err), Message: clip(b.red.Redact(err.Error()), 300)}
	b.led.degrade(d)
	return &DegradedError{Degradation: d, Err: err}
}

func noFallback(step string, err error) error {
	var de *DegradedError
	if errors.As(err, &de) {
		de.Message = clip(de.Reason+": "+de.Message, 300)
		de.Reason = ReasonNoFallback
		return de
	}
	return &DegradedError{Degradation: Degradation{Step: step, Reason: ReasonNoFallback, Message: err.Error()}, Err: err}
}

func taskID(iteration, n int) string { return fmt.Sprintf("i%d-t%d", iteration, n) }

// Plan implements agent.Planner. The rule engine's tasks (its first analysis, or the
// leads the regulator chose) always run; the model adds tasks the rules cannot do.
// On a re-plan without next steps for the model, no model call is made.
func (b *LLMBrain) Plan(ctx context.Context, s agent.Session, p agent.Progress) ([]agent.Task, error) {
	iter := max(p.Iteration, 1)
	var ruleTasks, steps []agent.Task
	replan := p.Verdict != nil && p.Verdict.Decision == agent.Replan
	if replan {
		for _, t := range p.Verdict.Next {
			if t.Type == agent.TaskAnalyze || t.Type == "" {
				ruleTasks = append(ruleTasks, t)
			} else {
				steps = append(steps, t)
			}
		}
	} else if b.fallback != nil {
		ts, err := b.fallback.Plan(ctx, s, p)
		if err != nil {
			return nil, err
		}
		ruleTasks = ts
	}
	for i := range ruleTasks {
		ruleTasks[i].ID = taskID(iter, i+1)
	}
	if replan && len(steps) == 0 {
		return ruleTasks, nil
	}
	var out planOut
	ruleIDs := map[string]bool{}
	for _, t := range ruleTasks {
		ruleIDs[t.ID] = true
	}
	user := b.planPrompt(ctx, s, p, ruleTasks, steps)
	err := b.structured(ctx, b.plan, systemPrompt(b.cfg.Mode, rolePlanner), user, &out, func() error { return b.checkPlan(&out, ruleIDs) })
	if err != nil {
		derr := b.degrade("Plan", err)
		if r := reasonOf(err); r == ReasonInvalidOutput || r == ReasonTruncated {
			// The model answers but cannot plan: its sub-agents may still investigate.
			off := len(ruleTasks)
			for i, t := range steps {
				t.ID = taskID(iter, off+i+1)
				ruleTasks = append(ruleTasks, t)
			}
		}
		if b.fallback == nil && len(ruleTasks) == 0 {
			return nil, noFallback("Plan", derr)
		}
		return ruleTasks, nil
	}
	return append(ruleTasks, b.planTasks(iter, len(ruleTasks), out.Tasks)...), nil
}

func (b *LLMBrain) planPrompt(ctx context.Context, s agent.Session, p agent.Progress, ruleTasks, steps []agent.Task) string {
	var u strings.Builder
	u.WriteString(sessionText(s))
	fmt.Fprintf(&u, "Iteration: %d\n\n", max(p.Iteration, 1))
	u.WriteString("Rule-engine tasks already running this round (you may depend on their ids):\n")
	if len(ruleTasks) == 0 {
		u.WriteString("(none)\n")
	}
	for _, t := range ruleTasks {
		fmt.Fprintf(&u, "- %s: %s\n", t.ID, oneLine(t.Description, 300))
	}
	u.WriteString("\nFindings so far:\n" + findingsText(p.Results, 20) + "\n\n")
	u.WriteString("Task results so far:\n" + resultsText(p.Results, 20) + "\n\n")
	if p.Verdict != nil && p.Verdict.Feedback != "" {
		u.WriteString("Regulator feedback:\n" + dataBlock("regulator", "", p.Verdict.Feedback) + "\n\n")
	}
	if len(steps) > 0 {
		u.WriteString("The regulator asks for these next steps; turn them into tasks:\n")
		for _, t := range steps {
			u.WriteString("- " + oneLine(t.Description, 300) + "\n")
		}
		u.WriteString("\n")
	}
	u.WriteString("Tools (for ToolCall tasks and for Investigate sub-agents):\n" + toolCatalog(b.gate.specs()) + "\n\n")
	u.WriteString("Knowledge:\n" + knowledgeText(b.searchKnowledge(ctx, s.Problem)) + "\n\n")
	fmt.Fprintf(&u, "Propose at most %d tasks. Use ToolCall with exact argument names for a single lookup, Investigate for an open question that needs several tool calls, Knowledge for a runbook search. A task may depend on rule-engine task ids or earlier task ids.", b.cfg.MaxPlanTasks)
	return u.String()
}

// checkPlan validates the model's tasks: unique ids, dependencies on known earlier
// tasks only (so no cycles), tools that exist, arguments that fit their schema.
func (b *LLMBrain) checkPlan(out *planOut, ruleIDs map[string]bool) error {
	var errs []string
	seen := map[string]bool{}
	for i, t := range out.Tasks {
		at := fmt.Sprintf("tasks[%d]", i)
		if seen[t.ID] || ruleIDs[t.ID] {
			errs = append(errs, fmt.Sprintf("%s.id %q is used twice", at, t.ID))
		}
		for _, d := range t.DependsOn {
			if !seen[d] && !ruleIDs[d] {
				errs = append(errs, fmt.Sprintf("%s.dependsOn %q is not a rule-engine task or an earlier task", at, clip(d, 40)))
			}
		}
		seen[t.ID] = true
		if t.Type == planToolCall {
			if _, err := b.gate.argsFromStrings(t.Tool, planArgs(t.Args)); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", at, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func planArgs(args []planArg) map[string]string {
	m := make(map[string]string, len(args))
	for _, a := range args {
		m[a.Name] = a.Value
	}
	return m
}

func (b *LLMBrain) planTasks(iter, offset int, in []planTask) []agent.Task {
	ids := map[string]string{}
	out := make([]agent.Task, 0, len(in))
	for i, t := range in {
		id := taskID(iter, offset+i+1)
		ids[t.ID] = id
		task := agent.Task{ID: id, Type: agent.TaskType(t.Type), Description: oneLine(t.Description, 300)}
		if t.Type == planToolCall {
			task.Tool = t.Tool
			task.Args = planArgs(t.Args)
		}
		for _, d := range t.DependsOn {
			if nd, ok := ids[d]; ok {
				task.DependsOn = append(task.DependsOn, nd)
			} else {
				task.DependsOn = append(task.DependsOn, d) // a rule-engine task id
			}
		}
		out = append(out, task)
	}
	return out
}

// searchKnowledge runs a bounded, cached knowledge search; failures leave it empty.
func (b *LLMBrain) searchKnowledge(ctx context.Context, query string) []Snippet {
	if b.knowledge == nil || strings.TrimSpace(query) == "" {
		return nil
	}
	query = clip(query, 1000)
	b.kmu.Lock()
	if s, ok := b.kcache[query]; ok {
		b.kmu.Unlock()
		return s
	}
	b.kmu.Unlock()
	snips, err := b.knowledge.Search(ctx, query)
	if err != nil {
		return nil
	}
	if len(snips) > maxSnippets {
		snips = snips[:maxSnippets]
	}
	for i := range snips {
		snips[i].Text = clip(snips[i].Text, maxSnippetBytes)
		snips[i].Citation = oneLine(snips[i].Citation, 300)
	}
	b.kmu.Lock()
	if len(b.kcache) < 32 {
		b.kcache[query] = snips
	}
	b.kmu.Unlock()
	return snips
}

// Judge implements agent.Regulator: budgets first (no model call once they are used),
// then the model's judgement, merged with the rule engine's unexamined leads.
func (b *LLMBrain) Judge(ctx context.Context, s agent.Session, p agent.Progress) (agent.Verdict, error) {
	var fb agent.Verdict
	fbOK := false
	if b.fallback != nil {
		v, err := b.fallback.Judge(ctx, s, p)
		fb, fbOK = v, err == nil
	}
	if b.cfg.MaxIterations > 0 && p.Iteration >= b.cfg.MaxIterations {
		return agent.Verdict{Decision: agent.Conclude, Feedback: fmt.Sprintf("iteration budget of %d used", b.cfg.MaxIterations)}, nil
	}
	calls := 0
	for _, r := range p.Results {
		calls += len(r.ToolCalls)
	}
	if b.cfg.MaxToolCalls > 0 && calls >= b.cfg.MaxToolCalls {
		return agent.Verdict{Decision: agent.Conclude, Feedback: fmt.Sprintf("tool-call budget of %d used", b.cfg.MaxToolCalls)}, nil
	}
	ruleLeads := fbOK && fb.Decision == agent.Replan && len(fb.Next) > 0
	var out verdictOut
	var u strings.Builder
	u.WriteString(sessionText(s))
	fmt.Fprintf(&u, "Iteration: %d", max(p.Iteration, 1))
	if b.cfg.MaxIterations > 0 {
		fmt.Fprintf(&u, " of at most %d", b.cfg.MaxIterations)
	}
	u.WriteString("\n\nFindings so far:\n" + findingsText(p.Results, 20) + "\n\n")
	u.WriteString("Task results so far:\n" + resultsText(p.Results, 30) + "\n\n")
	if fbOK {
		u.WriteString("The rule engine's verdict: " + string(fb.Decision) + " — " + dataBlock("rule-engine verdict", "", fb.Feedback) + "\n\n")
	}
	items := evidenceItems(allEvidence(p.Results))
	budget := b.promptBudget() - ApproxTokens(u.String()) - ApproxTokens(systemPrompt(b.cfg.Mode, roleRegulator)) - 400
	u.WriteString("Evidence:\n" + packEvidence(items, budget) + "\n\n")
	u.WriteString("Decide: pass, refine (with next steps) or fail.")
	err := b.structured(ctx, b.verdict, systemPrompt(b.cfg.Mode, roleRegulator), u.String(), &out, func() error { return out.check(ruleLeads) })
	if err != nil {
		derr := b.degrade("Judge", err)
		if !fbOK {
			return agent.Verdict{}, noFallback("Judge", derr)
		}
		return fb, nil
	}
	feedback := oneLine(out.Feedback, 400)
	switch out.Decision {
	case "fail":
		return agent.Verdict{Decision: agent.Stop, Feedback: feedback}, nil
	case "pass":
		if ruleLeads {
			return agent.Verdict{Decision: agent.Replan, Next: fb.Next, Feedback: clip(feedback+"; following the rule engine's open leads first: "+fb.Feedback, 500)}, nil
		}
		return agent.Verdict{Decision: agent.Conclude, Feedback: feedback}, nil
	}
	v := agent.Verdict{Decision: agent.Replan, Feedback: feedback}
	if ruleLeads {
		v.Next = append(v.Next, fb.Next...)
	}
	for _, step := range out.NextSteps {
		v.Next = append(v.Next, agent.Task{Type: agent.TaskInvestigate, Description: oneLine(step, 300)})
	}
	if len(v.Next) == 0 {
		v.Decision = agent.Conclude
	}
	return v, nil
}

func allEvidence(results []agent.TaskResult) []agent.Evidence {
	var out []agent.Evidence
	for _, r := range results {
		out = append(out, r.Evidence...)
	}
	return out
}

// Summarize implements agent.Summarizer. The fallback's conclusion is shown as the
// rule engine's candidate and is the answer when the model fails.
func (b *LLMBrain) Summarize(ctx context.Context, s agent.Session, p agent.Progress) (agent.Conclusion, error) {
	var fb agent.Conclusion
	fbErr := errors.New("no fallback brain")
	if b.fallback != nil {
		fb, fbErr = b.fallback.Summarize(ctx, s, p)
	}
	evidence := allEvidence(p.Results)
	known := map[string]bool{}
	for _, e := range evidence {
		known[e.ID] = true
	}
	for _, e := range fb.Evidence {
		if !known[e.ID] {
			known[e.ID] = true
			evidence = append(evidence, e)
		}
	}
	query := s.Problem
	if fbErr == nil && fb.RootCause.Summary != "" {
		query += "\n" + fb.RootCause.Summary
	}
	snips := b.searchKnowledge(ctx, query)
	citations := map[string]bool{}
	for _, sn := range snips {
		citations[sn.Citation] = true
	}
	user := b.summaryPrompt(s, p, fb, fbErr == nil, evidence, snips)
	var out conclusionOut
	err := b.structured(ctx, b.conclusion, systemPrompt(b.cfg.Mode, roleSummarizer), user, &out, func() error { return out.check(known, citations) })
	if err != nil {
		derr := b.degrade("Summarize", err)
		if fbErr != nil {
			return agent.Conclusion{}, noFallback("Summarize", derr)
		}
		return fb, nil
	}
	return b.conclusionFrom(s, out, evidence, snips, fb, fbErr == nil), nil
}

func (b *LLMBrain) summaryPrompt(s agent.Session, p agent.Progress, fb agent.Conclusion, fbOK bool, evidence []agent.Evidence, snips []Snippet) string {
	var u strings.Builder
	u.WriteString(sessionText(s))
	if p.StopReason != "" {
		u.WriteString("The investigation stopped early: " + oneLine(p.StopReason, 300) + "\n")
	}
	u.WriteString("\nFindings:\n" + findingsText(p.Results, 20) + "\n\n")
	u.WriteString("Task results:\n" + resultsText(p.Results, 30) + "\n\n")
	if fbOK {
		u.WriteString("The rule engine's candidate conclusion:\n" + dataBlock("rule-engine", "candidate", candidateJSON(fb)) + "\n\n")
	}
	u.WriteString("Knowledge (cite by the id attribute):\n" + knowledgeText(snips) + "\n\n")
	// Evidence cited by the rule engine first: it is what the candidate rests on.
	cited := map[string]bool{}
	for _, id := range fb.RootCause.EvidenceIDs {
		cited[id] = true
	}
	ordered := append([]agent.Evidence(nil), evidence...)
	sort.SliceStable(ordered, func(i, j int) bool { return cited[ordered[i].ID] && !cited[ordered[j].ID] })
	tail := "Write the conclusion. Cite only evidence ids and knowledge citations shown above."
	budget := b.promptBudget() - ApproxTokens(u.String()) - ApproxTokens(systemPrompt(b.cfg.Mode, roleSummarizer)) - ApproxTokens(tail) - 200
	u.WriteString("Evidence (cite by the id attribute):\n" + packEvidence(evidenceItems(ordered), budget) + "\n\n")
	u.WriteString(tail)
	return u.String()
}

// candidateJSON is the part of a rule-engine conclusion the model needs.
func candidateJSON(c agent.Conclusion) string {
	rc := c.RootCause
	v := map[string]any{
		"summary": rc.Summary, "category": rc.Category, "confidence": rc.Confidence,
		"culprit": map[string]string{"kind": rc.Culprit.Kind, "name": rc.Culprit.Name}, "evidenceIds": rc.EvidenceIDs,
	}
	if rc.Rule != "" {
		v["rule"] = rc.Rule
	}
	if len(rc.Chain) > 0 {
		v["chain"] = rc.Chain
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

func (b *LLMBrain) conclusionFrom(s agent.Session, out conclusionOut, evidence []agent.Evidence, snips []Snippet, fb agent.Conclusion, fbOK bool) agent.Conclusion {
	ref := func(r refOut) agent.ObjectRef {
		o := agent.ObjectRef{Kind: oneLine(r.Kind, 63), Name: oneLine(r.Name, 253)}
		if o.Name == "" {
			return agent.ObjectRef{}
		}
		if k, err := tools.ResolveKind(o.Kind); err == nil {
			o.Kind = k.Kind
			if k.Namespaced {
				o.Namespace = s.Namespace
			}
		} else {
			o.Namespace = s.Namespace
		}
		return o
	}
	rc := agent.RootCause{
		Summary: clip(out.Summary, agent.MaxRootSummary), Category: out.Category,
		Confidence: min(max(out.Confidence, 0), 100), Culprit: ref(out.Culprit),
	}
	for _, a := range out.AffectedObjects {
		if r := ref(a); !r.IsZero() && len(rc.AffectedObjects) < agent.MaxAffected {
			rc.AffectedObjects = append(rc.AffectedObjects, r)
		}
	}
	for _, c := range out.Chain {
		if len(rc.Chain) < 8 {
			rc.Chain = append(rc.Chain, oneLine(c, 200))
		}
	}
	byID := map[string]agent.Evidence{}
	for _, e := range evidence {
		byID[e.ID] = e
	}
	c := agent.Conclusion{}
	for _, id := range out.EvidenceIDs {
		if e, ok := byID[id]; ok && len(rc.EvidenceIDs) < agent.MaxEvidenceIDs {
			rc.EvidenceIDs = append(rc.EvidenceIDs, id)
			c.Evidence = append(c.Evidence, e)
			delete(byID, id)
		}
	}
	bySnip := map[string]Snippet{}
	for _, sn := range snips {
		bySnip[sn.Citation] = sn
	}
	for i, cit := range out.KnowledgeCitations {
		sn, ok := bySnip[cit]
		if !ok || len(rc.EvidenceIDs) >= agent.MaxEvidenceIDs {
			continue
		}
		id := fmt.Sprintf("kb-%d", i+1)
		rc.EvidenceIDs = append(rc.EvidenceIDs, id)
		summary := cit
		if sn.Title != "" {
			summary = sn.Title + " (" + cit + ")"
		}
		c.Evidence = append(c.Evidence, agent.Evidence{ID: id, Summary: oneLine(summary, agent.MaxEvidenceSummary),
			Source: agent.Source{Kind: agent.SourceKnowledge, Tool: "knowledge", Query: oneLine(cit, 300)},
			Data:   clip(b.red.Redact(sn.Text), agent.MaxEvidenceData)})
		delete(bySnip, cit)
	}
	c.RootCause = rc
	for i, a := range out.Remediation.Actions {
		if i == agent.MaxActions {
			break
		}
		c.Remediation.Actions = append(c.Remediation.Actions, agent.Action{
			ID: fmt.Sprintf("llm-a%d", i+1), Description: oneLine(a.Description, 500),
			Command: clip(a.Command, 1000), Risk: agent.Risk(a.Risk),
		})
	}
	for i, v := range out.Remediation.ValidationSteps {
		if i == agent.MaxValidationSteps {
			break
		}
		c.Remediation.ValidationSteps = append(c.Remediation.ValidationSteps, oneLine(v, 300))
	}
	if fbOK && fb.RootCause.Category != "" && (fb.RootCause.Category != rc.Category || fb.RootCause.Culprit.Key() != rc.Culprit.Key()) {
		c.Alternatives = append(c.Alternatives, fb.RootCause)
	}
	if fbOK {
		for _, alt := range fb.Alternatives {
			if len(c.Alternatives) >= 3 {
				break
			}
			if alt.Category != rc.Category || alt.Culprit.Key() != rc.Culprit.Key() {
				c.Alternatives = append(c.Alternatives, alt)
			}
		}
		// Evidence the alternatives cite, so their ids resolve in the status.
		for _, alt := range c.Alternatives {
			for _, id := range alt.EvidenceIDs {
				if e, ok := byID[id]; ok {
					c.Evidence = append(c.Evidence, e)
					delete(byID, id)
				}
			}
		}
	}
	return c
}
