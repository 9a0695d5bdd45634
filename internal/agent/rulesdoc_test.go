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
		"Confidence is the rule's base confidence; a finding that only points at a deeper cause is replaced by the finding on the object it points at.\n\n" + CatalogueMarkdown()
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
