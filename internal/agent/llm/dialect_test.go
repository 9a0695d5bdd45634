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
	"strings"
	"testing"
	"time"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

// secretBrain builds a brain from model Secret data the way a session does, over the env's server.
func (e *testEnv) secretBrain(data map[string]string) *LLMBrain {
	e.t.Helper()
	raw := map[string][]byte{KeyModel: []byte("scripted"), KeyMaxRetries: []byte("1")}
	for k, v := range data {
		raw[k] = []byte(v)
	}
	if _, ok := data[KeyBaseURL]; !ok {
		raw[KeyBaseURL] = []byte(e.srv.BaseURL())
	}
	cfg, err := ConfigFromSecretData(raw)
	if err != nil {
		e.t.Fatalf("ConfigFromSecretData: %v", err)
	}
	cfg.RetryBaseDelay, cfg.Timeout = time.Millisecond, 5*time.Second
	b, err := New(cfg, Options{Fallback: ruleEngine(e.cs), Tools: e.tools, Redactor: redact.New([]byte("test-key")), Pool: e.pool})
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

func summarizeWith(t *testing.T, b *LLMBrain, e *testEnv) agent.Conclusion {
	t.Helper()
	c, err := b.Summarize(context.Background(), e.session(), agent.Progress{Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, reason, degraded := b.TakeDegraded(); degraded {
		t.Fatalf("degraded: %s", reason)
	}
	return c
}

func TestAzureOpenAIDialect(t *testing.T) {
	e := newEnv(t, summary(conclusion("CrashLoop")))
	e.srv.SetDialect(llmtest.Dialect{AzureDeployment: "kubage-prod", AzureAPIVersion: DefaultAzureAPIVersion})
	e.srv.RequireKey("azure-key-1")
	b := e.secretBrain(map[string]string{KeyProvider: "AzureOpenAI", KeyBaseURL: e.srv.AzureBaseURL(),
		KeyModel: "gpt-4o", KeyDeployment: "kubage-prod", KeyAPIKey: "azure-key-1"})
	if c := summarizeWith(t, b, e); c.RootCause.Category != "CrashLoop" {
		t.Fatalf("conclusion %+v", c.RootCause)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/openai/deployments/kubage-prod/chat/completions" || r.Query.Get("api-version") != DefaultAzureAPIVersion {
		t.Fatalf("path %s query %v", r.Path, r.Query)
	}
	if r.Header.Get("api-key") != "azure-key-1" || r.Header.Get("Authorization") != "" {
		t.Fatalf("Azure takes the key in api-key only; headers %v", r.Header)
	}
}

func TestAzureOpenAIDeploymentDefaultsToModelAndNeedsAKey(t *testing.T) {
	e := newEnv(t, summary(conclusion("CrashLoop")))
	e.srv.SetDialect(llmtest.Dialect{AzureDeployment: "gpt-4o"})
	b := e.secretBrain(map[string]string{KeyProvider: "azure", KeyBaseURL: e.srv.AzureBaseURL(), KeyModel: "gpt-4o",
		KeyAPIKey: "k", KeyAPIVersion: "2025-04-01-preview"})
	summarizeWith(t, b, e)
	if q := e.srv.Requests()[0].Query.Get("api-version"); q != "2025-04-01-preview" {
		t.Fatalf("api-version %q", q)
	}
	_, err := ConfigFromSecretData(map[string][]byte{KeyProvider: []byte("AzureOpenAI"), KeyBaseURL: []byte("https://x.openai.azure.com"), KeyModel: []byte("m")})
	if err == nil || !strings.Contains(err.Error(), "apiKey is required for AzureOpenAI") {
		t.Fatalf("missing key: %v", err)
	}
	_, err = ConfigFromSecretData(map[string][]byte{KeyProvider: []byte("bedrock"), KeyBaseURL: []byte("https://x"), KeyModel: []byte("m")})
	if err == nil || !strings.Contains(err.Error(), "not one of OpenAI, AzureOpenAI, Ollama, vLLM") {
		t.Fatalf("unknown provider: %v", err)
	}
	_, err = ConfigFromSecretData(map[string][]byte{KeyBaseURL: []byte("https://x"), KeyModel: []byte("m"), KeyDeployment: []byte("d")})
	if err == nil || !strings.Contains(err.Error(), "apply to provider AzureOpenAI only") {
		t.Fatalf("deployment without Azure: %v", err)
	}
}

// Ollama and vLLM: no key (no Authorization header at all), no strict JSON schema.
func TestOllamaAndVLLMDialects(t *testing.T) {
	for _, provider := range []string{"Ollama", "vLLM"} {
		t.Run(provider, func(t *testing.T) {
			// JSON mode names no schema in the request, so the reply is not routed by schema.
			e := newEnv(t, llmtest.JSON(conclusion("CrashLoop")),
				withTools(llmtest.Calls(llmtest.Call{ID: "a", Name: "k8s_events", Arguments: `{}`})),
				withTools(llmtest.Text("done [i1-t2-e1]")))
			e.srv.SetDialect(llmtest.Dialect{RejectJSONSchema: true, OmitUsage: true})
			b := e.secretBrain(map[string]string{KeyProvider: provider, KeyModel: "llama3.1:8b"})
			summarizeWith(t, b, e)
			res, err := b.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t2", Type: agent.TaskInvestigate, Description: "look"})
			if err != nil || len(res.Evidence) != 1 {
				t.Fatalf("investigate: %v %+v", err, res.Evidence)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3 (no rejected json_schema round)", len(reqs))
			}
			if rf := reqs[0].Chat.ResponseFormat; rf == nil || rf.Type != "json_object" {
				t.Fatalf("structured reply must use JSON mode, got %+v", rf)
			}
			for _, r := range reqs {
				if h := r.Header.Get("Authorization"); h != "" {
					t.Fatalf("keyless server got Authorization %q", h)
				}
			}
			// Without usage in the reply the tokens are estimated, never zero.
			if u := b.Usage(); u.PromptTokens == 0 || u.CompletionTokens == 0 {
				t.Fatalf("usage %+v", u)
			}
		})
	}
}

// A server that refuses json_schema is remembered after one rejected request.
func TestJSONSchemaRejectionStepsDownOnce(t *testing.T) {
	e := newEnv(t, llmtest.JSON(conclusion("CrashLoop")), llmtest.JSON(conclusion("CrashLoop")))
	e.srv.SetDialect(llmtest.Dialect{RejectJSONSchema: true})
	b := e.secretBrain(map[string]string{KeyAPIKey: testAPIKey})
	e.srv.RequireKey(testAPIKey)
	summarizeWith(t, b, e)
	summarizeWith(t, b, e)
	var formats []string
	for _, r := range e.srv.Requests() {
		formats = append(formats, r.Chat.ResponseFormat.Type)
	}
	if strings.Join(formats, ",") != "json_schema,json_object,json_object" {
		t.Fatalf("formats %v", formats)
	}
}

// Newer OpenAI models take max_completion_tokens and no temperature; known families
// are sent so from the first request.
func TestReasoningModelsGetMaxCompletionTokens(t *testing.T) {
	e := newEnv(t, summary(conclusion("CrashLoop")))
	e.srv.SetDialect(llmtest.Dialect{RequireCompletionTokens: true, RejectTemperature: true})
	b := e.secretBrain(map[string]string{KeyModel: "gpt-5-mini", KeyAPIKey: testAPIKey, KeyMaxOutputTokens: "700"})
	summarizeWith(t, b, e)
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	c := reqs[0].Chat
	if c.MaxCompletionTokens != 700 || c.MaxTokens != 0 || c.Temperature != nil {
		t.Fatalf("max_completion_tokens %d max_tokens %d temperature %v", c.MaxCompletionTokens, c.MaxTokens, c.Temperature)
	}
}

// A deployment name that hides the model family is corrected by the server's first 400,
// once per endpoint: the next call is right from the start.
func TestDialectLearnedFromTheServersRejection(t *testing.T) {
	e := newEnv(t, summary(conclusion("CrashLoop")), summary(conclusion("CrashLoop")))
	e.srv.SetDialect(llmtest.Dialect{RequireCompletionTokens: true, RejectTemperature: true})
	b := e.secretBrain(map[string]string{KeyModel: "prod-reasoner", KeyAPIKey: testAPIKey})
	summarizeWith(t, b, e)
	summarizeWith(t, b, e)
	reqs := e.srv.Requests()
	var shape []string
	for _, r := range reqs {
		s := "max_tokens"
		if r.Chat.MaxCompletionTokens > 0 {
			s = "max_completion_tokens"
		}
		if r.Chat.Temperature != nil {
			s += "+temperature"
		}
		shape = append(shape, s)
	}
	want := "max_tokens+temperature,max_completion_tokens+temperature,max_completion_tokens,max_completion_tokens"
	if strings.Join(shape, ",") != want {
		t.Fatalf("requests %v, want %s", shape, want)
	}
	if u := b.Usage(); u.LLMCalls != 2 || u.HTTPAttempts != 4 {
		t.Fatalf("usage %+v: two calls, four HTTP attempts", u)
	}
	// An explicit tokenParameter is honoured from the first request.
	e2 := newEnv(t, summary(conclusion("CrashLoop")))
	e2.srv.SetDialect(llmtest.Dialect{RequireCompletionTokens: true})
	b2 := e2.secretBrain(map[string]string{KeyModel: "prod-reasoner", KeyTokenParameter: TokenParamMaxCompletionTokens})
	summarizeWith(t, b2, e2)
	if n := len(e2.srv.Requests()); n != 1 {
		t.Fatalf("%d requests with an explicit tokenParameter", n)
	}
}

// GPT-6 Sol calls tools over chat completions with reasoning_effort none.
func TestGPT6ToolCallsWithoutReasoning(t *testing.T) {
	e := newEnv(t, withTools(llmtest.Calls(llmtest.Call{ID: "a", Name: "k8s_events", Arguments: `{}`})),
		withTools(llmtest.Text("done [i1-t2-e1]")))
	b := e.secretBrain(map[string]string{KeyModel: "gpt-6-sol", KeyAPIKey: testAPIKey})
	res, err := b.Investigate(context.Background(), e.session(), agent.Task{ID: "i1-t2", Type: agent.TaskInvestigate, Description: "look"})
	if err != nil || len(res.Evidence) != 1 {
		t.Fatalf("investigate: %v %+v", err, res.Evidence)
	}
	for _, r := range e.srv.Requests() {
		if r.Chat.ReasoningEffort != "none" || r.Chat.MaxCompletionTokens == 0 || r.Chat.Temperature != nil {
			t.Fatalf("request %+v", r.Chat)
		}
	}
}
