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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

func init() { analyzers["workload"] = analyzeWorkload }

// maxWorkloadPods caps the pods inspected per workload; the rest are counted, not read.
const maxWorkloadPods = 500

func analyzeWorkload(ctx context.Context, e *env, ref ObjectRef) error {
	switch ref.Kind {
	case "Deployment":
		defer e.followAutoscalers(ctx, ref)
		return analyzeDeployment(ctx, e, ref)
	case "ReplicaSet":
		rs, err := getAs[*appsv1.ReplicaSet](ctx, e, "ReplicaSet", ref.Name)
		if err != nil {
			return e.missingTarget(ref, err)
		}
		rref := e.ref("ReplicaSet", rs.Name)
		wl := rref
		if or := controllerOf(rs); or != nil && or.Kind == "Deployment" {
			wl = e.ref("Deployment", or.Name)
		}
		ev := e.objEvidence(rref, "ReplicaSet "+rs.Name+": "+tools.Summarize(rs, e.now).Status)
		e.createFailures(ctx, rref, wl, rsFailureCondition(rs))
		return e.workloadPods(ctx, wl, rs.Spec.Selector, replicasOf(rs.Spec.Replicas), false, []string{ev})
	case "StatefulSet":
		defer e.followAutoscalers(ctx, ref)
		return analyzeStatefulSet(ctx, e, ref)
	case "DaemonSet":
		ds, err := getAs[*appsv1.DaemonSet](ctx, e, "DaemonSet", ref.Name)
		if err != nil {
			return e.missingTarget(ref, err)
		}
		dref := e.ref("DaemonSet", ds.Name)
		ev := e.objEvidence(dref, "DaemonSet "+ds.Name+": "+tools.Summarize(ds, e.now).Status)
		e.createFailures(ctx, dref, dref, "")
		if e.daemonSetNowhere(ctx, ds, []string{ev}) || e.heldDaemonSet(ds, []string{ev}) {
			return nil
		}
		var words map[string]bool
		if !e.daemonSetShortfall(ctx, ds) {
			words = problemWords(e.s.Problem)
		}
		e.daemonSetTaintedNodes(ctx, ds, []string{ev}, words)
		return e.workloadPods(ctx, dref, ds.Spec.Selector, ds.Status.DesiredNumberScheduled, false, []string{ev})
	}
	return fmt.Errorf("workload analyzer does not handle %s", ref.Kind)
}

func replicasOf(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

func rsFailureCondition(rs *appsv1.ReplicaSet) string {
	for _, c := range rs.Status.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
			return c.Message
		}
	}
	return ""
}

func analyzeDeployment(ctx context.Context, e *env, ref ObjectRef) error {
	d, err := getAs[*appsv1.Deployment](ctx, e, "Deployment", ref.Name)
	if err != nil {
		return e.missingTarget(ref, err)
	}
	dref := e.ref("Deployment", d.Name)
	evIDs := []string{e.objEvidence(dref, "Deployment "+d.Name+": "+tools.Summarize(d, e.now).Status)}
	stuck := false
	for _, c := range d.Status.Conditions {
		switch {
		case c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded":
			stuck = true
			evIDs = append(evIDs, e.objEvidence(dref, fmt.Sprintf("Deployment %s condition Progressing=False ProgressDeadlineExceeded: %s", d.Name, c.Message)))
			e.noteReason(evIDs[len(evIDs)-1], c.Reason)
		case c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue:
			e.createFailure(ctx, dref, dref, c.Message, []string{e.objEvidence(dref, "Deployment "+d.Name+" condition ReplicaFailure: "+c.Message)})
		}
	}
	if d.Spec.Paused {
		evIDs = append(evIDs, e.objEvidence(dref, "Deployment "+d.Name+" is paused: rollouts do not progress until it is resumed"))
	}
	rss, err := deploymentReplicaSets(ctx, e, d)
	if err != nil {
		return err
	}
	if len(rss) > 0 {
		newest := rss[0]
		nref := e.ref("ReplicaSet", newest.Name)
		e.examine(nref)
		evIDs = append(evIDs, e.objEvidence(nref, fmt.Sprintf("Newest ReplicaSet %s (revision %d): %s", newest.Name, tools.Revision(newest), tools.Summarize(newest, e.now).Status)))
		e.createFailures(ctx, nref, dref, rsFailureCondition(newest))
		if len(rss) > 1 {
			if ch := imageChange(rss[1], newest); ch != "" {
				evIDs = append(evIDs, e.objEvidence(dref, "Latest rollout changed "+ch))
			}
		}
		e.pausedRollout(d, newest, evIDs)
	} else {
		e.pausedRollout(d, nil, evIDs)
	}
	return e.workloadPods(ctx, dref, d.Spec.Selector, replicasOf(d.Spec.Replicas), stuck, evIDs)
}

func deploymentReplicaSets(ctx context.Context, e *env, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || d.Spec.Selector == nil {
		return nil, nil
	}
	all, _, err := listAs[*appsv1.ReplicaSet](ctx, e, "ReplicaSet", tools.ListOptions{LabelSelector: sel.String(), Max: 200})
	if err != nil {
		return nil, err
	}
	var out []*appsv1.ReplicaSet
	for _, rs := range all {
		if tools.IsOwnedBy(rs, d.UID) {
			out = append(out, rs)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return tools.Revision(out[i]) > tools.Revision(out[j]) })
	return out, nil
}

func imageChange(prev, cur *appsv1.ReplicaSet) string {
	old := map[string]string{}
	for _, c := range prev.Spec.Template.Spec.Containers {
		old[c.Name] = c.Image
	}
	for _, c := range cur.Spec.Template.Spec.Containers {
		if o, ok := old[c.Name]; ok && o != c.Image {
			return fmt.Sprintf("container %s image %s → %s", c.Name, o, c.Image)
		}
	}
	return ""
}

// createFailures reads FailedCreate events on obj (plus a failure condition message).
func (e *env) createFailures(ctx context.Context, obj, workload ObjectRef, condMsg string) {
	n := len(e.res.Findings)
	for _, g := range e.events(ctx, obj.Kind, obj.Name) {
		if g.Reason == "FailedCreate" || g.Reason == "FailedPlacement" {
			e.createFailure(ctx, obj, workload, g.Message, []string{e.eventEvidence(obj, g)})
			return
		}
	}
	if condMsg != "" && len(e.res.Findings) == n {
		e.createFailure(ctx, obj, workload, condMsg, []string{e.objEvidence(obj, obj.Kind+" "+obj.Name+" condition ReplicaFailure: "+condMsg)})
	}
}

// createFailure turns a pod-creation error into a finding with the right culprit.
func (e *env) createFailure(ctx context.Context, seen, workload ObjectRef, msg string, evIDs []string) {
	cf := ParseCreateFailure(msg)
	facts := map[string]string{"workload": kubectlResource(workload), "detail": cf.Detail}
	culprit := workload
	var summary string
	var extra, follow []ObjectRef
	switch cf.Rule {
	case "quota-exceeded":
		culprit = e.ref("ResourceQuota", cf.Object)
		facts["name"] = cf.Object
		if q, err := getAs[*corev1.ResourceQuota](ctx, e, "ResourceQuota", cf.Object); err == nil {
			evIDs = append(evIDs, e.objEvidence(culprit, "ResourceQuota "+q.Name+": "+tools.QuotaLine(q)))
		}
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): ResourceQuota %s is exhausted (%s).", workload.Kind+" "+workload.Name, cf.Object, cf.Detail)
		if hs := e.quotaHolders(ctx); len(hs) > 0 {
			summary += " Its pods are held by " + holdersText(hs) + "."
			if pile := e.cronJobPileUp(ctx, cf.Object, hs, workload); !pile.IsZero() {
				follow = append(follow, pile)
			}
		}
		if lr, why, ok := e.quotaRequestDefaulted(ctx, workload, cf.Detail); ok {
			culprit, summary = lr, summary+why
			extra = append(extra, e.ref("ResourceQuota", cf.Object), workload)
		}
	case "quota-missing-requests":
		facts["name"] = cf.Object
		extra = append(extra, e.ref("ResourceQuota", cf.Object))
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): ResourceQuota %s requires that pods %s.", workload.Kind+" "+workload.Name, cf.Object, cf.Detail)
	case "runtimeclass-missing":
		culprit = ObjectRef{Kind: "RuntimeClass", Name: cf.Object}
		facts["name"] = cf.Object
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): its pod template names RuntimeClass %s, which does not exist, so admission rejects every pod.", workload.Kind+" "+workload.Name, cf.Object)
	case "priorityclass-missing":
		culprit = ObjectRef{Kind: "PriorityClass", Name: cf.Object}
		facts["priorityClass"] = cf.Object
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): its pod template names PriorityClass %s, which does not exist.", workload.Kind+" "+workload.Name, cf.Object)
	case "limitrange-violation":
		lrName := "<limitrange>"
		if lrs, _, err := listAs[*corev1.LimitRange](ctx, e, "LimitRange", tools.ListOptions{Max: 20}); err == nil && len(lrs) > 0 {
			lr := limitRangeBounding(lrs, cf.Detail)
			lrName = lr.Name
			lref := e.ref("LimitRange", lrName)
			evIDs = append(evIDs, e.objEvidence(lref, "LimitRange "+lrName+": "+tools.Summarize(lr, e.now).Status))
			// The LimitRange is the other place to fix: raise its bound (or ratio) or change the pods.
			extra = append(extra, lref)
		}
		facts["limitRange"] = lrName
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): they violate LimitRange %s (%s).", workload.Kind+" "+workload.Name, lrName, cf.Detail)
	case "workload-create-failed":
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): %s", workload.Kind+" "+workload.Name, cf.Detail)
		res, val, ok := strings.Cut(cf.Object, "=")
		if !ok {
			break // not a request above a limit: no LimitRange to list
		}
		if lr, def := e.defaultLimit(ctx, corev1.ResourceName(res), val); lr != nil {
			cf.Rule = "limitrange-violation"
			lref := e.ref("LimitRange", lr.Name)
			evIDs = append(evIDs, e.objEvidence(lref, "LimitRange "+lr.Name+": "+tools.Summarize(lr, e.now).Status))
			extra = append(extra, lref)
			facts["limitRange"] = lr.Name
			summary = fmt.Sprintf("%s cannot create pods (FailedCreate): a container requests more %s than its %s limit, which it does not set itself: LimitRange %s gives every container without one a default %s limit of %s, below the request, so the API server rejects each pod (%s). Give the container its own %s limit at least its request, or raise the LimitRange's default limit.",
				workload.Kind+" "+workload.Name, res, res, lr.Name, res, def, cf.Detail, res)
		}
	case "serviceaccount-missing":
		culprit = e.ref("ServiceAccount", cf.Object)
		facts["name"] = cf.Object
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): ServiceAccount %s does not exist.", workload.Kind+" "+workload.Name, cf.Object)
	case "admission-webhook-failing":
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): %s", workload.Kind+" "+workload.Name, cf.Detail)
		if cfg, svc, why, ok := e.failingWebhook(ctx, cf.Object, cf.Detail); ok {
			culprit = cfg
			facts["name"], facts["webhook"] = cfg.Name, cf.Object
			extra = append(extra, svc)
			summary = fmt.Sprintf("%s cannot create pods (FailedCreate): %s (%s).", workload.Kind+" "+workload.Name, why, cf.Detail)
		}
	case "admission-denied":
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): admission (%s) rejects them: %s", workload.Kind+" "+workload.Name, cf.Object, cf.Detail)
	default:
		summary = fmt.Sprintf("%s cannot create pods (FailedCreate): %s", workload.Kind+" "+workload.Name, cf.Detail)
	}
	affected := []ObjectRef{workload}
	if seen.Key() != workload.Key() {
		affected = append(affected, seen)
	}
	affected = append(affected, extra...)
	e.find(Finding{Rule: cf.Rule, Object: seen, Culprit: culprit, Summary: summary, Evidence: evIDs, Facts: facts, Affected: affected, Follow: follow})
}

// workloadPods looks at a workload's pods and points the regulator at representative
// unhealthy ones (each is analyzed in the next round and explains this finding).
func (e *env) workloadPods(ctx context.Context, wref ObjectRef, sel *metav1.LabelSelector, desired int32, stuck bool, evIDs []string) error {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || sel == nil || s.Empty() {
		return nil
	}
	pods, more, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: s.String(), Max: maxWorkloadPods})
	if err != nil {
		return err
	}
	var unhealthy []*corev1.Pod
	groups := map[string]int{}
	ready := 0
	for _, p := range pods {
		if !s.Matches(labels.Set(p.Labels)) || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		if isReady(p) {
			ready++
		}
		if needsLook(p, e.now) {
			unhealthy = append(unhealthy, p)
			groups[restartSignature(p)]++
		}
	}
	counted := fmt.Sprintf("%d pod(s)", len(pods))
	if more {
		counted = fmt.Sprintf("more than %d pods (first %d inspected)", maxWorkloadPods, len(pods))
	}
	if len(unhealthy) == 0 {
		// A controller the workload's annotations ask to act on it may be failing at that.
		e.followWorkloadControllers(ctx, wref)
		// Healthy-looking pods may still fail at their job: read one's log next round. Asked
		// why traffic reaches only some of them, look at the Services in front of them too.
		for _, p := range pods {
			if s.Matches(labels.Set(p.Labels)) && isReady(p) {
				e.followUp(e.ref("Pod", p.Name))
				if e.asksUnevenTraffic() {
					for _, sref := range e.servicesOf(ctx, p.Labels) {
						e.followUp(sref)
					}
				}
				break
			}
		}
		if stuck {
			e.find(Finding{Rule: "rollout-stuck", Object: wref, Culprit: wref, Evidence: evIDs, Facts: map[string]string{},
				Summary: fmt.Sprintf("%s %s exceeded its progress deadline although its %s look healthy; the rollout may be paused or blocked.", wref.Kind, wref.Name, counted)})
		} else if desired > 0 && len(pods) == 0 && len(e.res.Findings) == 0 {
			e.evidence(fmt.Sprintf("%s %s wants %d replica(s) but has no pods and no recorded creation error", wref.Kind, wref.Name, desired), Source{Kind: SourceObject, Object: &wref}, "")
			e.followUp(ObjectRef{Kind: "Namespace", Name: e.s.Namespace})
		}
		return nil
	}
	reps := representatives(unhealthy, 3)
	var follow []ObjectRef
	for _, p := range reps {
		follow = append(follow, e.ref("Pod", p.Name))
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", groups[k], k))
	}
	evIDs = append(evIDs, e.objEvidence(wref, fmt.Sprintf("%s %s: %d of %s unhealthy: %v", wref.Kind, wref.Name, len(unhealthy), counted, parts)))
	// The replica counts a reader compares first: desired against ready.
	replicas := fmt.Sprintf("%d of %d desired replicas ready", ready, desired)
	rule, summary := "workload-pods-unhealthy", fmt.Sprintf("%s %s has %s: %d unhealthy pod(s) of %s (%v).", wref.Kind, wref.Name, replicas, len(unhealthy), counted, parts)
	if stuck {
		rule = "rollout-stuck"
		summary = fmt.Sprintf("%s %s rollout exceeded its progress deadline (ProgressDeadlineExceeded) with %s: %d of %s are not ready (%v).", wref.Kind, wref.Name, replicas, len(unhealthy), counted, parts)
	}
	e.find(Finding{Rule: rule, Object: wref, Culprit: wref, Follow: follow, Affected: follow, Evidence: evIDs, Summary: summary,
		Facts: map[string]string{"pod": reps[0].Name}})
	return nil
}

func analyzeStatefulSet(ctx context.Context, e *env, ref ObjectRef) error {
	sts, err := getAs[*appsv1.StatefulSet](ctx, e, "StatefulSet", ref.Name)
	if err != nil {
		return e.missingTarget(ref, err)
	}
	sref := e.ref("StatefulSet", sts.Name)
	evIDs := []string{e.objEvidence(sref, "StatefulSet "+sts.Name+": "+tools.Summarize(sts, e.now).Status)}
	e.createFailures(ctx, sref, sref, "")
	e.governingService(ctx, sts, evIDs)
	e.heldStatefulSet(sts, evIDs)
	replicas := replicasOf(sts.Spec.Replicas)
	for _, t := range sts.Spec.VolumeClaimTemplates {
		for i := int32(0); i < replicas && i < 3; i++ {
			name := fmt.Sprintf("%s-%s-%d", t.Name, sts.Name, i)
			pvc, err := getAs[*corev1.PersistentVolumeClaim](ctx, e, "PersistentVolumeClaim", name)
			if err != nil || pvc.Status.Phase == corev1.ClaimBound {
				continue
			}
			cref := e.ref("PersistentVolumeClaim", name)
			e.find(Finding{Rule: "statefulset-pvc-pending", Object: sref, Culprit: cref, Follow: []ObjectRef{cref}, Affected: []ObjectRef{sref},
				Evidence: append(evIDs, e.objEvidence(cref, "PersistentVolumeClaim "+name+": "+tools.Summarize(pvc, e.now).Status)),
				Facts:    map[string]string{"claim": name},
				Summary:  fmt.Sprintf("StatefulSet %s waits for its volume claim %s, which is %s.", sts.Name, name, pvc.Status.Phase)})
			break
		}
	}
	return e.workloadPods(ctx, sref, sts.Spec.Selector, replicas, false, evIDs)
}

// daemonSetNowhere reports a DaemonSet that no node is eligible for.
func (e *env) daemonSetNowhere(ctx context.Context, ds *appsv1.DaemonSet, evIDs []string) bool {
	spec := ds.Spec.Template.Spec
	if ds.Status.DesiredNumberScheduled > 0 || ds.Status.ObservedGeneration == 0 || len(spec.NodeSelector) == 0 && spec.Affinity == nil {
		return false
	}
	dref := e.ref("DaemonSet", ds.Name)
	sel := "node affinity"
	if len(spec.NodeSelector) > 0 {
		sel = "nodeSelector " + tools.LabelsString(spec.NodeSelector)
	}
	nodes := "no node"
	if ns, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects); err == nil {
		nodes = fmt.Sprintf("none of the %d node(s)", len(ns))
	}
	e.find(Finding{Rule: "daemonset-no-nodes", Object: dref, Culprit: dref, Evidence: evIDs, Facts: map[string]string{"nodeSelector": sel},
		Summary: fmt.Sprintf("DaemonSet %s wants 0 pods (desiredNumberScheduled 0): %s matches its %s, so it runs on no node.", ds.Name, nodes, sel)})
	return true
}

// governingService reports a StatefulSet whose spec.serviceName names no Service.
func (e *env) governingService(ctx context.Context, sts *appsv1.StatefulSet, evIDs []string) {
	if sts.Spec.ServiceName == "" {
		return
	}
	if _, err := e.get(ctx, "Service", sts.Spec.ServiceName); !tools.IsNotFound(err) {
		return
	}
	sref := e.ref("StatefulSet", sts.Name)
	svc := e.ref("Service", sts.Spec.ServiceName)
	e.find(Finding{Rule: "statefulset-service-missing", Object: sref, Culprit: svc, Affected: []ObjectRef{sref}, Evidence: evIDs,
		Facts:   map[string]string{"service": sts.Spec.ServiceName},
		Summary: fmt.Sprintf("StatefulSet %s names governing Service %s in spec.serviceName, but no such Service exists, so its pods get no stable network identity (pod-0.%s DNS names do not resolve).", sts.Name, sts.Spec.ServiceName, sts.Spec.ServiceName)})
}
