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

package agent

import (
	"strings"
	"testing"
)

// A long error line is quoted with its header and the part that says what went wrong, in
// every log format that joins an error chain into one line.
func TestErrorWindowKeepsTheTellingPart(t *testing.T) {
	filler := strings.Repeat("while handling the request the component went through its usual steps, ", 5)
	cases := []struct {
		name, lines string
		want        []string
	}{
		{"elasticsearch ECS JSON, newlines joined",
			`{"@timestamp":"2026-01-02T03:04:05Z","log.level":"ERROR","message":"node validation exception\n[1] bootstrap checks failed. You must address the points described in the following [1] lines before starting Elasticsearch. For more information see [https://www.elastic.co/guide/en/elasticsearch/reference/8.15/bootstrap-checks.html]\nbootstrap check failure [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]"}`,
			[]string{"node validation exception", "vm.max_map_count [65530] is too low"}},
		{"Go error wrapped many times",
			`level=error msg="reconcile failed" err="tenant acme: ` + filler + `: cannot accept quota.max_objects 5000: must be below 1000"`,
			[]string{"reconcile failed", "cannot accept quota.max_objects 5000"}},
		{"Java exception chain on one line",
			`2026-01-02 03:04:05.678 ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed; ` + filler + `; nested exception is java.lang.IllegalStateException: ledger rate 0 is below the minimum of 1`,
			[]string{"Application run failed", "IllegalStateException", "below the minimum of 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ExtractClues(strings.Split(tc.lines, "\n"))
			if len(c.Line) > maxClueLine+8 {
				t.Fatalf("quoted line is %d bytes, over the bound", len(c.Line))
			}
			for _, w := range tc.want {
				if !strings.Contains(c.Line, w) {
					t.Errorf("quoted line %q lacks %q", c.Line, w)
				}
			}
		})
	}
}

// A line that fits, or whose head already carries the error, is quoted as it is.
func TestErrorWindowLeavesShortAndHeadErrorsAlone(t *testing.T) {
	short := "ERROR dial tcp 10.0.0.7:5432: connect: connection refused"
	if got := errorWindow(short, maxClueLine); got != short {
		t.Errorf("short line changed: %q", got)
	}
	head := "FATAL: password authentication failed for user \"billing\" " + strings.Repeat("x", 400)
	if got := errorWindow(head, maxClueLine); !strings.HasPrefix(got, "FATAL: password authentication failed") {
		t.Errorf("head error lost: %q", got)
	}
}
