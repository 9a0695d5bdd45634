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

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/kubage/kubage/internal/tools"
)

// RuleEngine is the deterministic brain: analyzers over the Kubernetes API and a
// catalogue of root-cause rules. It needs no model.
type RuleEngine struct {
	Client kubernetes.Interface
	// Now is the clock (time.Now when nil); tests pin it.
	Now func() time.Time
	// MaxCallsPerTask caps tool calls inside one analyzer task.
	MaxCallsPerTask int
	// MaxFollowPerRound caps the follow-up tasks planned per round.
	MaxFollowPerRound int
	// MaxHops caps how far chains are followed from the target.
	MaxHops int
	// Logs replaces the API as the source of container logs (recorded fixtures, tests).
	Logs tools.LogSource
	// Cache serves reads of common kinds from memory instead of the API server (none
	// when nil).
	Cache tools.ObjectCache
}

// NewRuleEngine returns a RuleEngine with default bounds.
func NewRuleEngine(cs kubernetes.Interface) *RuleEngine {
	return &RuleEngine{Client: cs, MaxCallsPerTask: 60, MaxFollowPerRound: 6, MaxHops: 4}
}

var _ Brain = (*RuleEngine)(nil)

func (r *RuleEngine) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

type analyzerFunc func(ctx context.Context, e *env, ref ObjectRef) error

// analyzers maps Task.Tool of Analyze tasks to their implementation.
var analyzers = map[string]analyzerFunc{}

// analyzerForKind picks the analyzer for a target kind (canonical kind names).
var analyzerForKind = map[string]string{
	"Pod": "pod", "Deployment": "workload", "ReplicaSet": "workload", "StatefulSet": "workload", "DaemonSet": "workload",
	"Service": "service", "Endpoints": "service", "EndpointSlice": "object", "PersistentVolumeClaim": "pvc",
	"Node": "node", "Job": "job", "CronJob": "cronjob", "HorizontalPodAutoscaler": "hpa",
	"PodDisruptionBudget": "pdb", "Ingress": "ingress", "NetworkPolicy": "networkpolicy",
	"ResourceQuota": "quota", "LimitRange": "quota", "ConfigMap": "config", "Secret": "config",
	"StorageClass": "object", "PersistentVolume": "object", "ServiceAccount": "object", "Event": "object", "CSIDriver": "object",
	"Namespace": "namespace",
}

// AnalyzerNames lists the analyzers (for docs and validation).
func AnalyzerNames() []string {
	out := make([]string, 0, len(analyzers))
	for n := range analyzers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func analyzeTask(id, analyzer string, ref ObjectRef, hop int, why string) Task {
	args := map[string]string{"hop": strconv.Itoa(hop)}
	if ref.Kind != "" {
		args["kind"] = ref.Kind
	}
	if ref.Name != "" {
		args["name"] = ref.Name
	}
	desc := fmt.Sprintf("analyze %s", ref.Kind+"/"+ref.Name)
	if ref.Kind == "Namespace" || ref.IsZero() {
		desc = "scan the namespace for failing objects"
	}
	if why != "" {
		desc += " (" + why + ")"
	}
	return Task{ID: id, Type: TaskAnalyze, Tool: analyzer, Args: args, Description: clipString(desc, 300)}
}

// Plan implements Planner: the first round follows the target's kind; later rounds are
// the follow-ups the regulator chose.
func (r *RuleEngine) Plan(_ context.Context, s Session, p Progress) ([]Task, error) {
	if strings.TrimSpace(s.Namespace) == "" {
		return nil, errors.New("session has no namespace")
	}
	if p.Verdict != nil && p.Verdict.Decision == Replan {
		out := make([]Task, len(p.Verdict.Next))
		for i, t := range p.Verdict.Next {
			t.ID = taskID(p.Iteration, i+1)
			out[i] = t
		}
		return out, nil
	}
	id := taskID(max(p.Iteration, 1), 1)
	t := s.Target
	if t != nil {
		// Bound untrusted target text before it reaches tasks, evidence and the API.
		t = &Target{Kind: tools.Sanitize(t.Kind, 63, true), Name: tools.Sanitize(t.Name, 253, true), Selector: tools.Sanitize(t.Selector, 1000, true)}
	}
	if a, ok := parseAccessQuestion(s.Problem); ok && (t == nil || t.Name == "" || strings.EqualFold(t.Kind, "ServiceAccount")) {
		if t != nil && strings.EqualFold(t.Kind, "ServiceAccount") && t.Name != "" {
			a.SA, a.User, a.Team = t.Name, "", ""
		}
		// A permission question is answered by the authorizer, not by scanning for failures.
		task := analyzeTask(id, "rbac", ObjectRef{Kind: "ServiceAccount", Namespace: s.Namespace, Name: a.SA}, 0, "permission question")
		task.Args["serviceAccount"], task.Args["verb"], task.Args["resource"], task.Args["group"] = a.SA, a.Verb, a.Resource, a.Group
		task.Description = clipString("evaluate RBAC: may ServiceAccount "+a.SA+" "+a.what()+"?", 300)
		if a.SA == "" && (a.User != "" || a.Team != "") {
			task.Args["user"], task.Args["subjectGroup"] = a.User, a.Team
			task.Description = clipString("evaluate RBAC: may "+a.subject()+" "+a.what()+"?", 300)
		}
		return []Task{task}, nil
	}
	switch {
	case t == nil || (t.Name == "" && t.Selector == ""):
		return []Task{analyzeTask(id, "namespace", ObjectRef{Kind: "Namespace", Name: s.Namespace}, 0, "no target given")}, nil
	case t.Selector != "" && t.Name == "":
		task := analyzeTask(id, "selector", ObjectRef{Kind: "Pod"}, 0, "")
		task.Args["selector"] = t.Selector
		task.Description = clipString("analyze pods matching "+t.Selector, 300)
		return []Task{task}, nil
	}
	k, err := tools.ResolveKind(t.Kind)
	if err != nil || analyzerForKind[k.Kind] == "" {
		task := analyzeTask(id, "unsupported", ObjectRef{Kind: t.Kind, Name: t.Name}, 0, "")
		return []Task{task}, nil
	}
	ref := ObjectRef{Kind: k.Kind, Namespace: s.Namespace, Name: t.Name}
	if !k.Namespaced {
		ref.Namespace = ""
	}
	tasks := []Task{analyzeTask(id, analyzerForKind[k.Kind], ref, 0, "session target")}
	if analyzerForKind[k.Kind] == "object" {
		tasks = append(tasks, analyzeTask(taskID(max(p.Iteration, 1), 2), "namespace", ObjectRef{Kind: "Namespace", Name: s.Namespace}, 1, "no dedicated analyzer for "+k.Kind))
	}
	return tasks, nil
}

// Investigate implements Investigator. It depends only on the session, the task and the
// cluster, so a Job running `kubage agent task` computes the same result.
func (r *RuleEngine) Investigate(ctx context.Context, s Session, t Task) (TaskResult, error) {
	res := TaskResult{TaskID: t.ID}
	if r.Client == nil {
		return res, errors.New("rule engine has no Kubernetes client")
	}
	c := tools.NewClient(r.Client, tools.Scope{Namespace: s.Namespace})
	c.SetClock(r.now)
	c.SetLogSource(r.Logs)
	if r.Cache != nil {
		c.SetCache(r.Cache)
	}
	hop, _ := strconv.Atoi(t.Args["hop"])
	res.Hop = hop
	defer func() { res.APIRequests = c.Requests() }()
	switch t.Type {
	case TaskToolCall:
		return r.runTool(ctx, c, t, res)
	case TaskAnalyze:
	default:
		return res, fmt.Errorf("the rule engine cannot run %q tasks", clipString(string(t.Type), 40))
	}
	fn, ok := analyzers[t.Tool]
	if !ok {
		return res, fmt.Errorf("unknown analyzer %q (known: %s)", clipString(t.Tool, 60), strings.Join(AnalyzerNames(), ", "))
	}
	maxCalls := r.MaxCallsPerTask
	if maxCalls <= 0 {
		maxCalls = 60
	}
	e := &env{c: c, s: s, task: t, hop: hop, now: r.now(), res: &res, cache: map[string]runtime.Object{}, owners: map[string]ObjectRef{}, maxCalls: maxCalls}
	if s.TimeRange != nil && s.TimeRange.From != nil {
		e.since = *s.TimeRange.From
	}
	if s.TimeRange != nil && s.TimeRange.To != nil {
		e.until = *s.TimeRange.To
	}
	ref := ObjectRef{Kind: t.Args["kind"], Name: t.Args["name"]}
	if k, err := tools.ResolveKind(ref.Kind); err == nil {
		ref.Kind = k.Kind
	}
	if ref.Name != "" && ref.Kind != "Namespace" {
		e.examine(ref)
	}
	var err error
	// An object being deleted (a workload short of pods on purpose, a Service, a claim) is
	// explained by what holds its deletion; pods have their own, richer check.
	if ref.Name == "" || ref.Kind == "Pod" || ref.Kind == "Namespace" || t.Tool != analyzerForKind[ref.Kind] || !e.deletionHeld(ctx, ref) {
		err = fn(ctx, e, ref)
	}
	res.Summary = taskSummary(t, ref, &res)
	if errors.Is(err, errTaskBudget) {
		res.Summary += " (stopped at the per-task tool-call cap)"
		err = nil
	}
	res.APIRequests = c.Requests()
	return res, err
}

func taskSummary(t Task, ref ObjectRef, res *TaskResult) string {
	subject := ref.Kind + "/" + ref.Name
	if ref.Name == "" {
		subject = "namespace"
		if t.Args["selector"] != "" {
			subject = "pods " + t.Args["selector"]
		}
	}
	if len(res.Findings) == 0 {
		s := fmt.Sprintf("%s: no root-cause rule matched", subject)
		if len(res.FollowUps) > 0 {
			s += fmt.Sprintf("; %d object(s) to look at next", len(res.FollowUps))
		}
		return s
	}
	ids := make([]string, 0, len(res.Findings))
	for _, f := range res.Findings {
		ids = append(ids, f.Rule+" on "+f.Culprit.Kind+"/"+f.Culprit.Name)
	}
	return clipString(fmt.Sprintf("%s: %s", subject, strings.Join(ids, "; ")), 500)
}

func (r *RuleEngine) runTool(ctx context.Context, c *tools.Client, t Task, res TaskResult) (TaskResult, error) {
	reg := tools.BuiltinFor(c)
	tool, ok := reg.Get(t.Tool)
	if !ok {
		return res, fmt.Errorf("unknown tool %q", clipString(t.Tool, 60))
	}
	args := map[string]string{}
	for k, v := range t.Args {
		if k != "hop" {
			args[k] = v
		}
	}
	out, err := tool.CallArgs(ctx, args)
	rawArgs, _ := json.Marshal(args)
	tc := ToolCall{Tool: t.Tool, Args: clipString(string(rawArgs), 200)}
	if err != nil {
		tc.Error = clipString(err.Error(), 200)
		res.ToolCalls = append(res.ToolCalls, tc)
		res.Summary = "tool failed: " + tc.Error
		res.APIRequests = c.Requests()
		return res, err
	}
	res.ToolCalls = append(res.ToolCalls, tc)
	first := out.Text
	if i := strings.IndexByte(first, '\n'); i > 0 {
		first = first[:i]
	}
	res.Evidence = append(res.Evidence, Evidence{
		ID: strings.ToLower(t.ID) + "-e1", Summary: tools.Sanitize(t.Tool+": "+first, MaxEvidenceSummary, true),
		Source: Source{Kind: SourceQuery, Tool: t.Tool, Query: clipString(string(rawArgs), 200)},
		Data:   tools.Sanitize(out.Text, MaxEvidenceData, false), TaskID: t.ID,
	})
	res.Summary = clipString(first, 300)
	res.APIRequests = c.Requests()
	return res, nil
}

// Judge implements Regulator: follow every finding that points at another object (and
// every follow-up an analyzer suggested) that has not been examined yet; broaden to the
// namespace once when the target shows nothing; otherwise conclude.
func (r *RuleEngine) Judge(_ context.Context, s Session, p Progress) (Verdict, error) {
	examined := map[string]bool{}
	scanned := false
	findings, failed := 0, 0
	for _, res := range p.Results {
		for _, x := range res.Examined {
			examined[x.Key()] = true
			if x.Kind == "Namespace" {
				scanned = true
			}
		}
		findings += len(res.Findings)
		if res.Error != "" {
			failed++
		}
	}
	if len(p.Results) > 0 && failed == len(p.Results) {
		return Verdict{Decision: Stop, Feedback: "every task failed: " + p.Results[len(p.Results)-1].Error}, nil
	}
	maxFollow := r.MaxFollowPerRound
	if maxFollow <= 0 {
		maxFollow = 6
	}
	maxHops := r.MaxHops
	if maxHops <= 0 {
		maxHops = 4
	}
	type cand struct {
		ref ObjectRef
		hop int
		why string
	}
	var cands []cand
	seen := map[string]bool{}
	add := func(ref ObjectRef, hop int, why string) {
		if ref.Namespace == "" && isNamespaced(ref.Kind) {
			ref.Namespace = s.Namespace
		}
		if ref.Kind == "Namespace" {
			if scanned || seen["namespace"] {
				return
			}
			seen["namespace"] = true
			cands = append(cands, cand{ref: ref, hop: hop, why: why})
			return
		}
		k := ref.Key()
		if examined[k] || seen[k] || hop > maxHops || analyzerForKind[ref.Kind] == "" {
			return
		}
		seen[k] = true
		cands = append(cands, cand{ref: ref, hop: hop, why: why})
	}
	// Findings first (they explain the most), then plain follow-ups, in result order.
	for _, res := range p.Results {
		for _, f := range res.Findings {
			for _, ref := range f.Follow {
				add(ref, f.Hop+1, f.Rule+" on "+f.Object.Kind+"/"+f.Object.Name)
			}
		}
	}
	for _, res := range p.Results {
		for _, ref := range res.FollowUps {
			add(ref, res.Hop+1, "suggested by "+res.TaskID)
		}
	}
	if findings == 0 && len(cands) == 0 && !scanned && s.Target != nil && (s.Target.Name != "" || s.Target.Selector != "") {
		add(ObjectRef{Kind: "Namespace", Name: s.Namespace}, 1, "nothing wrong on the target itself")
	}
	if len(cands) == 0 {
		return Verdict{Decision: Conclude, Feedback: fmt.Sprintf("%d finding(s), no unexamined lead left", findings)}, nil
	}
	if len(cands) > maxFollow {
		cands = cands[:maxFollow]
	}
	v := Verdict{Decision: Replan}
	var parts []string
	for _, c := range cands {
		an := analyzerForKind[c.ref.Kind]
		v.Next = append(v.Next, analyzeTask("", an, c.ref, c.hop, c.why))
		parts = append(parts, c.ref.Kind+"/"+c.ref.Name)
	}
	v.Feedback = clipString("follow "+strings.Join(parts, ", "), 500)
	return v, nil
}
