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

// Package llmtest is a scripted OpenAI-compatible chat-completion server for tests,
// benchmarks and demos. It plays back replies queued by a test (text, tool calls,
// malformed JSON, HTTP errors with Retry-After, slow and truncated answers), records
// every request it receives so tests can assert what left the operator, and can answer
// on its own through a Responder when the script is empty.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Bounds of the server: it is a test double, but it must not grow without limit in a
// long benchmark or demo.
const (
	MaxRequestBytes = 8 << 20
	MaxRecorded     = 10000
)

// ChatRequest is the part of an OpenAI chat-completion request the server understands.
type ChatRequest struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Tools               []Tool          `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"`
	ResponseFormat      *ResponseFormat `json:"response_format,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	ParallelToolCalls   any             `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
}

// Message is one chat message.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// ToolCall is a function call requested by the assistant.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its JSON arguments as a string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool offered to the model.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function describes an offered function.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ResponseFormat is the structured-output request.
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is the schema of a json_schema response format.
type JSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict,omitempty"`
}

// Request is one recorded request.
type Request struct {
	// Seq numbers requests from 1 in arrival order.
	Seq    int
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	// Chat is the decoded body; DecodeError is set when the body did not decode.
	Chat        ChatRequest
	DecodeError string
	At          time.Time
	// Duration is how long the server took to answer (delays included); zero while the
	// request is in flight.
	Duration time.Duration
}

// Text is every message content, tool argument and tool description of the request,
// for assertions on what was sent.
func (r Request) Text() string { return string(r.Body) }

// LastUser is the content of the last user message.
func (r Request) LastUser() string {
	for i := len(r.Chat.Messages) - 1; i >= 0; i-- {
		if r.Chat.Messages[i].Role == "user" {
			return r.Chat.Messages[i].Content
		}
	}
	return ""
}

// SchemaName is the name of the requested json_schema response format, if any.
func (r Request) SchemaName() string {
	if rf := r.Chat.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		return rf.JSONSchema.Name
	}
	return ""
}

// ToolNames lists the offered tools.
func (r Request) ToolNames() []string {
	out := make([]string, 0, len(r.Chat.Tools))
	for _, t := range r.Chat.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// ToolResults counts the tool messages in the conversation.
func (r Request) ToolResults() int {
	n := 0
	for _, m := range r.Chat.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return n
}

// Call is a tool call the scripted assistant makes.
type Call struct {
	ID        string
	Name      string
	Arguments string
}

// Usage overrides the token counts of a reply.
type Usage struct {
	PromptTokens, CompletionTokens int
}

// Reply is one scripted answer.
type Reply struct {
	// Status is the HTTP status (200 when zero).
	Status int
	// RetryAfter is sent as the Retry-After header when set.
	RetryAfter string
	// Delay holds the answer back (the request's context ends it early).
	Delay time.Duration
	// Content is the assistant's text.
	Content string
	// ToolCalls are the assistant's tool calls (several for parallel calls).
	ToolCalls []Call
	// FinishReason is "stop" or "tool_calls" by default; "length" simulates truncation.
	FinishReason string
	// RawBody is sent verbatim instead of a generated body (for malformed responses).
	RawBody string
	// Usage overrides the approximate token counts.
	Usage *Usage
	// When restricts the reply to matching requests; nil matches any.
	When func(Request) bool
}

// Responder answers requests the script does not cover.
type Responder func(Request) Reply

// Server is a scripted OpenAI-compatible server.
type Server struct {
	*httptest.Server
	h *Handler
}

// NewServer starts a server that plays the given replies in order.
func NewServer(replies ...Reply) *Server {
	h := NewHandler(replies...)
	return &Server{Server: httptest.NewServer(h), h: h}
}

// BaseURL is the URL a client configures (the API root, ending in /v1).
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Push queues replies.
func (s *Server) Push(replies ...Reply) { s.h.Push(replies...) }

// SetAuto sets the responder used once the script is empty.
func (s *Server) SetAuto(r Responder) { s.h.SetAuto(r) }

// RequireKey makes the server answer 401 unless the request carries this API key.
func (s *Server) RequireKey(key string) { s.h.RequireKey(key) }

// Requests returns the recorded requests in arrival order.
func (s *Server) Requests() []Request { return s.h.Requests() }

// Remaining is the number of queued replies not played yet.
func (s *Server) Remaining() int { return s.h.Remaining() }

// Handler is the server's http.Handler, usable on its own (e.g. on a fixed address).
type Handler struct {
	mu      sync.Mutex
	script  []Reply
	reqs    []Request
	auto    Responder
	key     string
	seq     int
	dropped int
	dialect Dialect
}

// NewHandler returns a handler that plays the given replies in order.
func NewHandler(replies ...Reply) *Handler { return &Handler{script: append([]Reply(nil), replies...)} }

// Push queues replies.
func (h *Handler) Push(replies ...Reply) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.script = append(h.script, replies...)
}

// SetAuto sets the responder used once the script is empty.
func (h *Handler) SetAuto(r Responder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.auto = r
}

// RequireKey makes the handler answer 401 unless the request carries this API key.
func (h *Handler) RequireKey(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.key = key
}

// Requests returns the recorded requests in arrival order.
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.reqs...)
}

// Remaining is the number of queued replies not played yet.
func (h *Handler) Remaining() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.script)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{"id": "scripted", "object": "model"}}})
		return
	}
	h.mu.Lock()
	d := h.dialect
	h.mu.Unlock()
	if d.checkPath(w, r) {
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "not_found", "only POST .../chat/completions is served")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	if err != nil || len(body) > MaxRequestBytes {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "request body unreadable or too large")
		return
	}
	req := Request{Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body, At: time.Now()}
	defer func() { h.finish(req.Seq, time.Since(req.At)) }()
	if err := json.Unmarshal(body, &req.Chat); err != nil {
		req.DecodeError = err.Error()
	}
	h.mu.Lock()
	key := h.key
	h.mu.Unlock()
	if !d.keyOK(r, key) {
		h.record(&req)
		writeError(w, http.StatusUnauthorized, "invalid_api_key", "missing or wrong API key")
		return
	}
	if req.DecodeError == "" && d.rejectFields(w, req.Chat) {
		h.record(&req)
		return
	}
	reply, ok := h.next(&req)
	if req.DecodeError != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "body is not a chat request: "+req.DecodeError)
		return
	}
	if !ok {
		writeError(w, http.StatusInternalServerError, "script_exhausted", fmt.Sprintf("no scripted reply left for request %d", req.Seq))
		return
	}
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.RawBody != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.RawBody)
		return
	}
	if status >= 400 {
		writeError(w, status, fmt.Sprintf("http_%d", status), reply.Content)
		return
	}
	out := completion(req, reply)
	if d.OmitUsage {
		delete(out, "usage")
	}
	writeJSON(w, status, out)
}

// next records the request and picks its reply: the first queued reply that matches,
// else the auto responder.
func (h *Handler) next(req *Request) (Reply, bool) {
	h.mu.Lock()
	h.recordLocked(req)
	for i, rep := range h.script {
		if rep.When == nil || rep.When(*req) {
			h.script = append(h.script[:i], h.script[i+1:]...)
			h.mu.Unlock()
			return rep, true
		}
	}
	auto := h.auto
	h.mu.Unlock()
	if auto != nil && req.DecodeError == "" {
		return auto(*req), true
	}
	return Reply{}, false
}

func (h *Handler) record(req *Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recordLocked(req)
}

// finish stores how long request seq took.
func (h *Handler) finish(seq int, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.reqs) - 1; i >= 0; i-- {
		if h.reqs[i].Seq == seq {
			h.reqs[i].Duration = d
			return
		}
	}
}

func (h *Handler) recordLocked(req *Request) {
	h.seq++
	req.Seq = h.seq
	if len(h.reqs) >= MaxRecorded {
		h.reqs = h.reqs[1:]
		h.dropped++
	}
	h.reqs = append(h.reqs, *req)
}

func completion(req Request, r Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": r.Content}
	finish := r.FinishReason
	if len(r.ToolCalls) > 0 {
		calls := make([]map[string]any, 0, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", req.Seq, i+1)
			}
			calls = append(calls, map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["tool_calls"] = calls
		if finish == "" {
			finish = "tool_calls"
		}
	}
	if finish == "" {
		finish = "stop"
	}
	u := Usage{PromptTokens: ApproxTokens(string(req.Body)), CompletionTokens: ApproxTokens(r.Content)}
	for _, c := range r.ToolCalls {
		u.CompletionTokens += ApproxTokens(c.Name + c.Arguments)
	}
	if r.Usage != nil {
		u = *r.Usage
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", req.Seq), "object": "chat.completion", "created": req.At.Unix(),
		"model":   req.Chat.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens},
	}
}

// ApproxTokens is the server's token estimate: a quarter of the bytes, rounded up.
func ApproxTokens(s string) int { return (len(s) + 3) / 4 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": code, "code": code}})
}
