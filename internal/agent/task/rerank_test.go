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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

// rerankInstructions starts the reranker's system prompt (retrieval.modelRerankInstructions).
const rerankInstructions = "You order documentation passages"

func isRerank(req llmtest.Request) bool {
	return len(req.Chat.Messages) > 0 && strings.HasPrefix(req.Chat.Messages[0].Content, rerankInstructions)
}

// runbooks is a knowledge service holding two runbooks that both match "api restarts".
func runbooks(t *testing.T) *knowledge.Service {
	t.Helper()
	s := knowledge.NewService(knowledge.Options{})
	_, err := s.Index(context.Background(), knowledge.SourceConfig{Namespace: ns, Name: "runbooks", TrustLevel: 3, Source: &kbbuild.ConfigMapSource{Data: map[string]string{
		"crash.md": "# API restarts\n\nThe api container restarts when its liveness probe fails; check the probe.\n",
		"oom.md":   "# Out of memory\n\nThe api restarts after an OOM kill; raise its memory limit.\n",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// knowledgeTaskWith runs a knowledge task on a session whose model is srv, over the runbooks.
func knowledgeTaskWith(t *testing.T, srv *llmtest.Server, secret map[string]string) agent.TaskResult {
	t.Helper()
	data := map[string][]byte{"baseURL": []byte(srv.BaseURL()), "model": []byte("m"), "apiKey": []byte("sk-rerank-key-7")}
	for k, v := range secret {
		data[k] = []byte(v)
	}
	e := env(data)
	e.Knowledge = runbooks(t)
	e.Pool = &llm.Pool{} // a breaker of its own: earlier failures must not skip the call
	inv := &Investigator{Env: e}
	return agent.RunTask(context.Background(), inv, session(&agent.BrainConfig{Model: &modelRef}),
		agent.Task{ID: "i1-t4", Type: agent.TaskKnowledge, Description: "api restarts"})
}

func knowledgeOrder(res agent.TaskResult) []string {
	var out []string
	for _, ev := range res.Evidence {
		out = append(out, ev.Source.Query)
	}
	return out
}

// The session's model reranks the knowledge through the brain's client: its tokens are
// in the task's usage, which the session adds to status.usage.
func TestTheSessionsModelReranksKnowledge(t *testing.T) {
	g := NewWithT(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDialect(llmtest.Dialect{RejectTemperature: true})
	plain := knowledgeTaskWith(t, srv, map[string]string{"maxRetries": "0"})
	g.Expect(plain.Error).To(BeEmpty(), plain.Summary)
	base := knowledgeOrder(plain)
	g.Expect(len(base)).To(BeNumerically(">=", 2), "both runbooks are found: %v", base)
	g.Expect(srv.Requests()).NotTo(BeEmpty())
	for _, r := range srv.Requests() {
		g.Expect(isRerank(r)).To(BeTrue(), "a knowledge task asks the model only to rerank")
	}
	// That first run had no scripted reply (the server answered an error); now the model puts the deterministic second first.
	before := len(srv.Requests())
	srv.Push(llmtest.Reply{Content: `{"ranking":[1,0]}`, Usage: &llmtest.Usage{PromptTokens: 300, CompletionTokens: 9}})
	res := knowledgeTaskWith(t, srv, nil)
	g.Expect(res.Error).To(BeEmpty(), res.Summary)
	got := knowledgeOrder(res)
	g.Expect(got[0]).To(Equal(base[1]), "the model's order is used")
	g.Expect(srv.Remaining()).To(BeZero())
	reqs := srv.Requests()[before:]
	g.Expect(reqs).NotTo(BeEmpty())
	last := reqs[len(reqs)-1]
	g.Expect(isRerank(last)).To(BeTrue())
	g.Expect(last.Chat.Temperature).To(BeNil(), "the brain's dialect drops the temperature this endpoint rejects")
	g.Expect(last.Chat.MaxTokens).To(BeNumerically(">", 0))
	g.Expect(last.Chat.MaxTokens).To(BeNumerically("<=", 200), "the rerank reply is bounded")
	g.Expect(last.Text()).NotTo(ContainSubstring("sk-rerank-key-7"))
	g.Expect(res.Usage).NotTo(BeNil())
	g.Expect(res.Usage.LLMCalls).To(Equal(int64(1)))
	g.Expect(res.Usage.PromptTokens).To(Equal(int64(300)), "the rerank's tokens are the session's")
	g.Expect(res.Usage.CompletionTokens).To(Equal(int64(9)))
}

func TestARerankThatFailsKeepsTheDeterministicOrder(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	base := knowledgeOrder(knowledgeTaskWith(t, srv, map[string]string{"maxRetries": "0"}))
	if len(base) < 2 {
		t.Fatalf("both runbooks are found: %v", base)
	}
	for name, c := range map[string]struct {
		reply  llmtest.Reply
		secret map[string]string
	}{
		"malformed JSON": {llmtest.Text(`{"ranking":[1,`), nil},
		"prose":          {llmtest.Text("The second passage is best."), nil},
		"malformed body": {llmtest.Malformed(), map[string]string{"maxRetries": "0"}},
		"rate limited":   {llmtest.TooMany(time.Millisecond), map[string]string{"maxRetries": "0"}},
		"timeout":        {llmtest.Slow(3*time.Second, llmtest.Text(`{"ranking":[1,0]}`)), map[string]string{"maxRetries": "0", "timeout": "200ms"}},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			srv.Push(c.reply)
			before := len(srv.Requests())
			start := time.Now()
			res := knowledgeTaskWith(t, srv, c.secret)
			g.Expect(srv.Remaining()).To(BeZero(), "the scripted reply was consumed")
			reqs := srv.Requests()[before:]
			g.Expect(reqs).To(HaveLen(1))
			g.Expect(isRerank(reqs[0])).To(BeTrue(), "the model was asked to rerank")
			g.Expect(res.Error).To(BeEmpty(), res.Summary)
			g.Expect(res.Degraded).To(BeNil(), "a failed rerank does not degrade the session")
			g.Expect(knowledgeOrder(res)).To(Equal(base))
			g.Expect(time.Since(start)).To(BeNumerically("<", 2*time.Second))
			g.Expect(res.Usage).NotTo(BeNil())
			g.Expect(res.Usage.LLMCalls).To(BeNumerically("<=", 1))
		})
	}
}
