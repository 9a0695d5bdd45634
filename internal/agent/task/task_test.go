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

package task

import (
	"context"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

const ns = "shop"

var modelRef = agent.SecretRef{Namespace: ns, Name: "model"}

func session(brain *agent.BrainConfig) agent.Session {
	return agent.Session{ID: ns + "/api-down", Problem: "api keeps restarting", Namespace: ns, Brain: brain}
}

func warningEvent() *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: "api.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "api-1"},
		Type:           corev1.EventTypeWarning, Reason: "BackOff", Message: "Back-off restarting failed container", Count: 5,
	}
}

// env is a task environment whose model Secret holds data (nil: the Secret is missing).
func env(data map[string][]byte) *Env {
	return &Env{Client: fake.NewClientset(warningEvent()), ModelSecret: func(_ context.Context, ref agent.SecretRef) (map[string][]byte, error) {
		if data == nil {
			return nil, fmt.Errorf("%w: secrets %q not found", ErrModelUnavailable, ref.Name)
		}
		return data, nil
	}}
}

func TestTasksWithoutAModelRunOnTheRules(t *testing.T) {
	g := NewWithT(t)
	e := env(nil)
	inv := &Investigator{Env: e}
	res := agent.RunTask(context.Background(), inv, session(nil), agent.Task{ID: "i1-t1", Type: agent.TaskInvestigate, Description: "why?"})
	g.Expect(res.Usage).To(BeNil(), "no model, nothing to account")
	g.Expect(res.Degraded).To(BeNil())
	b, err := e.Brain(context.Background(), ns, &agent.BrainConfig{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(b).To(BeIdenticalTo(e.Rules))
}

func TestAnUnusableModelSecretDegradesToTheRules(t *testing.T) {
	g := NewWithT(t)
	for name, data := range map[string]map[string][]byte{
		"missing": nil,
		"invalid": {"baseURL": []byte("ftp://nowhere"), "apiKey": []byte("sk-secret-1")},
	} {
		inv := &Investigator{Env: env(data)}
		res := agent.RunTask(context.Background(), inv, session(&agent.BrainConfig{Model: &modelRef}), agent.Task{ID: "i1-t1", Type: agent.TaskInvestigate, Description: "why?"})
		g.Expect(res.Degraded).NotTo(BeNil(), name)
		g.Expect(res.Degraded.Reason).To(Equal(ReasonModelSecretInvalid), name)
		g.Expect(res.Degraded.Message).To(ContainSubstring("shop/model"), name)
		g.Expect(res.Degraded.Message).NotTo(ContainSubstring("sk-secret-1"), name)
		g.Expect(res.Usage).To(Equal(&agent.Usage{}), name)
	}
}

func TestAModelTaskReportsItsUsage(t *testing.T) {
	g := NewWithT(t)
	srv := llmtest.NewServer(
		llmtest.Reply{ToolCalls: []llmtest.Call{llmtest.CallTool("k8s_events", map[string]any{"warningsOnly": true})}, Usage: &llmtest.Usage{PromptTokens: 50, CompletionTokens: 5}},
		llmtest.Reply{Content: "The pod api-1 is backing off.", Usage: &llmtest.Usage{PromptTokens: 80, CompletionTokens: 12}},
	)
	defer srv.Close()
	e := env(map[string][]byte{"baseURL": []byte(srv.BaseURL()), "model": []byte("m"), "apiKey": []byte("sk-test-key-42")})
	inv := &Investigator{Env: e}
	res := agent.RunTask(context.Background(), inv, session(&agent.BrainConfig{Model: &modelRef, RedactionKey: []byte("session-key")}),
		agent.Task{ID: "i1-t2", Type: agent.TaskInvestigate, Description: "Which object do the warning events implicate?"})
	g.Expect(res.Error).To(BeEmpty(), res.Summary)
	g.Expect(res.Degraded).To(BeNil())
	g.Expect(res.Usage).To(Equal(&agent.Usage{LLMCalls: 2, PromptTokens: 130, CompletionTokens: 17, ToolCalls: int64(len(res.ToolCalls))}))
	g.Expect(res.ToolCalls).NotTo(BeEmpty())
	for _, r := range srv.Requests() {
		g.Expect(r.Text()).NotTo(ContainSubstring("sk-test-key-42"))
	}
}

// staticKnowledge answers every search with one runbook passage and records the queries.
type staticKnowledge struct{ queries []knowledge.Query }

func (k *staticKnowledge) Search(_ context.Context, q knowledge.Query) (*knowledge.Answer, error) {
	k.queries = append(k.queries, q)
	return &knowledge.Answer{Sources: 1, Snippets: []knowledge.Snippet{{
		Citation: knowledge.Citation{Namespace: q.Namespace, Source: "runbooks", Path: "db.md"}, Title: "Database", Text: "check DATABASE_URL",
	}}}, nil
}

func TestAKnowledgeTaskSearchesTheSessionsSources(t *testing.T) {
	g := NewWithT(t)
	e := env(map[string][]byte{"baseURL": []byte("http://127.0.0.1:1/v1"), "model": []byte("m")})
	k := &staticKnowledge{}
	e.Knowledge = k
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "shop"}}
	inv := &Investigator{Env: e}
	res := agent.RunTask(context.Background(), inv, session(&agent.BrainConfig{Model: &modelRef, KnowledgeSources: sel}),
		agent.Task{ID: "i1-t3", Type: agent.TaskKnowledge, Description: "cannot connect to database"})
	g.Expect(res.Error).To(BeEmpty(), res.Summary)
	g.Expect(res.Evidence).To(ContainElement(HaveField("Source.Kind", agent.SourceKnowledge)))
	g.Expect(k.queries).NotTo(BeEmpty())
	g.Expect(k.queries[0].Namespace).To(Equal(ns))
	g.Expect(k.queries[0].Selector).To(Equal(sel))
	g.Expect(res.Usage).To(Equal(&agent.Usage{ToolCalls: 1}), "a knowledge search asks no model")
}
