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

package llmbench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestRun checks the figures are sane on a short run; with KUBAGE_BENCH=1 it prints
// the full report as JSON.
func TestRun(t *testing.T) {
	opts := Options{OverheadRuns: 5}
	if os.Getenv("KUBAGE_BENCH") != "" {
		opts.OverheadRuns = 0
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"crash-loop": "Deployment/web", "image-not-found": "Deployment/api", "storageclass-missing": "StorageClass/fast-ssd"}
	for _, r := range rep.Sessions {
		if r.Degraded || r.LLMCalls < 3 || r.PromptTokens <= 0 || r.PromptTokensPerCall <= 0 || r.SessionMs <= 0 {
			t.Fatalf("%s: %+v", r.Scenario, r)
		}
		if c, ok := want[r.Scenario]; ok && r.Culprit != c {
			t.Fatalf("%s: culprit %s, want %s", r.Scenario, r.Culprit, c)
		}
	}
	if rep.CallOverheadMicros <= 0 || rep.MeanLLMCallsPerSession < 3 {
		t.Fatalf("%+v", rep)
	}
	if os.Getenv("KUBAGE_BENCH") != "" {
		raw, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Println(string(raw))
	}
}

func BenchmarkSession(b *testing.B) {
	for _, s := range FakeSessions() {
		b.Run(s.Name, func(b *testing.B) {
			var last Result
			for i := 0; i < b.N; i++ {
				r, err := Measure(context.Background(), s)
				if err != nil {
					b.Fatal(err)
				}
				last = r
			}
			b.ReportMetric(float64(last.PromptTokens), "prompt-tokens/session")
			b.ReportMetric(float64(last.LLMCalls), "llm-calls/session")
		})
	}
}

func BenchmarkCallOverhead(b *testing.B) {
	s := FakeSessions()[0]
	d, err := CallOverhead(context.Background(), s, max(b.N, 5))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(d.Microseconds()), "µs/call-overhead")
}
