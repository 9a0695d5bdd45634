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
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A pod that more than one PodDisruptionBudget selects cannot be evicted at all: the eviction
// API answers 500 ("This pod has more than one PodDisruptionBudget, which the eviction
// subresource does not support"), so a drain retries forever, whatever either budget allows.
// The disruption controller says so only in a warning event on the pod. pdbOverlap names the
// budgets, the broader one first (a namespace-wide budget laid over one a team wrote for its
// own workload is the usual accident), and the fix: one budget per pod.

// maxPDBList bounds the budgets read for one namespace.
const maxPDBList = 50

// pdbOverlap reports a healthy pod selected by two or more PodDisruptionBudgets.
func (pc *podCheck) pdbOverlap(ctx context.Context) bool {
	e := pc.e
	pdbs, err := listOnce[*policyv1.PodDisruptionBudget](ctx, e, "PodDisruptionBudget", maxPDBList)
	if err != nil || len(pdbs) < 2 {
		return false
	}
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return false
	}
	type budget struct {
		pdb  *policyv1.PodDisruptionBudget
		pods int // pods of the namespace it selects
	}
	var over []budget
	for _, b := range pdbs {
		if b.Spec.Selector == nil {
			continue // a null selector selects no pods (an empty one, every pod of the namespace)
		}
		sel, err := metav1Selector(b.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pc.pod.Labels)) {
			continue
		}
		n := 0
		for _, p := range pods {
			if sel.Matches(labels.Set(p.Labels)) {
				n++
			}
		}
		over = append(over, budget{b, n})
	}
	if len(over) < 2 {
		return false
	}
	sort.SliceStable(over, func(i, j int) bool {
		if over[i].pods != over[j].pods {
			return over[i].pods > over[j].pods
		}
		return over[i].pdb.Name < over[j].pdb.Name
	})
	var names, said []string
	var refs []ObjectRef
	var evIDs []string
	for _, b := range over {
		r := e.ref("PodDisruptionBudget", b.pdb.Name)
		refs = append(refs, r)
		names = append(names, b.pdb.Name)
		said = append(said, fmt.Sprintf("%s (selector %s, %d pod(s))", b.pdb.Name, tools.LabelsString(selectorLabels(b.pdb)), b.pods))
		evIDs = append(evIDs, e.objEvidence(r, "PodDisruptionBudget "+b.pdb.Name+": "+tools.Summarize(b.pdb, e.now).Status))
	}
	if g := tools.EventsMention(pc.events(ctx), "MultiplePodDisruptionBudgets"); g != nil {
		evIDs = append(evIDs, e.eventEvidence(pc.ref, *g))
	}
	wl := e.workloadOf(ctx, pc.pod)
	summary := fmt.Sprintf("Pod %s of %s %s is selected by multiple PodDisruptionBudgets: %s. The eviction API refuses to evict a pod that more than one budget selects (HTTP 500: the eviction subresource supports one PodDisruptionBudget per pod), so kubectl drain and node upgrades retry it forever, whatever each budget allows. Keep one budget per pod: narrow the selector of %s so it leaves these pods to %s, or delete one of them.",
		pc.pod.Name, wl.Kind, wl.Name, strings.Join(said, ", "), names[0], strings.Join(names[1:], ", "))
	e.find(Finding{Rule: "pdb-overlap", Object: refs[0], Culprit: refs[0], Affected: append(refs[1:], wl, pc.ref), Evidence: append([]string{pc.statusEv}, evIDs...),
		Facts: map[string]string{"budgets": strings.Join(names, ","), "pod": pc.pod.Name}, Summary: summary})
	return true
}
