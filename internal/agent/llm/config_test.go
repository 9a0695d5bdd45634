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
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestConfigFromSecretData(t *testing.T) {
	cases := []struct {
		name    string
		data    map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "minimal", data: map[string]string{"baseURL": "https://api.example/v1", "model": "gpt", "apiKey": " sk-abc \n"},
			check: func(t *testing.T, c Config) {
				d := c.WithDefaults()
				if c.APIKey != "sk-abc" || d.Timeout != DefaultTimeout || *d.Temperature != DefaultTemperature || d.MaxRetries != DefaultMaxRetries || d.Mode != ModeDiagnose {
					t.Fatalf("%+v", d)
				}
			}},
		{name: "all options", data: map[string]string{"baseURL": "http://ollama:11434/v1", "model": "llama", "timeout": "90s", "maxOutputTokens": "2048",
			"temperature": "0.05", "maxRetries": "0", "contextTokens": "32768", "responseFormat": "JSONObject"},
			check: func(t *testing.T, c Config) {
				d := c.WithDefaults()
				if d.Timeout != 90*time.Second || d.MaxOutputTokens != 2048 || *d.Temperature != 5 || d.MaxRetries != 0 || d.ContextTokens != 32768 || d.ResponseFormat != FormatJSONObject {
					t.Fatalf("%+v", d)
				}
			}},
		{name: "temperature without leading zero", data: map[string]string{"baseURL": "http://x/v1", "model": "m", "temperature": ".7"},
			check: func(t *testing.T, c Config) {
				if *c.Temperature != 70 {
					t.Fatalf("temperature %d", *c.Temperature)
				}
			}},
		{name: "no url", data: map[string]string{"model": "m"}, wantErr: "baseURL is required"},
		{name: "bad url", data: map[string]string{"baseURL": "ftp://x", "model": "m"}, wantErr: "not an http(s) URL"},
		{name: "no model", data: map[string]string{"baseURL": "http://x"}, wantErr: "model is required"},
		{name: "bad numbers", data: map[string]string{"baseURL": "http://x", "model": "m", "maxOutputTokens": "lots", "temperature": "3", "timeout": "-1s"},
			wantErr: "maxOutputTokens"},
		{name: "bad format", data: map[string]string{"baseURL": "http://x", "model": "m", "responseFormat": "XML"}, wantErr: "responseFormat"},
		{name: "output larger than window", data: map[string]string{"baseURL": "http://x", "model": "m", "maxOutputTokens": "4096", "contextTokens": "2048"}, wantErr: "smaller than contextTokens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := map[string][]byte{}
			for k, v := range tc.data {
				data[k] = []byte(v)
			}
			c, err := ConfigFromSecretData(data)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
			if raw, _ := json.Marshal(c); strings.Contains(string(raw), "sk-abc") {
				t.Fatalf("the API key must not serialize: %s", raw)
			}
		})
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{"2": 2 * time.Second, "0.5": 500 * time.Millisecond, "Sun, 01 Mar 2026 12:00:03 GMT": 3 * time.Second, "Sun, 01 Mar 2026 11:00:00 GMT": 0} {
		got, ok := retryAfter(in, now)
		if !ok || got != want {
			t.Fatalf("%q: %s %v", in, got, ok)
		}
	}
	if _, ok := retryAfter("soon", now); ok {
		t.Fatalf("garbage must be ignored")
	}
}

func TestBackoffIsJitteredAndBounded(t *testing.T) {
	rt := &retryTransport{cfg: Config{RetryBaseDelay: 100 * time.Millisecond, MaxRetryDelay: 30 * time.Second}}
	for attempt := 0; attempt < 20; attempt++ {
		d := rt.backoff(attempt)
		full := min(100*time.Millisecond<<min(attempt, 10), maxBackoff)
		if d < full/2 || d > full {
			t.Fatalf("attempt %d: %s outside [%s, %s]", attempt, d, full/2, full)
		}
	}
}

func TestExtractJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:                           `{"a":1}`,
		"```json\n{\"a\":1}\n```":           `{"a":1}`,
		"Here you go: {\"a\":{\"b\":2}} :)": `{"a":{"b":2}}`,
	} {
		got, err := extractJSON(in)
		if err != nil || got != want {
			t.Fatalf("%q: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "[1,2]", `{"a":`, "no json"} {
		if _, err := extractJSON(in); err == nil {
			t.Fatalf("%q should fail", in)
		}
	}
}

// FuzzDecodeReply feeds arbitrary model output to the structured-output decoders: they
// must never panic, and whatever they accept must satisfy the schema's bounds.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{`{"decision":"pass","feedback":"x","nextSteps":[]}`, "```json\n{}\n```", `{"summary":"` + strings.Repeat("a", 2000) + `"}`,
		`{"tasks":[{"id":"a","type":"ToolCall","description":"d","tool":"k8s_get","args":[{"name":"kind","value":"Pod"}],"dependsOn":["a"]}],"reasoning":""}`,
		`{"summary":"s","category":"CrashLoop","confidence":101,"culprit":{"kind":"Pod","name":"p"}}`} {
		f.Add(s)
	}
	plan, _ := newOutputSchema(SchemaPlan, planSchema(4))
	verdict, _ := newOutputSchema(SchemaVerdict, verdictSchema())
	concl, _ := newOutputSchema(SchemaConclusion, conclusionSchema())
	f.Fuzz(func(t *testing.T, reply string) {
		var p planOut
		if plan.decode(reply, &p) == nil {
			if len(p.Tasks) > 4 {
				t.Fatalf("accepted %d tasks", len(p.Tasks))
			}
			for _, task := range p.Tasks {
				if !planIDRE.MatchString(task.ID) || utf8.RuneCountInString(task.Description) > 300 {
					t.Fatalf("accepted task %+v", task)
				}
			}
		}
		var v verdictOut
		if verdict.decode(reply, &v) == nil && v.Decision != "pass" && v.Decision != "refine" && v.Decision != "fail" {
			t.Fatalf("accepted decision %q", v.Decision)
		}
		var c conclusionOut
		if concl.decode(reply, &c) == nil {
			if c.Confidence < 0 || c.Confidence > 100 || !upperCamelRE.MatchString(c.Category) || utf8.RuneCountInString(c.Summary) > 1024 {
				t.Fatalf("accepted conclusion %+v", c)
			}
			_ = c.check(map[string]bool{}, map[string]bool{})
		}
	})
}
