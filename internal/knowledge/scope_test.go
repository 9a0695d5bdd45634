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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

func TestScopesBoundEachPartOfTheSessionsKnowledge(t *testing.T) {
	ctx := context.Background()
	s := NewService(Options{})
	crash := func(n string) string {
		return "# Crash " + n + "\n\nPod CrashLoopBackOff: the container keeps restarting.\n"
	}
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "runbooks", Labels: map[string]string{"kind": "runbook"}, TrustLevel: 4, Domain: "kubernetes",
		Source: docs("a.md", crash("a"), "b.md", crash("b"), "c.md", crash("c"))})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "notes", Labels: map[string]string{"kind": "notes"}, TrustLevel: 1,
		Source: docs("n1.md", crash("n1"), "n2.md", crash("n2"))})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "vendor", Labels: map[string]string{"kind": "runbook"}, TrustLevel: 4, Domain: "vendor",
		Source: docs("v.md", crash("v"))})

	scopes := ScopesOf([]kubagev1alpha1.KnowledgeScope{
		{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"kind": "runbook"}}, Domain: "kubernetes", TopK: 2, MinTrust: 3},
		{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"kind": "notes"}}, TopK: 1},
	})
	ans, err := s.Search(ctx, Query{Namespace: "ns", Text: "pod CrashLoopBackOff restarting", Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, sn := range ans.Snippets {
		per[sn.Citation.Source]++
	}
	if len(ans.Snippets) != 3 || per["runbooks"] != 2 || per["notes"] != 1 || per["vendor"] != 0 {
		t.Fatalf("snippets per source = %v (%d in all), want runbooks 2, notes 1 and nothing of another domain", per, len(ans.Snippets))
	}
	if ans.Snippets[0].Citation.Source != "runbooks" || ans.Snippets[1].Citation.Source != "notes" {
		t.Errorf("scopes are not interleaved by rank: %v, %v", ans.Snippets[0].Citation, ans.Snippets[1].Citation)
	}
	// A scope's minTrust keeps out a source the scope would otherwise pick.
	high := []Scope{{Selector: &metav1.LabelSelector{}, MinTrust: 4, TopK: 10}}
	ans, err = s.Search(ctx, Query{Namespace: "ns", Text: "pod CrashLoopBackOff restarting", Scopes: high})
	if err != nil {
		t.Fatal(err)
	}
	for _, sn := range ans.Snippets {
		if sn.Citation.Source == "notes" {
			t.Fatalf("a trust-1 source passed a minTrust 4 scope: %v", sn.Citation)
		}
	}
	// The caller's K still bounds the whole answer.
	ans, _ = s.Search(ctx, Query{Namespace: "ns", Text: "pod CrashLoopBackOff restarting", Scopes: scopes, K: 1})
	if len(ans.Snippets) != 1 {
		t.Fatalf("K 1 returned %d snippets", len(ans.Snippets))
	}
}
