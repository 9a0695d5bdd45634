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
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"time"
)

// Text is a plain assistant answer.
func Text(s string) Reply { return Reply{Content: s} }

// JSON is an assistant answer whose content is v encoded as JSON.
func JSON(v any) Reply {
	raw, err := json.Marshal(v)
	if err != nil {
		return Reply{Content: fmt.Sprintf("llmtest: cannot encode %T: %v", v, err)}
	}
	return Reply{Content: string(raw)}
}

// Calls is an assistant turn with one or more (parallel) tool calls.
func Calls(calls ...Call) Reply { return Reply{ToolCalls: calls} }

// CallTool is one tool call with arguments encoded as JSON (a string is sent as is,
// which lets a test send malformed arguments).
func CallTool(name string, args any) Call {
	if s, ok := args.(string); ok {
		return Call{Name: name, Arguments: s}
	}
	raw, _ := json.Marshal(args)
	return Call{Name: name, Arguments: string(raw)}
}

// Status is an HTTP error answer.
func Status(code int) Reply {
	return Reply{Status: code, Content: fmt.Sprintf("scripted status %d", code)}
}

// TooMany is a 429 answer with Retry-After in seconds.
func TooMany(retryAfter time.Duration) Reply {
	return Reply{Status: 429, RetryAfter: strconv.Itoa(int(retryAfter.Round(time.Second) / time.Second)), Content: "rate limited"}
}

// Slow delays r by d.
func Slow(d time.Duration, r Reply) Reply { r.Delay = d; return r }

// Truncated is an answer cut off at the output token limit (finish_reason=length).
func Truncated(content string) Reply { return Reply{Content: content, FinishReason: "length"} }

// Malformed is a 200 answer whose body is not a chat completion at all.
func Malformed() Reply { return Reply{RawBody: `{"choices":[{"message":{"content":"unterminated`} }

// ForSchema restricts r to requests asking for the named json_schema response format.
func ForSchema(name string, r Reply) Reply {
	r.When = func(req Request) bool { return req.SchemaName() == name }
	return r
}

// SchemaResponder answers on its own: for a json_schema response format it returns a
// minimal value that satisfies the schema; when tools are offered and none was called
// yet it calls the first tool that needs no arguments; otherwise it answers "done".
func SchemaResponder(req Request) Reply {
	if rf := req.Chat.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		var schema map[string]any
		if err := json.Unmarshal(rf.JSONSchema.Schema, &schema); err == nil {
			return JSON(Synthesize(schema))
		}
	}
	if len(req.Chat.Tools) > 0 && req.ToolResults() == 0 {
		for _, t := range req.Chat.Tools {
			var p struct {
				Required []string `json:"required"`
			}
			_ = json.Unmarshal(t.Function.Parameters, &p)
			if len(p.Required) == 0 {
				return Calls(CallTool(t.Function.Name, map[string]any{}))
			}
		}
	}
	return Text("done")
}

// Synthesize builds a minimal value that satisfies a JSON schema of the subset used
// for structured outputs (object, array, string with enum or pattern, integer,
// number, boolean, type unions with null).
func Synthesize(schema map[string]any) any { return synth(schema, 0) }

var stringCandidates = []string{"Auto", "auto", "auto-1", "a"}

func synth(s map[string]any, depth int) any {
	if depth > 16 {
		return nil
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ := s["type"]
	if list, ok := typ.([]any); ok {
		typ = nil
		for _, t := range list {
			if t != "null" {
				typ = t
				break
			}
		}
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if ps, ok := props[n].(map[string]any); ok {
				out[n] = synth(ps, depth+1)
			}
		}
		return out
	case "array":
		n := 0
		if m, ok := s["minItems"].(float64); ok {
			n = int(m)
		}
		items, _ := s["items"].(map[string]any)
		out := make([]any, 0, n)
		for i := 0; i < n && items != nil; i++ {
			out = append(out, synth(items, depth+1))
		}
		return out
	case "string":
		pat, _ := s["pattern"].(string)
		re, err := regexp.Compile(pat)
		for _, c := range stringCandidates {
			if pat == "" || (err == nil && re.MatchString(c)) {
				return c
			}
		}
		return "a"
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 0
	case "boolean":
		return false
	}
	return nil
}
