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

package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url string, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp, out
}

const chat = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

func TestScriptPlaysInOrderAndRecords(t *testing.T) {
	s := NewServer(Text("one"), Calls(CallTool("a", map[string]any{"x": 1}), CallTool("b", "{bad")), TooMany(2*time.Second), Truncated("cut"))
	defer s.Close()
	_, out := post(t, s.BaseURL(), chat)
	if got := content(out); got != "one" {
		t.Fatalf("first reply %q", got)
	}
	_, out = post(t, s.BaseURL(), chat)
	msg := out["choices"].([]any)[0].(map[string]any)
	calls := msg["message"].(map[string]any)["tool_calls"].([]any)
	if len(calls) != 2 || msg["finish_reason"] != "tool_calls" {
		t.Fatalf("want two parallel calls, got %v", msg)
	}
	if args := calls[1].(map[string]any)["function"].(map[string]any)["arguments"]; args != "{bad" {
		t.Fatalf("malformed arguments must be sent verbatim, got %v", args)
	}
	resp, _ := post(t, s.BaseURL(), chat)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("want 429 with Retry-After 2, got %d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	_, out = post(t, s.BaseURL(), chat)
	if out["choices"].([]any)[0].(map[string]any)["finish_reason"] != "length" {
		t.Fatalf("want finish_reason length: %v", out)
	}
	resp, _ = post(t, s.BaseURL(), chat)
	if resp.StatusCode != 500 {
		t.Fatalf("an exhausted script must answer 500, got %d", resp.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 5 || reqs[0].Chat.Model != "m" || reqs[4].Seq != 5 || reqs[0].LastUser() != "hi" {
		t.Fatalf("recorded %d requests: %+v", len(reqs), reqs)
	}
}

func content(out map[string]any) string {
	return out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
}

func TestWhenRoutesReplies(t *testing.T) {
	s := NewServer(ForSchema("plan", Text("plan-reply")), Text("other"))
	defer s.Close()
	_, out := post(t, s.BaseURL(), chat)
	if content(out) != "other" {
		t.Fatalf("unmatched request must take the next unrestricted reply: %v", out)
	}
	_, out = post(t, s.BaseURL(), `{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"plan","schema":{}}}}`)
	if content(out) != "plan-reply" || s.Remaining() != 0 {
		t.Fatalf("schema-routed reply not played: %v", out)
	}
}

func TestSlowReplyEndsWithTheClient(t *testing.T) {
	s := NewServer(Slow(time.Minute, Text("late")))
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL()+"/chat/completions", strings.NewReader(chat))
	start := time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a deadline error, got %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("slow reply held the client for %s", time.Since(start))
	}
}

func TestRequireKey(t *testing.T) {
	s := NewServer(Text("x"))
	defer s.Close()
	s.RequireKey("other")
	resp, _ := post(t, s.BaseURL(), chat)
	if resp.StatusCode != 401 || s.Remaining() != 1 {
		t.Fatalf("want 401 without consuming the script, got %d (remaining %d)", resp.StatusCode, s.Remaining())
	}
}

func TestMalformedBodyAndBadRequest(t *testing.T) {
	s := NewServer(Malformed())
	defer s.Close()
	resp, _ := post(t, s.BaseURL(), chat)
	if resp.StatusCode != 200 {
		t.Fatalf("malformed reply status %d", resp.StatusCode)
	}
	resp, _ = post(t, s.BaseURL(), `{not json`)
	if resp.StatusCode != 400 || s.Requests()[1].DecodeError == "" {
		t.Fatalf("an undecodable request must be recorded and refused, got %d", resp.StatusCode)
	}
}

func TestSchemaResponder(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.SetAuto(SchemaResponder)
	schema := `{"type":"object","properties":{"decision":{"type":"string","enum":["pass","fail"]},"category":{"type":"string","pattern":"^[A-Z][A-Za-z0-9]*$"},"confidence":{"type":"integer","minimum":0},"steps":{"type":"array","minItems":1,"items":{"type":"string"}},"note":{"type":["null","string"]}},"required":["decision"]}`
	_, out := post(t, s.BaseURL(), `{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":`+schema+`}}}`)
	var got map[string]any
	if err := json.Unmarshal([]byte(content(out)), &got); err != nil {
		t.Fatal(err)
	}
	if got["decision"] != "pass" || got["category"] != "Auto" || got["confidence"] != float64(0) || len(got["steps"].([]any)) != 1 || got["note"] != "Auto" {
		t.Fatalf("synthesized %v", got)
	}
	_, out = post(t, s.BaseURL(), `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"needs","parameters":{"required":["x"]}}},{"type":"function","function":{"name":"free","parameters":{}}}]}`)
	calls := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["tool_calls"].([]any)
	if calls[0].(map[string]any)["function"].(map[string]any)["name"] != "free" {
		t.Fatalf("auto should call the first tool without required arguments: %v", calls)
	}
	_, out = post(t, s.BaseURL(), `{"model":"m","messages":[{"role":"tool","tool_call_id":"c","content":"r"}],"tools":[{"type":"function","function":{"name":"free"}}]}`)
	if content(out) != "done" {
		t.Fatalf("after a tool result auto should answer, got %v", out)
	}
}
