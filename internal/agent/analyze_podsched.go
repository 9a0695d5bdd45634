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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Pods the scheduler has not placed, and the claims that hold them.
// scheduling handles pods the scheduler has not placed; done means no further checks apply.
func (pc *podCheck) scheduling(ctx context.Context) (bool, error) {
	p := pc.pod
	cond := tools.PodCondition(p, corev1.PodScheduled)
	unscheduled := p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending
	if cond != nil && cond.Status == corev1.ConditionFalse {
		unscheduled = true
	}
	if !unscheduled {
		return false, nil
	}
	msg := ""
	if cond != nil {
		msg = cond.Message
	}
	var evIDs []string
	if g := tools.EventsMention(pc.events(ctx), "FailedScheduling"); g != nil {
		evIDs = append(evIDs, pc.e.eventEvidence(pc.ref, *g))
		if msg == "" || len(g.Message) > len(msg) {
			msg = g.Message
		}
	}
	if msg == "" {
		if pc.schedulerUnserved(ctx, evIDs) {
			return true, nil
		}
		if pc.e.now.Sub(p.CreationTimestamp.Time) < time.Minute {
			pc.e.evidence("Pod "+p.Name+" was created less than a minute ago and is not scheduled yet", Source{Kind: SourceObject, Object: &pc.ref}, "")
			return true, nil
		}
		pc.find(ctx, "unschedulable", "", fmt.Sprintf("Pod %s has been Pending without a node and without any scheduler decision; check that scheduler %q is running.", p.Name, orDefault(p.Spec.SchedulerName, "default-scheduler")),
			ObjectRef{}, evIDs, map[string]string{"message": "no FailedScheduling event or condition"})
		return true, nil
	}
	v, fit := pc.e.refineScheduling(ctx, p, ParseScheduling(msg))
	if v.Reason != SchedMissingPVC && v.Reason != SchedUnboundPVC && pc.explainClauses(ctx, p, msg, evIDs) {
		return true, nil
	}
	wl := pc.e.workloadOf(ctx, p)
	short := tools.Sanitize(msg, 400, true)
	switch v.Reason {
	case SchedMissingPVC:
		claim := pc.e.ref("PersistentVolumeClaim", v.Claim)
		pc.find(ctx, "pvc-missing", "", fmt.Sprintf("Pod %s mounts PersistentVolumeClaim %s, which does not exist, so it cannot be scheduled (FailedScheduling).", p.Name, v.Claim),
			claim, evIDs, map[string]string{"claim": v.Claim})
	case SchedUnboundPVC:
		if !pc.claims(ctx, evIDs) {
			pc.find(ctx, "unschedulable", "", fmt.Sprintf("Pod %s cannot be scheduled (FailedScheduling): %s", p.Name, short), ObjectRef{}, evIDs, map[string]string{"message": short})
		}
	case SchedInsufficient:
		req := tools.PodRequests(&p.Spec)
		if fit.matching == 0 {
			fit, _ = pc.e.fitNodes(ctx, p)
		}
		largest := ""
		if c := fit.capacity(); c != "" {
			largest = fmt.Sprintf("; the largest of the %d node(s) it may use has %s allocatable", fit.free, c)
		}
		summary := fmt.Sprintf("Pod %s cannot be scheduled (FailedScheduling): no node has enough free %s for its requests (%s%s).%s%s Scheduler: %s",
			p.Name, strings.Join(v.Resources, "/"), requestsString(req), largest, pc.freeSaid(ctx, p, v.Resources), initSaid(&p.Spec, v.Resources), short)
		culprit := wl
		if by, why, ok := pc.limitRangeDefault(ctx, p, v.Resources); ok {
			culprit, summary = by, strings.TrimRight(summary, ". ")+"."+why
		} else if by, why, ok := pc.preemptor(ctx, p); ok && by.Key() != wl.Key() {
			culprit, summary = by, strings.TrimRight(summary, ". ")+"."+why
		} else if by, why, ok := pc.overheadTaker(ctx, p, v.Resources); ok {
			culprit, summary = by, strings.TrimRight(summary, ". ")+"."+why
		} else if by, why, ok := pc.poolHolder(ctx, p, v.Resources); ok {
			culprit, summary = by, strings.TrimRight(summary, ". ")+"."+why
		}
		pc.find(ctx, "unschedulable-insufficient-resources", "", summary, culprit, evIDs,
			map[string]string{"requests": requestsString(req), "resources": strings.Join(v.Resources, ","), "message": short})
	case SchedTaint:
		taint := ""
		for _, t := range v.Taints {
			if taint == "" || (!strings.Contains(t, "control-plane") && strings.Contains(taint, "control-plane")) {
				taint = t
			}
		}
		key := taint
		if i := strings.IndexAny(key, ":="); i > 0 {
			key = key[:i]
		}
		pc.find(ctx, "unschedulable-taint", "", fmt.Sprintf("Pod %s cannot be scheduled (FailedScheduling): the nodes carry taint {%s} and the pod has no toleration for it.%s Scheduler: %s", p.Name, taint, fit.summary(), short),
			wl, evIDs, map[string]string{"taint": taint, "taintKey": strings.TrimSpace(key), "message": short})
		// Taints the node controller sets for a condition (memory pressure, not ready) are
		// explained by that condition: look at those nodes next.
		if len(fit.conditionNodes) > 0 {
			var follow []ObjectRef
			for i, n := range fit.conditionNodes {
				if i == 3 {
					break
				}
				follow = append(follow, pc.e.ref("Node", n))
			}
			fs := pc.e.res.Findings
			fs[len(fs)-1].Follow = cleanRefs(follow)
		}
	case SchedAffinity:
		sel := "node affinity rules"
		if len(p.Spec.NodeSelector) > 0 {
			sel = "nodeSelector " + tools.LabelsString(p.Spec.NodeSelector)
		} else if req := requiredAffinity(p); req != "" {
			sel = "required node affinity " + req + pc.nodeLabelValues(ctx, p)
		}
		summary, culprit := fmt.Sprintf("Pod %s cannot be scheduled (FailedScheduling): no node matches its %s.", p.Name, sel), wl
		if by, why, ok := pc.admittedSelector(ctx, p); ok {
			summary, culprit = summary+why, by
		}
		pc.find(ctx, "unschedulable-node-affinity", "", summary+" Scheduler: "+short, culprit, evIDs, map[string]string{"nodeSelector": sel, "message": short})
	case SchedCordoned:
		pc.find(ctx, "unschedulable-nodes-cordoned", "", fmt.Sprintf("Pod %s cannot be scheduled (FailedScheduling): the candidate nodes are cordoned.%s Scheduler: %s", p.Name, fit.summary(), short),
			wl, evIDs, map[string]string{"message": short})
	default:
		low := strings.ToLower(msg)
		if (strings.Contains(low, "volume") || strings.Contains(low, "claim")) && pc.claims(ctx, evIDs) {
			return true, nil
		}
		pc.find(ctx, "unschedulable", "", fmt.Sprintf("Pod %s cannot be scheduled (FailedScheduling): %s", p.Name, short), wl, evIDs, map[string]string{"message": short})
	}
	return true, nil
}

// claims looks at the pod's PVCs and blames the missing or unbound ones.
func (pc *podCheck) claims(ctx context.Context, evIDs []string) bool {
	found := false
	n := 0
	for _, v := range pc.pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil && v.Ephemeral == nil {
			continue
		}
		if n++; n > 5 {
			break
		}
		// A generic ephemeral volume's claim is created for the pod as <pod>-<volume>, from the
		// claim template in the pod spec.
		name := pc.pod.Name + "-" + v.Name
		if v.PersistentVolumeClaim != nil {
			name = v.PersistentVolumeClaim.ClaimName
		}
		claim := pc.e.ref("PersistentVolumeClaim", name)
		pvc, err := getAs[*corev1.PersistentVolumeClaim](ctx, pc.e, "PersistentVolumeClaim", name)
		switch {
		case tools.IsNotFound(err) && v.Ephemeral != nil:
			continue // not created yet: the ephemeral volume controller makes it
		case tools.IsNotFound(err):
			pc.find(ctx, "pvc-missing", "", fmt.Sprintf("Pod %s mounts PersistentVolumeClaim %s, which does not exist.", pc.pod.Name, name), claim, evIDs, map[string]string{"claim": name})
			found = true
		case err != nil:
			continue
		case pvc.Status.Phase != corev1.ClaimBound:
			ev := pc.e.objEvidence(claim, "PersistentVolumeClaim "+name+": "+tools.Summarize(pvc, pc.e.now).Status)
			f := Finding{Rule: "pod-pvc-pending", Object: pc.ref, Culprit: claim, Follow: []ObjectRef{claim},
				Summary:  fmt.Sprintf("Pod %s is Pending because its PersistentVolumeClaim %s is %s.", pc.pod.Name, name, pvc.Status.Phase),
				Evidence: append([]string{pc.statusEv, ev}, evIDs...), Facts: pc.facts(ctx, "", map[string]string{"claim": name}), Affected: mergeRefs([]ObjectRef{pc.ref}, []ObjectRef{pc.e.workloadOf(ctx, pc.pod)})}
			pc.e.find(f)
			found = true
		}
	}
	return found
}
