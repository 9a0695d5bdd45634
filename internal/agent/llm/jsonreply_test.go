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
	"strings"
	"testing"
	"time"

	"github.com/kubage/kubage/test/fakes/llmtest"
)

func TestJSONReplyIsBoundedRedactedAndAccounted(t *testing.T) {
	e := newEnv(t, llmtest.Reply{Content: `{"ranking":[1,0]}`, Usage: &llmtest.Usage{PromptTokens: 120, CompletionTokens: 6}})
	got, err := e.brain.JSONReply(context.Background(), "Order the passages.", "Question: web restarts, key "+testAPIKey+"\n[0] a\n[1] b", 200)
	if err != nil || got != `{"ranking":[1,0]}` {
		t.Fatalf("JSONReply = %q, %v", got, err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	c := reqs[0].Chat
	if c.MaxTokens != 200 || c.ResponseFormat == nil || c.ResponseFormat.Type != "json_object" || len(c.Tools) != 0 {
		t.Errorf("request not bounded to a JSON answer: max_tokens %d, format %+v, %d tools", c.MaxTokens, c.ResponseFormat, len(c.Tools))
	}
	if strings.Contains(string(reqs[0].Body), testAPIKey) {
		t.Error("the API key reached the model")
	}
	if u := e.brain.Usage(); u.LLMCalls != 1 || u.PromptTokens != 120 || u.CompletionTokens != 6 {
		t.Errorf("usage %+v, want the call and its tokens", u)
	}
	if _, _, degraded := e.brain.TakeDegraded(); degraded {
		t.Error("a JSON reply degraded the brain")
	}
	// A bound above the brain's own output bound is held to the brain's.
	e.srv.Push(llmtest.Text(`{}`))
	if _, err := e.brain.JSONReply(context.Background(), "s", "u", 1<<20); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.Requests()[1].Chat.MaxTokens; got != e.brain.Config().MaxOutputTokens {
		t.Errorf("max_tokens %d, want the brain's bound %d", got, e.brain.Config().MaxOutputTokens)
	}
}

func TestJSONReplySpeaksTheEndpointsDialect(t *testing.T) {
	e := newEnv(t, llmtest.Text(`{"ranking":[0]}`))
	e.srv.SetDialect(llmtest.Dialect{RequireCompletionTokens: true, RejectTemperature: true})
	b := e.secretBrain(map[string]string{KeyModel: "prod-reasoner", KeyAPIKey: testAPIKey})
	if _, err := b.JSONReply(context.Background(), "s", "u", 150); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1].Chat
	if last.MaxCompletionTokens != 150 || last.MaxTokens != 0 || last.Temperature != nil {
		t.Fatalf("the accepted request: max_completion_tokens %d, max_tokens %d, temperature %v", last.MaxCompletionTokens, last.MaxTokens, last.Temperature)
	}
	if u := b.Usage(); u.LLMCalls != 1 || u.HTTPAttempts != int64(len(reqs)) {
		t.Errorf("usage %+v after %d attempts", u, len(reqs))
	}
}

func TestJSONReplyRetriesAndFails(t *testing.T) {
	// A 429 is retried as every call of the brain is.
	e := newEnv(t, llmtest.TooMany(time.Millisecond), llmtest.Text(`{"ranking":[0]}`))
	if got, err := e.brain.JSONReply(context.Background(), "s", "u", 100); err != nil || got != `{"ranking":[0]}` {
		t.Fatalf("after a 429: %q, %v", got, err)
	}
	if u := e.brain.Usage(); u.HTTPAttempts != 2 || u.LLMCalls != 1 {
		t.Errorf("usage %+v: one call, two attempts", u)
	}
	// Past its retries the caller gets the error (and falls back on its own).
	e.srv.Push(llmtest.TooMany(time.Millisecond), llmtest.TooMany(time.Millisecond), llmtest.TooMany(time.Millisecond))
	if _, err := e.brain.JSONReply(context.Background(), "s", "u", 100); err == nil {
		t.Fatal("a rate-limited call succeeded")
	}
	// A reply cut at the bound is an error, not half a ranking.
	e.srv.Push(llmtest.Truncated(`{"ranking":[1,`))
	if _, err := e.brain.JSONReply(context.Background(), "s", "u", 100); !errors.Is(err, errTruncated) {
		t.Fatalf("truncated reply: %v", err)
	}
	// A slow endpoint is bounded by the caller's deadline.
	e.srv.Push(llmtest.Slow(2*time.Second, llmtest.Text(`{}`)))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := e.brain.JSONReply(ctx, "s", "u", 100); err == nil || time.Since(start) > time.Second {
		t.Fatalf("slow reply: %v after %v", err, time.Since(start))
	}
	if _, _, degraded := e.brain.TakeDegraded(); degraded {
		t.Error("failed JSON replies degraded the brain")
	}
}
