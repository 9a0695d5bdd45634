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
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

func TestParallelToolCalls(t *testing.T) {
	e := newEnv(t,
		withTools(llmtest.Calls(
			llmtest.Call{ID: "a", Name: "k8s_events", Arguments: `{}`},
			llmtest.Call{ID: "b", Name: "k8s_get", Arguments: `{"kind":"Deployment","name":"web"}`},
		)),
		withTools(llmtest.Text("done [i1-t2-e1] [i1-t2-e2]")),
	)
	res, err := e.brain.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t2", Type: agent.TaskInvestigate, Description: "look"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evidence) != 2 || res.Evidence[0].Source.Tool != "k8s_events" || res.Evidence[1].Source.Tool != "k8s_get" {
		t.Fatalf("evidence %+v", res.Evidence)
	}
	msgs := e.srv.Requests()[1].Chat.Messages
	var tool []llmtest.Message
	for _, m := range msgs {
		if m.Role == "tool" {
			tool = append(tool, m)
		}
	}
	if len(tool) != 2 || tool[0].ToolCallID != "a" || tool[1].ToolCallID != "b" {
		t.Fatalf("tool messages must answer the calls in order: %+v", tool)
	}
	if !strings.Contains(tool[1].Content, `<data source="tool k8s_get" id="i1-t2-e2">`) {
		t.Fatalf("tool output not framed as data: %q", tool[1].Content)
	}
}

func TestHallucinatedToolsAreRefusedAndReported(t *testing.T) {
	e := newEnv(t,
		withTools(llmtest.Calls(
			llmtest.CallTool("kubectl_exec", map[string]any{"cmd": "rm -rf /"}),
			llmtest.CallTool("k8s_logs", map[string]any{"podName": "web"}),
			llmtest.CallTool("k8s_get", `{"kind": "Pod", `),
			llmtest.CallTool("delete_namespace", map[string]any{"name": ns}),
		)),
		withTools(llmtest.Text("nothing found")),
	)
	res, err := e.brain.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t2", Type: agent.TaskInvestigate, Description: "look"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evidence) != 0 || len(res.ToolCalls) != 4 {
		t.Fatalf("nothing should have run: %+v", res)
	}
	for _, tc := range res.ToolCalls {
		if !strings.HasPrefix(tc.Error, "refused: ") {
			t.Fatalf("call %+v not refused", tc)
		}
	}
	if e.tools.fakes[0].calls.Load() != 0 {
		t.Fatalf("the mutating tool ran")
	}
	var replies []string
	for _, m := range e.srv.Requests()[1].Chat.Messages {
		if m.Role == "tool" {
			replies = append(replies, m.Content)
		}
	}
	want := []string{"unknown tool \"kubectl_exec\"; available tools: k8s_list", "invalid arguments for k8s_logs", "arguments are not valid JSON", "not available to the investigation"}
	for i, w := range want {
		if !strings.Contains(replies[i], w) {
			t.Fatalf("reply %d %q does not say %q", i, replies[i], w)
		}
	}
	if u := e.brain.Usage(); u.RefusedToolCalls != 4 || u.ToolCalls != 0 {
		t.Fatalf("usage %+v", u)
	}
}

func TestToolBudgetPerTask(t *testing.T) {
	e := newEnv(t)
	e.brain = e.build(Config{MaxToolCallsPerTask: 1, MaxSteps: 3})
	e.srv.Push(
		withTools(llmtest.Calls(llmtest.CallTool("k8s_events", map[string]any{}), llmtest.CallTool("k8s_events", map[string]any{"warningsOnly": true}))),
		llmtest.Text("answer"),
	)
	res, err := e.brain.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t2", Type: agent.TaskInvestigate, Description: "look"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evidence) != 1 || !strings.Contains(res.ToolCalls[1].Error, "budget") {
		t.Fatalf("the second call must be refused by the budget: %+v", res.ToolCalls)
	}
	last := e.srv.Requests()[1]
	if len(last.Chat.Tools) != 0 || !strings.Contains(last.LastUser(), "tool budget of this task is used") {
		t.Fatalf("after the budget no tools may be offered: %v", last.ToolNames())
	}
}

func TestMalformedJSONIsRepaired(t *testing.T) {
	e := newEnv(t,
		llmtest.ForSchema(SchemaConclusion, llmtest.Text(`Sure! {"summary": "oops",`)),
		summary(conclusion("CrashLoop")),
	)
	c, err := e.brain.Summarize(context.Background(), e.session(), agent.Progress{Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.RootCause.Category != "CrashLoop" || !strings.Contains(c.RootCause.Summary, "database") {
		t.Fatalf("conclusion %+v", c.RootCause)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].LastUser(), "Your reply was rejected: the reply is not valid JSON") {
		t.Fatalf("repair request: %q", reqs[len(reqs)-1].LastUser())
	}
	if e.brain.Usage().Repairs != 1 {
		t.Fatalf("repairs %d", e.brain.Usage().Repairs)
	}
}

func TestSchemaViolationIsRepairedWithTheValidationError(t *testing.T) {
	bad := conclusion("crash loop")
	bad["confidence"] = 150
	bad["evidenceIds"] = []string{"made-up-1"}
	e := newEnv(t, summary(bad), summary(conclusion("CrashLoop")))
	if _, err := e.brain.Summarize(context.Background(), e.session(), agent.Progress{Iteration: 1}); err != nil {
		t.Fatal(err)
	}
	repair := e.srv.Requests()[1].LastUser()
	for _, want := range []string{"/category", "/confidence"} {
		if !strings.Contains(repair, want) {
			t.Fatalf("repair message %q does not name %s", repair, want)
		}
	}
	// Made-up evidence ids are a semantic error, caught after the schema passes.
	bad = conclusion("CrashLoop", "made-up-1")
	e = newEnv(t, summary(bad), summary(conclusion("CrashLoop")))
	if _, err := e.brain.Summarize(context.Background(), e.session(), agent.Progress{Iteration: 1}); err != nil {
		t.Fatal(err)
	}
	if repair := e.srv.Requests()[1].LastUser(); !strings.Contains(repair, `"made-up-1" is not an evidence id`) {
		t.Fatalf("repair message %q", repair)
	}
}

func TestNoFallbackReturnsDegradedError(t *testing.T) {
	e := newEnv(t, llmtest.Text("x"), llmtest.Text("y"))
	b, err := New(Config{BaseURL: e.srv.BaseURL(), Model: "m", RetryBaseDelay: time.Millisecond}, Options{Pool: &Pool{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Summarize(context.Background(), e.session(), agent.Progress{})
	var de *DegradedError
	if !errors.As(err, &de) || de.Reason != ReasonNoFallback {
		t.Fatalf("want a DegradedError, got %v", err)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	e := newEnv(t, llmtest.TooMany(time.Second), summary(conclusion("CrashLoop")))
	if _, err := e.brain.Summarize(context.Background(), e.session(), agent.Progress{}); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if gap := reqs[1].At.Sub(reqs[0].At); gap < time.Second {
		t.Fatalf("retried after %s, Retry-After said 1s", gap)
	}
	if u := e.brain.Usage(); u.LLMCalls != 1 || u.HTTPAttempts != 2 {
		t.Fatalf("usage %+v", u)
	}
}

func TestRetryAfterBeyondTheCapFailsAtOnce(t *testing.T) {
	e := newEnv(t, llmtest.TooMany(time.Hour))
	e.brain = e.build(Config{MaxRetryDelay: 2 * time.Second})
	start := time.Now()
	if _, err := e.brain.Judge(context.Background(), e.session(), settled()); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second || len(e.srv.Requests()) != 1 {
		t.Fatalf("waited %s with %d requests", time.Since(start), len(e.srv.Requests()))
	}
	if reason, _, ok := e.brain.TakeDegraded(); !ok || reason != ReasonModelUnreachable {
		t.Fatalf("reason %q", reason)
	}
}

func TestServerErrorsAreRetried(t *testing.T) {
	e := newEnv(t, llmtest.Status(500), llmtest.Status(503), verdict("pass"))
	v, err := e.brain.Judge(context.Background(), e.session(), settled())
	if err != nil {
		t.Fatal(err)
	}
	if v.Decision != agent.Conclude || len(e.srv.Requests()) != 3 {
		t.Fatalf("verdict %+v after %d requests", v, len(e.srv.Requests()))
	}
	if _, _, d := e.brain.TakeDegraded(); d {
		t.Fatalf("a retried success is not degraded")
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	e := newEnv(t, llmtest.Status(http.StatusUnauthorized))
	if _, err := e.brain.Judge(context.Background(), e.session(), settled()); err != nil {
		t.Fatal(err)
	}
	if len(e.srv.Requests()) != 1 {
		t.Fatalf("a 401 must not be retried: %d requests", len(e.srv.Requests()))
	}
	if reason, _, _ := e.brain.TakeDegraded(); reason != ReasonModelRejected {
		t.Fatalf("reason %q", reason)
	}
}

func TestSlowResponsesTimeOut(t *testing.T) {
	e := newEnv(t, llmtest.Slow(time.Minute, verdict("fail")), verdict("pass"))
	e.brain = e.build(Config{Timeout: 200 * time.Millisecond, MaxRetries: 1})
	v, err := e.brain.Judge(context.Background(), e.session(), settled())
	if err != nil || v.Decision != agent.Conclude {
		t.Fatalf("the retry after a timeout should succeed: %+v %v", v, err)
	}
	// Every attempt slow: the call fails within the attempts' time and degrades.
	e.srv.Push(llmtest.Slow(time.Minute, verdict("fail")), llmtest.Slow(time.Minute, verdict("fail")))
	start := time.Now()
	if _, err := e.brain.Judge(context.Background(), e.session(), settled()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("timed-out call took %s", el)
	}
	if reason, msg, ok := e.brain.TakeDegraded(); !ok || reason != ReasonModelUnreachable || !strings.Contains(msg, "timed out") {
		t.Fatalf("degraded %v %q %q", ok, reason, msg)
	}
}

func TestLengthTruncation(t *testing.T) {
	e := newEnv(t, llmtest.ForSchema(SchemaVerdict, llmtest.Truncated(`{"decision":"pass","feedback":"the evid`)), verdict("pass"))
	v, err := e.brain.Judge(context.Background(), e.session(), settled())
	if err != nil || v.Decision != agent.Conclude {
		t.Fatalf("%+v %v", v, err)
	}
	if !strings.Contains(e.srv.Requests()[1].LastUser(), "cut off at the output token limit") {
		t.Fatalf("repair must say the reply was cut off: %q", e.srv.Requests()[1].LastUser())
	}
	e.srv.Push(llmtest.Truncated(`{"decision":`), llmtest.Truncated(`{"decision":`))
	if _, err := e.brain.Judge(context.Background(), e.session(), settled()); err != nil {
		t.Fatal(err)
	}
	if reason, _, ok := e.brain.TakeDegraded(); !ok || reason != ReasonTruncated {
		t.Fatalf("reason %q", reason)
	}
	// In the tool loop a truncated answer is kept, marked.
	e.srv.Push(withTools(llmtest.Truncated("The pod exits because")))
	res, err := e.brain.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t2", Type: agent.TaskInvestigate, Description: "look"})
	if err != nil || !strings.Contains(res.Summary, TruncationMarker) {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestCircuitBreakerStopsCallingAFailingEndpoint(t *testing.T) {
	e := newEnv(t)
	e.srv.SetAuto(func(llmtest.Request) llmtest.Reply { return llmtest.Status(500) })
	e.brain = e.build(Config{MaxRetries: -1})
	for i := 0; i < breakerThreshold; i++ {
		if _, err := e.brain.Judge(context.Background(), e.session(), settled()); err != nil {
			t.Fatal(err)
		}
	}
	n := len(e.srv.Requests())
	// A new brain for the next step shares the pool, hence the breaker.
	b := e.build(Config{MaxRetries: -1})
	if _, err := b.Judge(context.Background(), e.session(), settled()); err != nil {
		t.Fatal(err)
	}
	if len(e.srv.Requests()) != n {
		t.Fatalf("the open circuit let a request through")
	}
	if reason, _, _ := b.TakeDegraded(); reason != ReasonCircuitOpen {
		t.Fatalf("reason %q", reason)
	}
}

func TestStructuredOutputStepsDownWhenUnsupported(t *testing.T) {
	e := newEnv(t, llmtest.Reply{Status: 400, Content: "response_format json_schema is not supported by this model"}, llmtest.Text("```json\n{\"decision\":\"pass\",\"feedback\":\"ok\",\"nextSteps\":[]}\n```"))
	v, err := e.brain.Judge(context.Background(), e.session(), settled())
	if err != nil || v.Decision != agent.Conclude {
		t.Fatalf("%+v %v", v, err)
	}
	r := e.srv.Requests()[1]
	if r.Chat.ResponseFormat == nil || r.Chat.ResponseFormat.Type != "json_object" || !strings.Contains(r.Chat.Messages[0].Content, "matches this JSON schema") {
		t.Fatalf("second request should use JSON mode with the schema in the prompt: %+v", r.Chat.ResponseFormat)
	}
	// The endpoint remembers: the next brain asks in JSON mode straight away.
	e.srv.Push(verdict("pass"))
	if _, err := e.build(Config{}).Judge(context.Background(), e.session(), settled()); err != nil {
		t.Fatal(err)
	}
	if f := e.srv.Requests()[2].Chat.ResponseFormat; f == nil || f.Type != "json_object" {
		t.Fatalf("format not remembered: %+v", f)
	}
}

func TestJudgeBudgetsNeedNoModel(t *testing.T) {
	e := newEnv(t)
	b := e.build(Config{MaxIterations: 2, MaxToolCalls: 3})
	v, err := b.Judge(context.Background(), e.session(), agent.Progress{Iteration: 2})
	if err != nil || v.Decision != agent.Conclude || !strings.Contains(v.Feedback, "iteration budget") {
		t.Fatalf("%+v %v", v, err)
	}
	p := agent.Progress{Iteration: 1, Results: []agent.TaskResult{{TaskID: "i1-t1", ToolCalls: make([]agent.ToolCall, 3)}}}
	v, err = b.Judge(context.Background(), e.session(), p)
	if err != nil || !strings.Contains(v.Feedback, "tool-call budget") {
		t.Fatalf("%+v %v", v, err)
	}
	if len(e.srv.Requests()) != 0 {
		t.Fatalf("a used budget needs no model call")
	}
}

func TestRefineBecomesNextRound(t *testing.T) {
	e := newEnv(t,
		verdict("refine", "Check the logs of the previous container"),
		plan(map[string]any{"id": "logs", "type": "ToolCall", "description": "previous logs", "tool": "k8s_logs",
			"args": []any{map[string]any{"name": "pod", "value": "web-1"}, map[string]any{"name": "previous", "value": "true"}}, "dependsOn": []string{}}),
	)
	p := agent.Progress{Iteration: 1, Results: []agent.TaskResult{{TaskID: "i1-t1", Summary: "crash loop", Examined: []agent.ObjectRef{{Kind: "Namespace", Name: ns}, {Kind: "Deployment", Namespace: ns, Name: "web"}}}}}
	v, err := e.brain.Judge(context.Background(), e.session(), p)
	if err != nil || v.Decision != agent.Replan {
		t.Fatalf("%+v %v", v, err)
	}
	p.Verdict, p.Iteration = &v, 2
	tasks, err := e.brain.Plan(context.Background(), e.session(), p)
	if err != nil {
		t.Fatal(err)
	}
	last := tasks[len(tasks)-1]
	if last.Type != agent.TaskToolCall || last.Tool != "k8s_logs" || last.Args["previous"] != "true" || last.ID != taskID(2, len(tasks)) {
		t.Fatalf("tasks %+v", tasks)
	}
	if !strings.Contains(e.srv.Requests()[1].LastUser(), "Check the logs of the previous container") {
		t.Fatalf("the planner did not get the regulator's step")
	}
}

func TestPlanValidation(t *testing.T) {
	e := newEnv(t,
		plan(
			map[string]any{"id": "a", "type": "ToolCall", "description": "d", "tool": "k8s_nope", "args": []any{}, "dependsOn": []string{}},
			investigateTask("b", "d", "zzz"),
		),
		plan(investigateTask("a", "d", "i1-t1"), investigateTask("b", "d2", "a")),
	)
	tasks, err := e.brain.Plan(context.Background(), e.session(), agent.Progress{Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	repair := e.srv.Requests()[1].LastUser()
	if !strings.Contains(repair, `unknown tool "k8s_nope"`) || !strings.Contains(repair, `dependsOn "zzz"`) {
		t.Fatalf("repair message %q", repair)
	}
	if len(tasks) != 3 || tasks[0].Type != agent.TaskAnalyze || tasks[2].DependsOn[0] != tasks[1].ID || tasks[1].DependsOn[0] != "i1-t1" {
		t.Fatalf("tasks %+v", tasks)
	}
}

func TestToolCallAndKnowledgeTasks(t *testing.T) {
	e := newEnv(t)
	b, err := New(Config{BaseURL: e.srv.BaseURL(), Model: "m"}, Options{Fallback: ruleEngine(e.cs), Tools: e.tools, Pool: &Pool{},
		Knowledge: KnowledgeFunc(func(_ context.Context, q string) ([]Snippet, error) {
			return []Snippet{{Citation: "runbooks:crash.md#exit-1", Title: "Exit code 1", Text: "Exit code 1 means the application failed; ask " + leakEmail}}, nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t3", Type: agent.TaskToolCall, Tool: "k8s_get", Args: map[string]string{"kind": "Deployment", "name": "web"}})
	if err != nil || len(res.Evidence) != 1 || res.Evidence[0].ID != "i1-t3-e1" {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = b.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t4", Type: agent.TaskToolCall, Tool: "k8s_get", Args: map[string]string{"bogus": "x"}})
	if err == nil || !strings.Contains(res.ToolCalls[0].Error, "refused") {
		t.Fatalf("bad plan arguments must be refused: %+v", res)
	}
	res, err = b.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t5", Type: agent.TaskKnowledge, Description: "exit code 1"})
	if err != nil || len(res.Evidence) != 1 || res.Evidence[0].Source.Kind != agent.SourceKnowledge || strings.Contains(res.Evidence[0].Data, leakEmail) {
		t.Fatalf("%+v %v", res, err)
	}
	if len(e.srv.Requests()) != 0 {
		t.Fatalf("tool and knowledge tasks need no model")
	}
}

func TestKnowledgeCitationsBecomeEvidence(t *testing.T) {
	cit := "runbooks:crash.md#exit-1"
	c := conclusion("CrashLoop")
	c["knowledgeCitations"] = []string{cit}
	e := newEnv(t, summary(c))
	b, err := New(Config{BaseURL: e.srv.BaseURL(), Model: "m"}, Options{Fallback: ruleEngine(e.cs), Pool: &Pool{},
		Knowledge: KnowledgeFunc(func(context.Context, string) ([]Snippet, error) {
			return []Snippet{{Citation: cit, Title: "Exit code 1", Text: "Exit code 1 means the application failed."}}, nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Summarize(context.Background(), e.session(), agent.Progress{Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Evidence) != 1 || got.Evidence[0].Source.Kind != agent.SourceKnowledge || got.RootCause.EvidenceIDs[0] != "kb-1" {
		t.Fatalf("%+v", got)
	}
	if !strings.Contains(e.srv.Requests()[0].LastUser(), `<data source="knowledge" id="`+cit+`">`) {
		t.Fatalf("knowledge not in the prompt")
	}
}

func TestContextBudgetTruncatesEvidence(t *testing.T) {
	e := newEnv(t, summary(conclusion("CrashLoop", "big-0")))
	e.brain = e.build(Config{ContextTokens: 4096, MaxOutputTokens: 512})
	var evs []agent.Evidence
	for i := 0; i < 60; i++ {
		evs = append(evs, agent.Evidence{ID: "big-" + string(rune('0'+i%10)) + strings.Repeat("x", i/10), Summary: "log tail", Data: strings.Repeat("line of a very long log\n", 85)})
	}
	if _, err := e.brain.Summarize(context.Background(), e.session(), agent.Progress{Iteration: 1, Results: []agent.TaskResult{{TaskID: "i1-t1", Evidence: evs}}}); err != nil {
		t.Fatal(err)
	}
	r := e.srv.Requests()[0]
	if ApproxTokens(string(r.Body)) > 4096 {
		t.Fatalf("prompt of ~%d tokens exceeds the window", ApproxTokens(string(r.Body)))
	}
	if !strings.Contains(r.LastUser(), TruncationMarker) {
		t.Fatalf("no truncation marker in the packed prompt")
	}
}

func TestUsageSink(t *testing.T) {
	e := newEnv(t, verdict("pass"))
	var got Usage
	b, err := New(Config{BaseURL: e.srv.BaseURL(), Model: "m"}, Options{Pool: &Pool{}, UsageSink: func(u Usage) { got = got.Add(u) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Judge(context.Background(), e.session(), settled()); err != nil {
		t.Fatal(err)
	}
	if got.LLMCalls != 1 || got.PromptTokens == 0 {
		t.Fatalf("sink got %+v", got)
	}
}

// settled is progress on which the rule engine has no lead left (it concludes).
func settled() agent.Progress {
	return agent.Progress{Iteration: 1, Results: []agent.TaskResult{{TaskID: "i1-t1", Summary: "namespace scanned",
		Examined: []agent.ObjectRef{{Kind: "Namespace", Name: ns}}}}}
}
