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
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

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
		// Corpus scenarios expect culprits and terms, not a rule.
		if _, ok := agent.Catalogue[s.Want.Rule]; !ok && s.Want.Rule != "no-problem-found" && s.Want.Rule != "" {
			t.Errorf("%s: unknown rule %q", s.Name, s.Want.Rule)
		}
		if (s.Want.Rule != "" && s.Want.Category() == "") || s.Want.Culprit.Kind == "" || s.Want.Culprit.Name == "" {
			t.Errorf("%s: incomplete expectation %+v", s.Name, s.Want)
		}
		if s.Setup == nil || s.Problem == "" || s.Covers == "" {
			t.Errorf("%s: needs Setup, Problem and Covers", s.Name)
		}
		if s.HopCount() >= 2 {
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

// TestCorpusShape checks the corpus rules of issue 12 without a cluster: at least 120
// scenarios, half of them two hops or more, a held-out split of at least 40 diagnosis
// scenarios, five of each class 1–6 in each split's reach, and a source on every scenario.
func TestCorpusShape(t *testing.T) {
	all := All()
	if len(all) < 120 {
		t.Errorf("%d scenarios, want at least 120", len(all))
	}
	multi, heldOut := 0, 0
	tunePerClass := map[Class]int{}
	for _, s := range all {
		if s.Source == "" {
			t.Errorf("%s: no Source", s.Name)
		}
		if s.Class < ClassSingle || s.Class > ClassOutside {
			t.Errorf("%s: class %d", s.Name, s.Class)
		}
		if s.HopCount() >= 2 {
			multi++
		}
		if s.BadInput {
			continue
		}
		if s.Split() == HeldOut {
			heldOut++
		} else {
			tunePerClass[s.Class]++
		}
		if s.Want.Rule == "" && len(s.Want.Terms) == 0 {
			t.Errorf("%s: a corpus scenario needs Terms", s.Name)
		}
		if s.KnownMiss != "" && s.Split() == HeldOut {
			t.Errorf("%s: KnownMiss on a held-out scenario (only tune misses are recorded)", s.Name)
		}
	}
	byName := map[string]*Scenario{}
	for _, s := range all {
		byName[s.Name] = s
	}
	for name := range knownMisses {
		if s := byName[name]; s == nil || s.Split() != Tune {
			t.Errorf("knownMisses names %s, which is no tune-split scenario", name)
		}
	}
	if 2*multi < len(all) {
		t.Errorf("%d of %d scenarios need two hops or more, want at least half", multi, len(all))
	}
	if heldOut < 40 {
		t.Errorf("%d held-out diagnosis scenarios, want at least 40", heldOut)
	}
	for c := ClassRanking; c <= ClassOutside; c++ {
		if tunePerClass[c] < 5 {
			t.Errorf("class %d: %d tune scenarios, want at least 5 for the e2e suite", c, tunePerClass[c])
		}
	}
}

// TestSplitIsStable pins the hash so that the split never moves under a scenario.
func TestSplitIsStable(t *testing.T) {
	for name, want := range map[string]Split{"crash-loop": HeldOut, "unknown-kind": HeldOut, "selector-mismatch": Tune} {
		if got := (&Scenario{Name: name}).Split(); got != want {
			t.Errorf("%s: split %s, want %s", name, got, want)
		}
	}
}

// TestCorpusSetupAndLogs runs every Setup against a fake clientset and checks that every log
// file a pod template asks kwok to serve exists in hack/kwok/logs.
func TestCorpusSetupAndLogs(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			cs := fake.NewClientset()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			bg, stop := context.WithCancel(context.Background())
			e := &Env{Client: cs, Namespace: "scn-test", State: map[string]string{}, sims: map[string]*SimNode{}, bg: bg, stopBg: stop}
			defer func() { _ = e.Cleanup(context.Background()) }()
			if err := s.Setup(ctx, e); err != nil && ctx.Err() == nil {
				t.Fatalf("setup: %v", err)
			}
			var templates []corev1.PodTemplateSpec
			ds, _ := cs.AppsV1().Deployments(e.Namespace).List(ctx, metav1.ListOptions{})
			for _, d := range ds.Items {
				templates = append(templates, d.Spec.Template)
			}
			ss, _ := cs.AppsV1().StatefulSets(e.Namespace).List(ctx, metav1.ListOptions{})
			for _, d := range ss.Items {
				templates = append(templates, d.Spec.Template)
			}
			dss, _ := cs.AppsV1().DaemonSets(e.Namespace).List(ctx, metav1.ListOptions{})
			for _, d := range dss.Items {
				templates = append(templates, d.Spec.Template)
			}
			js, _ := cs.BatchV1().Jobs(e.Namespace).List(ctx, metav1.ListOptions{})
			for _, d := range js.Items {
				templates = append(templates, d.Spec.Template)
			}
			for _, tpl := range templates {
				if name := tpl.Annotations[annLogs]; name != "" {
					if _, err := os.Stat(filepath.Join("..", "..", "hack", "kwok", "logs", name+".log")); err != nil {
						t.Errorf("log file %s: %v", name, err)
					}
				}
			}
		})
	}
}

func TestSelected(t *testing.T) {
	all := All()
	if got, err := Selected(""); err != nil || len(got) != len(all) {
		t.Fatalf("empty selection: %d scenarios, %v; want all %d", len(got), err, len(all))
	}
	a, b := all[0].Name, all[len(all)-1].Name
	got, err := Selected(a + "," + b)
	if err != nil || len(got) != 2 || got[0].Name != a || got[1].Name != b {
		t.Fatalf("comma list: %v, %v", names(got), err)
	}
	file := filepath.Join(t.TempDir(), "names")
	if err := os.WriteFile(file, []byte("# tune misses\n"+a+"  # first\n\n"+b+","+a+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err = Selected("@" + file)
	if err != nil || len(got) != 3 || got[0].Name != a || got[1].Name != b || got[2].Name != a {
		t.Fatalf("file list: %v, %v", names(got), err)
	}
	for _, bad := range []string{"@" + filepath.Join(t.TempDir(), "absent"), "no-such-scenario", " , "} {
		if _, err := Selected(bad); err == nil {
			t.Errorf("Selected(%q) = nil error, want one", bad)
		}
	}
}

func names(list []*Scenario) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}
