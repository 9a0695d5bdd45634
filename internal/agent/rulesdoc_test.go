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
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite RULES.md from the catalogue")

// TestRulesDoc keeps RULES.md in step with the catalogue (go test -run TestRulesDoc -update).
func TestRulesDoc(t *testing.T) {
	want := "# Rule catalogue\n\nGenerated from `internal/agent/rules.go` by `go test ./internal/agent -run TestRulesDoc -update`.\n" +
		"Confidence is the rule's base confidence; a finding that only points at a deeper cause is replaced by the finding on the object it points at.\n\n" + CatalogueMarkdown() +
		"\n" + KnownErrorsMarkdown()
	if *update {
		if err := os.WriteFile("RULES.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("RULES.md")
	if err != nil || string(got) != want {
		t.Fatalf("RULES.md is stale; run go test ./internal/agent -run TestRulesDoc -update")
	}
}
