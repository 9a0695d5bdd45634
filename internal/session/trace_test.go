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

package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/agent/task"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/internal/telemetry"
	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/test/fakes/llmtest"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A whole session through the real engine is one trace: the session's root span, a span
// per phase step, the tasks under the phase that started them, and the model calls and
// the model's tool calls under the step or task that made them.
func TestASessionIsOneTrace(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	t.Cleanup(telemetry.Install(telemetry.NewProvider(rec, telemetry.Options{})))

	srv := llmtest.NewServer(
		llmtest.ForSchema(llm.SchemaPlan, llmtest.JSON(map[string]any{"reasoning": "r", "tasks": []map[string]any{{
			"id": "events", "type": "Investigate", "description": "Read the warning events.",
			"tool": "", "args": []any{}, "dependsOn": []string{}}}})),
		onToolTurns(llmtest.Calls(llmtest.Call{ID: "call-1", Name: "k8s_events", Arguments: `{"warningsOnly":true}`})),
		onToolTurns(llmtest.Text("The container exits with code 1 [i1-t2-e1].")),
	)
	srv.SetAuto(llmtest.SchemaResponder)
	defer srv.Close()
	objs := crashingWeb()
	cs := fake.NewClientset(objs...)
	rules := agent.NewRuleEngine(cs)
	rules.Now = func() time.Time { return fx.Now }
	brain, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", APIKey: "sk-test-0123456789abcdefXYZ",
		Timeout: 5 * time.Second, RetryBaseDelay: time.Millisecond, MaxRetries: 1},
		llm.Options{Fallback: rules, Tools: llm.BuiltinTools(tools.BuiltinFor(tools.NewClient(cs, tools.Scope{Namespace: goldenNS}))),
			Redactor: redact.New([]byte("k")), Pool: &llm.Pool{}})
	if err != nil {
		t.Fatal(err)
	}
	// Tasks run as the operator runs them: the one task implementation builds the
	// session's model brain from the model Secret named in the request.
	model := map[string][]byte{llm.KeyBaseURL: []byte(srv.BaseURL()), llm.KeyModel: []byte("scripted"), llm.KeyAPIKey: []byte("sk-test-0123456789abcdefXYZ")}
	inv := &task.Investigator{Env: &task.Env{Client: cs, Rules: rules, Pool: &llm.Pool{},
		ModelSecret: func(context.Context, agent.SecretRef) (map[string][]byte, error) { return model, nil }}}
	s := agent.Session{ID: goldenNS + "/web", Namespace: goldenNS, Target: &agent.Target{Kind: "Deployment", Name: "web"}}
	state := fake.NewClientset()
	local := &session.Local{Client: cs, State: state, Brain: brain, Investigator: inv,
		BrainConfig: &agent.BrainConfig{Model: &agent.SecretRef{Namespace: goldenNS, Name: "model"}}}
	if _, err := local.Run(context.Background(), s, agent.Budget{MaxIterations: 2, Parallelism: 1}); err != nil {
		t.Fatal(err)
	}

	spans := rec.Ended()
	var root sdktrace.ReadOnlySpan
	byID := map[string]sdktrace.ReadOnlySpan{}
	count := map[string]int{}
	for _, sp := range spans {
		byID[sp.SpanContext().SpanID().String()] = sp
		kind, _, _ := strings.Cut(sp.Name(), " ")
		count[kind]++
		if sp.Name() == "session" {
			root = sp
		}
	}
	if root == nil {
		t.Fatalf("no session span among %d", len(spans))
	}
	for _, want := range []string{"phase Pending", "phase Planning", "phase Investigating", "phase Summarizing"} {
		if count["phase"] == 0 || !hasSpan(spans, want) {
			t.Fatalf("no %q span; counts %v", want, count)
		}
	}
	t.Logf("span counts %v", count)
	// The report names the trace, so a reader can open it.
	cms, err := state.CoreV1().ConfigMaps(goldenNS).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, cm := range cms.Items {
		for _, v := range cm.Data {
			named = named || strings.Contains(v, root.SpanContext().TraceID().String())
		}
	}
	if !named {
		t.Fatalf("no report names trace %s", root.SpanContext().TraceID())
	}
	if count["task"] == 0 || count["chat"] < 3 || count["tool"] == 0 {
		t.Fatalf("span counts %v: want tasks, model calls and a tool call", count)
	}
	for _, sp := range spans {
		if sp.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Fatalf("span %q is in trace %s, not the session's %s", sp.Name(), sp.SpanContext().TraceID(), root.SpanContext().TraceID())
		}
		// Every span hangs, through its parents, from the session's root span.
		at, hops := sp, 0
		for at != root {
			parent, ok := byID[at.Parent().SpanID().String()]
			if !ok || hops > 6 {
				t.Fatalf("span %q does not lead up to the session span (stuck at %q)", sp.Name(), at.Name())
			}
			at, hops = parent, hops+1
		}
		switch kind, _, _ := strings.Cut(sp.Name(), " "); kind {
		case "phase":
			if byID[sp.Parent().SpanID().String()] != root {
				t.Fatalf("phase span %q is not a child of the session", sp.Name())
			}
		case "task":
			if !strings.HasPrefix(byID[sp.Parent().SpanID().String()].Name(), "phase ") {
				t.Fatalf("task span %q is not under a phase", sp.Name())
			}
		}
	}
}

func hasSpan(spans []sdktrace.ReadOnlySpan, name string) bool {
	for _, s := range spans {
		if s.Name() == name {
			return true
		}
	}
	return false
}
