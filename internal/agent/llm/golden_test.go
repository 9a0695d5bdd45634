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
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/test/fakes/llmtest"
	fx "github.com/kubage/kubage/test/fixtures"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// renderRequest is a readable rendering of one request: messages, offered tools and
// the structured-output schema.
func renderRequest(r llmtest.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "model: %s  max_tokens: %d\n", r.Chat.Model, r.Chat.MaxTokens)
	if rf := r.Chat.ResponseFormat; rf != nil {
		fmt.Fprintf(&b, "response_format: %s", rf.Type)
		if rf.JSONSchema != nil {
			var pretty bytes.Buffer
			_ = json.Indent(&pretty, rf.JSONSchema.Schema, "", "  ")
			fmt.Fprintf(&b, " %s strict=%v\n%s", rf.JSONSchema.Name, rf.JSONSchema.Strict, pretty.String())
		}
		b.WriteString("\n")
	}
	if len(r.Chat.Tools) > 0 {
		b.WriteString("tools: " + strings.Join(r.ToolNames(), ", ") + "\n")
	}
	for _, m := range r.Chat.Messages {
		fmt.Fprintf(&b, "\n### %s", m.Role)
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " (%s)", m.ToolCallID)
		}
		b.WriteString("\n" + m.Content + "\n")
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "-> call %s %s(%s)\n", tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs from the rendered prompt (go test -update rewrites it); got:\n%s", path, got)
	}
}

// TestGoldenPrompts pins the four prompts of a session (plan, investigation loop,
// judgement, summary) as the model receives them.
func TestGoldenPrompts(t *testing.T) {
	e := newEnv(t,
		plan(investigateTask("events", "Why does the web container exit? Read the warning events.", "i1-t1")),
		withTools(llmtest.Calls(llmtest.Call{ID: "call-1", Name: "k8s_events", Arguments: `{"warningsOnly":true}`})),
		withTools(llmtest.Text("The container exits with code 1 [i1-t2-e1].")),
		verdict("pass"),
		verdict("pass"),
		summary(conclusion("CrashLoopBackOff", "i1-t2-e1")),
	)
	from := fx.Now.Add(-3600e9)
	s := e.session()
	s.TimeRange = &agent.TimeRange{From: &from}
	s.Hints = []string{"runbook: https://runbooks.example/web", "alert WebDown firing"}
	if _, _, err := agent.RunSession(t.Context(), e.brain, s, agent.InProcessRunner{Investigator: e.brain, Parallelism: 1}, agent.Budget{MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	byName := map[string]llmtest.Request{}
	for _, r := range e.srv.Requests() {
		name := r.SchemaName()
		if name == "" {
			name = fmt.Sprintf("investigate-%d", r.ToolResults())
		}
		if _, seen := byName[name]; !seen {
			byName[name] = r
		}
	}
	for name, file := range map[string]string{
		SchemaPlan: "plan.txt", "investigate-1": "investigate.txt", SchemaVerdict: "judge.txt", SchemaConclusion: "summarize.txt",
	} {
		r, ok := byName[name]
		if !ok {
			t.Fatalf("no %s request recorded", name)
		}
		golden(t, file, renderRequest(r))
	}
}
