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

package scenarios

import (
	"testing"

	"github.com/kubage/kubage/internal/agent"
)

// TestCatalogueShape checks the definitions without a cluster: enough scenarios, a third of them
// needing two hops or more, every expectation a known rule, names usable in namespace names.
func TestCatalogueShape(t *testing.T) {
	all := All()
	if len(all) < 20 {
		t.Fatalf("%d scenarios, want at least 20", len(all))
	}
	names := map[string]bool{}
	multi, bench := 0, 0
	for _, s := range all {
		if names[s.Name] {
			t.Errorf("duplicate scenario %s", s.Name)
		}
		names[s.Name] = true
		// Namespaces are "scn-<name>-xxxxx" (at most 63 characters); node names add a suffix.
		if len(s.Name) > 40 {
			t.Errorf("%s: name too long for a namespace prefix", s.Name)
		}
		if _, ok := agent.Catalogue[s.Want.Rule]; !ok && s.Want.Rule != "no-problem-found" {
			t.Errorf("%s: unknown rule %q", s.Name, s.Want.Rule)
		}
		if s.Want.Category() == "" || s.Want.Culprit.Kind == "" || s.Want.Culprit.Name == "" {
			t.Errorf("%s: incomplete expectation %+v", s.Name, s.Want)
		}
		if s.Setup == nil || s.Problem == "" || s.Covers == "" {
			t.Errorf("%s: needs Setup, Problem and Covers", s.Name)
		}
		if s.MinHops >= 2 {
			multi++
		}
		if s.Bench {
			bench++
		}
	}
	if 3*multi < len(all) {
		t.Errorf("%d of %d scenarios need two hops or more, want at least a third", multi, len(all))
	}
	if bench < 5 {
		t.Errorf("%d benchmark scenarios, want a representative subset of at least 5", bench)
	}
	if _, err := Named("crash-loop", "no-such-scenario"); err == nil {
		t.Error("Named accepts unknown names")
	}
}

func TestHops(t *testing.T) {
	ingress := agent.ObjectRef{Kind: "Ingress", Namespace: "ns", Name: "shop"}
	rc := agent.RootCause{
		Chain:   []string{"Service/shop: the Service's pods exist but none is ready", "Pod/shop-1: a container keeps crashing"},
		Culprit: agent.ObjectRef{Kind: "Deployment", Namespace: "ns", Name: "shop"},
	}
	if got := Hops(ingress, rc); got != 3 {
		t.Errorf("Ingress → Service → Pod → Deployment: %d hops, want 3", got)
	}
	self := agent.RootCause{Chain: []string{"Deployment/web: pods unhealthy"}, Culprit: agent.ObjectRef{Kind: "Deployment", Name: "web"}}
	if got := Hops(agent.ObjectRef{Kind: "Deployment", Name: "web"}, self); got != 0 {
		t.Errorf("a cause on the target itself: %d hops, want 0", got)
	}
	if got := Hops(agent.ObjectRef{}, agent.RootCause{}); got != 0 {
		t.Errorf("empty: %d hops", got)
	}
}
