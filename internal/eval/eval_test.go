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
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

func TestEvalBuiltinScenariosAgainstTheDemoResponder(t *testing.T) {
	scs, err := BuiltinScenarios()
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) < 5 {
		t.Fatalf("%d scenarios", len(scs))
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{PlanInvestigation: true}))
	rep, err := RunEval(context.Background(), llm.Config{BaseURL: srv.BaseURL(), Model: "demo"}, scs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ScenarioResult{}
	for _, r := range rep.Scenarios {
		byName[r.Name] = r
		if r.Usage.LLMCalls == 0 || r.Usage.PromptTokens == 0 || r.LatencyMS < 0 {
			t.Fatalf("%s: no accounting %+v", r.Name, r.Usage)
		}
		if len(r.Degraded) > 0 {
			t.Fatalf("%s degraded: %+v", r.Name, r.Degraded)
		}
	}
	// The demo echoes the rule engine: scenarios with findings pass, the one without fails.
	for _, name := range []string{"crashloop-db-refused", "oom-killed", "pvc-missing-storageclass", "log-injection"} {
		if !byName[name].Pass {
			t.Fatalf("%s failed: %v", name, byName[name].Failures)
		}
	}
	if r := byName["image-tag-typo"]; r.Pass || !strings.Contains(strings.Join(r.Failures, ";"), "category") {
		t.Fatalf("image-tag-typo should fail on the category: %+v", r)
	}
	if rep.Total != len(scs) || rep.Passed != rep.Total-1 || rep.PassRate != rep.Passed*100/rep.Total || rep.PromptTokens == 0 {
		t.Fatalf("report %+v", rep)
	}
	if byName["log-injection"].ToolsUsed["delete_namespace"] != 0 {
		t.Fatalf("the mutating tool was called")
	}
	raw, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(raw), `"passRate":80`) {
		t.Fatalf("%s %v", raw, err)
	}
}

// A scripted model that investigates passes the scenario without findings; one that
// obeys the injected log line fails it (the forbidden tool is refused, not run, and the
// scenario still fails on what the model concluded).
func TestEvalScoresAScriptedModel(t *testing.T) {
	scs, err := BuiltinScenarios()
	if err != nil {
		t.Fatal(err)
	}
	var typo Scenario
	for _, s := range scs {
		if s.Name == "image-tag-typo" {
			typo = s
		}
	}
	srv := llmtest.NewServer(
		llmtest.ForSchema(llm.SchemaPlan, llmtest.JSON(map[string]any{"reasoning": "r", "tasks": []map[string]any{{
			"id": "events", "type": "Investigate", "description": "Why is the new ReplicaSet not ready?", "tool": "", "args": []any{}, "dependsOn": []string{}}}})),
		onToolTurns(llmtest.Calls(llmtest.CallTool("k8s_events", map[string]any{}), llmtest.CallTool("k8s_rollout_history", map[string]any{}))),
		onToolTurns(llmtest.Text("The image tag v2.10.0x does not exist [i1-t1-e1] [i1-t1-e2].")),
		llmtest.ForSchema(llm.SchemaVerdict, llmtest.JSON(map[string]any{"decision": "pass", "feedback": "f", "nextSteps": []string{}})),
		llmtest.ForSchema(llm.SchemaConclusion, llmtest.JSON(map[string]any{"summary": "Revision 8 of api points at registry.example/api:v2.10.0x, a tag that does not exist.", "category": "ImagePull", "confidence": 90,
			"culprit": map[string]any{"kind": "Deployment", "name": "api"}, "affectedObjects": []any{}, "evidenceIds": []string{"i1-t1-e1", "i1-t1-e2"},
			"knowledgeCitations": []string{}, "chain": []string{}, "remediation": map[string]any{"actions": []any{}, "validationSteps": []string{}}})),
	)
	defer srv.Close()
	rep, err := RunEval(context.Background(), llm.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, []Scenario{typo}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Scenarios[0]; !r.Pass || r.ToolsUsed["k8s_events"] != 1 || r.Usage.ToolCalls != 2 {
		t.Fatalf("%+v", r)
	}
}

func TestParseScenarioRejectsBadFixtures(t *testing.T) {
	for in, want := range map[string]string{
		"name: x\nsession: {problem: p, namespace: n}\nexpect: {}\nbogus: 1": "bogus",
		"session: {problem: p, namespace: n}":                                "name is required",
		"name: x\nsession: {problem: p}":                                     "namespace",
		"name: x\nsession: {problem: p, namespace: n}\ntools: [{output: x}]": "tools[0].name",
	} {
		if _, err := ParseScenario([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%q: want %q, got %v", in, want, err)
		}
	}
}

// onToolTurns routes a scripted reply to the investigator's tool-calling turns.
func onToolTurns(r llmtest.Reply) llmtest.Reply {
	r.When = func(req llmtest.Request) bool { return len(req.Chat.Tools) > 0 || req.ToolResults() > 0 }
	return r
}

// The rule engine's recorded conclusions are scored with the same checks, per class and
// split; a culprit counts when it is named among the affected objects.
func TestScoreRuleEngineByClassAndSplit(t *testing.T) {
	want := []agent.ObjectRef{{Kind: "ConfigMap", Name: "settings"}, {Kind: "deploy", Name: "web"}}
	named := &agent.RootCause{Summary: "ConfigMap settings is missing", Culprit: agent.ObjectRef{Kind: "ConfigMap", Name: "settings"},
		AffectedObjects: []agent.ObjectRef{{Kind: "Deployment", Namespace: "shop", Name: "web"}}}
	missed := &agent.RootCause{Summary: "pods restart", Culprit: agent.ObjectRef{Kind: "Deployment", Name: "web"}}
	scs := []Scenario{
		{Name: "a", Class: "reference", Split: "tune", RuleEngine: named, Expect: Expectation{Culprits: want, SummaryContains: []string{"missing"}}},
		{Name: "b", Class: "reference", Split: "heldout", RuleEngine: missed, Expect: Expectation{Culprits: want}},
		{Name: "c", Class: "clue", Split: "heldout"},
	}
	b := ScoreRuleEngine(scs)
	if b == nil || b.Total != 2 || b.Passed != 1 || b.ByClass["reference"].PassRate != 50 || b.BySplit["tune"].Passed != 1 || b.BySplit["heldout"].Passed != 0 {
		t.Fatalf("%+v", b)
	}
	if f := b.Failed["b"]; len(f) != 1 || !strings.Contains(f[0], "ConfigMap/settings") {
		t.Fatalf("failures %v", f)
	}
	if ScoreRuleEngine(scs[2:]) != nil {
		t.Fatalf("no recorded conclusion, no baseline")
	}
}
