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
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
)

// A paused Deployment keeps its pods and its ReplicaSets as they are: a template change made
// while it is paused is recorded and never rolled out. Nothing fails, so nothing else
// reports it; the change that is held back is the finding.

// pausedRollout reports the held-back change of a paused Deployment, given its newest
// ReplicaSet (nil when it has none); false when nothing is held back.
func (e *env) pausedRollout(d *appsv1.Deployment, newest *appsv1.ReplicaSet, evIDs []string) bool {
	if !d.Spec.Paused {
		return false
	}
	want := replicasOf(d.Spec.Replicas)
	var changes []string
	if newest != nil {
		running := map[string]string{}
		for _, c := range newest.Spec.Template.Spec.Containers {
			running[c.Name] = c.Image
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if img, ok := running[c.Name]; ok && img != c.Image && len(changes) < 3 {
				changes = append(changes, fmt.Sprintf("container %s runs %s, the template asks for %s", c.Name, img, c.Image))
			}
		}
	}
	if len(changes) == 0 && d.Status.UpdatedReplicas >= want {
		return false
	}
	dref := e.ref("Deployment", d.Name)
	held := strings.Join(changes, "; ")
	if held == "" {
		held = "the template changed since the pods were created"
	}
	facts := map[string]string{"updated": fmt.Sprint(d.Status.UpdatedReplicas), "replicas": fmt.Sprint(want), "change": held}
	e.find(Finding{Rule: "deployment-paused", Object: dref, Culprit: dref, Evidence: evIDs, Facts: facts,
		Summary: fmt.Sprintf("Deployment %s is paused (spec.paused=true), so its latest template change is not rolled out: %s; %d of %d pod(s) run the current template. Resume the rollout to apply it.",
			d.Name, held, d.Status.UpdatedReplicas, want)})
	return true
}

// heldRollout reports a StatefulSet or DaemonSet whose update strategy keeps its template
// change from reaching the pods: OnDelete replaces a pod only when someone deletes it, and a
// StatefulSet partition updates only the ordinals at or above it. Nothing fails; the pods
// keep running the old revision, which is what users see ("my change did not roll out").
func (e *env) heldRollout(ref ObjectRef, strategy string, partition *int32, want, updated int32, current, update string, evIDs []string) bool {
	if want == 0 || updated >= want || current == "" || update == "" || current == update {
		return false
	}
	var why string
	switch {
	case strategy == "OnDelete":
		why = "its updateStrategy is OnDelete, so a pod is replaced only when someone deletes it"
	case partition != nil && *partition > 0:
		why = fmt.Sprintf("its rollingUpdate.partition is %d, so only pods with an ordinal of %d or more are updated", *partition, *partition)
	default:
		return false
	}
	facts := map[string]string{"updated": fmt.Sprint(updated), "replicas": fmt.Sprint(want), "strategy": strategy, "change": "revision " + update}
	e.find(Finding{Rule: "rollout-held", Object: ref, Culprit: ref, Evidence: evIDs, Facts: facts,
		Summary: fmt.Sprintf("%s %s does not roll out its template change: %s; %d of %d pod(s) run the update revision %s, the rest still run %s.",
			ref.Kind, ref.Name, why, updated, want, update, current)})
	return true
}

// heldStatefulSet is heldRollout for a StatefulSet.
func (e *env) heldStatefulSet(s *appsv1.StatefulSet, evIDs []string) bool {
	var partition *int32
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		partition = ru.Partition
	}
	return e.heldRollout(e.ref("StatefulSet", s.Name), string(s.Spec.UpdateStrategy.Type), partition, replicasOf(s.Spec.Replicas),
		s.Status.UpdatedReplicas, s.Status.CurrentRevision, s.Status.UpdateRevision, evIDs)
}

// heldDaemonSet is heldRollout for a DaemonSet (OnDelete only: it has no partition).
func (e *env) heldDaemonSet(ds *appsv1.DaemonSet, evIDs []string) bool {
	if ds.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType || ds.Status.UpdatedNumberScheduled >= ds.Status.DesiredNumberScheduled {
		return false
	}
	// A DaemonSet records no revision names in its status; the generation tells an update.
	return e.heldRollout(e.ref("DaemonSet", ds.Name), "OnDelete", nil, ds.Status.DesiredNumberScheduled, ds.Status.UpdatedNumberScheduled,
		"the previous template", fmt.Sprintf("of generation %d", ds.Generation), evIDs)
}
