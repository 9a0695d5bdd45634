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

package knowledge

import (
	"context"
	"strings"
	"testing"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/kbbuild"
)

// steps is a runbook long enough to make several chunks, so a step has neighbours.
func steps() string {
	var b strings.Builder
	b.WriteString("# Pod crash looping\n\nA container keeps restarting: CrashLoopBackOff.\n\n## Mitigation\n\n")
	for i, s := range []string{"Read the logs of the previous run.", "Check the liveness probe.", "Compare the image with the last good one."} {
		b.WriteString("### Step " + string(rune('1'+i)) + "\n\n" + s + " " + strings.Repeat("More detail about this step. ", 40) + "\n\n")
	}
	b.WriteString("## See also\n\n- [Undo a bad release](../releases/undo.md)\n")
	return b.String()
}

func TestSearchExpandsNeighboursAndListsLinkedPages(t *testing.T) {
	s := NewService(Options{})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "rb", TrustLevel: 4, Source: &kbbuild.ConfigMapSource{Data: map[string]string{
		"runbooks/crash.md": steps(),
		"releases/undo.md":  "# Undo a bad release\n\nHelm history lists revisions; helm rollback returns to the one before.\n",
	}}, Chunking: kbbuild.ChunkOptions{MinTokens: 16, TargetTokens: 200, MaxTokens: 400}})
	ans, err := s.Search(context.Background(), Query{Namespace: "ns", Text: "liveness probe", K: 1, Expand: 1, FollowLinks: 1})
	if err != nil || len(ans.Snippets) != 1 {
		t.Fatalf("answer = %+v err %v", ans, err)
	}
	sn := ans.Snippets[0]
	if !strings.Contains(sn.Text, "liveness probe") {
		t.Fatalf("top snippet = %q", sn.Text)
	}
	rel := map[string]bool{}
	for _, p := range sn.Context {
		rel[p.Relation] = true
		if len(p.Text) > MaxContextBytes {
			t.Errorf("context passage of %d bytes", len(p.Text))
		}
	}
	if !rel["prev"] || !rel["next"] || !rel["parent"] {
		t.Errorf("context = %+v, want the previous and next steps and the parent section", sn.Context)
	}
	if len(ans.Related) != 1 || ans.Related[0].Citation.Path != "releases/undo.md" || ans.Related[0].Kind != "related" ||
		ans.Related[0].Title != "Undo a bad release" || ans.Related[0].Citation.TrustLevel != 4 {
		t.Fatalf("related = %+v", ans.Related)
	}
}

func TestCiteForConclusionAddsLinkedPages(t *testing.T) {
	s := NewService(Options{})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "rb", Source: &kbbuild.ConfigMapSource{Data: map[string]string{
		"runbooks/crash.md": "# Pod crash looping\n\nA container keeps restarting: CrashLoopBackOff.\n\n## See also\n\n- [Undo a bad release](../releases/undo.md)\n",
		"releases/undo.md":  "# Undo a bad release\n\nHelm history lists revisions; helm rollback returns to the one before.\n",
	}}})
	cites := s.CiteForConclusion(context.Background(), "ns", nil, nil, "container restarts", kubagev1alpha1.CategoryCrashLoop)
	if len(cites) != 2 || cites[0].Path != "runbooks/crash.md" || cites[1].Path != "releases/undo.md" || cites[1].LinkedFrom != cites[0].String() {
		t.Fatalf("citations = %+v", cites)
	}
	if ev := cites[1].Evidence("kb-2", nil); !strings.Contains(ev.Summary, "linked from rb:runbooks/crash.md") {
		t.Errorf("evidence summary = %q", ev.Summary)
	}
}
