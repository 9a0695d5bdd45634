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

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/tools"
)

func init() {
	analyzers["node"] = analyzeNode
	analyzers["hpa"] = analyzeHPA
	analyzers["pdb"] = analyzePDB
	analyzers["quota"] = analyzeQuota
	analyzers["object"] = analyzeObject
}

func analyzeNode(ctx context.Context, e *env, ref ObjectRef) error {
	n, err := getAs[*corev1.Node](ctx, e, "Node", ref.Name)
	if err != nil {
		return e.missingTarget(ObjectRef{Kind: "Node", Name: ref.Name}, err)
	}
	nref := e.ref("Node", n.Name)
	e.checkNode(n, []string{e.objEvidence(nref, "Node "+n.Name+": "+tools.Summarize(n, e.now).Status)})
	if e.hop == 0 {
		pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", n.Name).String(), Max: 200})
		if err == nil {
			var names []string
			for _, p := range pods {
				if p.Spec.NodeName == n.Name && len(names) < 10 {
					names = append(names, p.Name)
				}
			}
			e.objEvidence(nref, fmt.Sprintf("pods of %s on node %s: %s", e.s.Namespace, n.Name, orDefault(strings.Join(names, ", "), "none")))
		}
	}
	return nil
}

// checkNode applies the node rules; it reads no more from the API.
func (e *env) checkNode(n *corev1.Node, evIDs []string) {
	nref := e.ref("Node", n.Name)
	h := tools.NodeHealth(n)
	facts := map[string]string{"name": n.Name}
	if h.Ready != "True" {
		facts["detail"] = strings.TrimSpace(h.ReadyReason + " " + h.ReadyMessage)
		e.find(Finding{Rule: "node-not-ready", Object: nref, Culprit: nref, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("Node %s is NotReady (Ready=%s, %s%s): %s", n.Name, h.Ready, orDefault(h.ReadyReason, "no reason"), e.heartbeat(n), orDefault(h.ReadyMessage, "no message"))})
		return
	}
	for _, c := range n.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		rule := ""
		switch c.Type {
		case corev1.NodeMemoryPressure:
			rule = "node-memory-pressure"
		case corev1.NodeDiskPressure:
			rule = "node-disk-pressure"
		case corev1.NodePIDPressure:
			rule = "node-pid-pressure"
		case corev1.NodeNetworkUnavailable:
			rule = "node-network-unavailable"
		}
		if rule != "" {
			e.find(Finding{Rule: rule, Object: nref, Culprit: nref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("Node %s reports %s (%s): %s", n.Name, c.Type, c.Reason, tools.Sanitize(c.Message, 200, true))})
			return
		}
	}
	if n.Spec.Unschedulable {
		e.find(Finding{Rule: "node-cordoned", Object: nref, Culprit: nref, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("Node %s is cordoned (SchedulingDisabled): no new pods land on it.", n.Name)})
	}
}

// heartbeat says how long ago the kubelet last reported the node's Ready condition.
func (e *env) heartbeat(n *corev1.Node) string {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && !c.LastHeartbeatTime.IsZero() {
			if d := e.now.Sub(c.LastHeartbeatTime.Time).Round(time.Second); d > 0 {
				return ", last heartbeat " + d.String() + " ago"
			}
		}
	}
	return ""
}

func analyzeHPA(ctx context.Context, e *env, ref ObjectRef) error {
	h, err := getAs[*autoscalingv2.HorizontalPodAutoscaler](ctx, e, "HorizontalPodAutoscaler", ref.Name)
	if err != nil {
		return e.missingTarget(ObjectRef{Kind: "HorizontalPodAutoscaler", Name: ref.Name}, err)
	}
	return e.checkHPA(ctx, h, e.events(ctx, "HorizontalPodAutoscaler", h.Name))
}

func (e *env) checkHPA(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler, evs []tools.EventGroup) error {
	href := e.ref("HorizontalPodAutoscaler", h.Name)
	target := e.ref(h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name)
	evIDs := []string{e.objEvidence(href, "HorizontalPodAutoscaler "+h.Name+": "+tools.Summarize(h, e.now).Status)}
	facts := map[string]string{"target": target.Kind + "/" + target.Name, "maxReplicas": fmt.Sprint(h.Spec.MaxReplicas), "hpa": h.Name,
		"workload": kubectlResource(target), "metric": "cpu"}
	var ableFalse, activeFalse, limited *autoscalingv2.HorizontalPodAutoscalerCondition
	for i := range h.Status.Conditions {
		c := &h.Status.Conditions[i]
		switch {
		case c.Type == autoscalingv2.AbleToScale && c.Status == corev1.ConditionFalse:
			ableFalse = c
		case c.Type == autoscalingv2.ScalingActive && c.Status == corev1.ConditionFalse:
			activeFalse = c
		case c.Type == autoscalingv2.ScalingLimited && c.Status == corev1.ConditionTrue:
			limited = c
		}
	}
	for _, c := range []*autoscalingv2.HorizontalPodAutoscalerCondition{ableFalse, activeFalse, limited} {
		if c != nil {
			e.noteReason(evIDs[0], c.Reason)
		}
	}
	if ableFalse != nil || (activeFalse != nil && activeFalse.Reason == "FailedGetScale") {
		if _, err := e.get(ctx, target.Kind, target.Name); tools.IsNotFound(err) || ableFalse != nil && ableFalse.Reason == "FailedGetScale" {
			affected := []ObjectRef{target}
			meant := ""
			if av := h.Spec.ScaleTargetRef.APIVersion; av != "" && removedWorkloadAPI(target.Kind, av) {
				// The object exists, but not in the API the reference asks for.
				meant = fmt.Sprintf(" Its scaleTargetRef.apiVersion is %s: %s is not found in that API, which the cluster no longer serves for it; set it to apps/v1.", av, target.Kind)
				facts["apiVersion"] = av
			} else if near := e.nearestOfKind(ctx, target.Kind, target.Name); near != "" {
				affected = append(affected, e.ref(target.Kind, near))
				meant = fmt.Sprintf(" %s %s exists: if it is the workload to scale, point scaleTargetRef.name at it.", target.Kind, near)
				facts["closest"] = near
			}
			e.find(Finding{Rule: "hpa-target-missing", Object: href, Culprit: href, Affected: affected, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("HorizontalPodAutoscaler %s cannot scale: its scaleTargetRef names %s/%s, which cannot be read (%s).%s", h.Name, target.Kind, target.Name, condMsg(ableFalse, activeFalse), meant)})
			return nil
		}
	}
	if e.hpaConflict(ctx, h, href, target, activeFalse, evIDs, facts) {
		return nil
	}
	// An autoscaler never scales a workload up from zero replicas: someone scaled it to 0
	// by hand, and the HPA says so (ScalingActive False, ScalingDisabled).
	if activeFalse != nil && activeFalse.Reason == "ScalingDisabled" {
		facts["resource"] = kubectlResource(target)
		minR := replicasOr(h.Spec.MinReplicas, 1)
		e.find(Finding{Rule: "deployment-scaled-to-zero", Object: href, Culprit: target, Affected: []ObjectRef{target, href}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s does nothing: %s/%s is scaled to zero replicas (ScalingActive False, ScalingDisabled: %s), and an autoscaler never scales a workload up from 0. Scale %s back to its minimum of %d replicas (kubectl scale --replicas=%d); the HPA resumes from there.",
				h.Name, target.Kind, target.Name, tools.Sanitize(activeFalse.Message, 160, true), target.Name, minR, minR)})
		return nil
	}
	// Utilization targets need requests on every container; without them the HPA cannot
	// work even once metrics are available, so this is checked on the spec directly.
	if res, container := utilizationWithoutRequests(ctx, e, h, target); res != "" {
		facts["metric"] = res
		e.find(Finding{Rule: "hpa-missing-requests", Object: href, Culprit: target, Affected: []ObjectRef{href}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s scales on %s utilization, but container %s of %s/%s sets no %s request, so utilization cannot be computed.", h.Name, res, container, target.Kind, target.Name, res)})
		return nil
	}
	// The workload runs fewer replicas than the autoscaler's minimum: whatever keeps its pods
	// from being created or scheduled explains the HPA's trouble, metrics or not.
	if minR := replicasOr(h.Spec.MinReplicas, 1); h.Status.CurrentReplicas < minR && ableFalse == nil {
		e.find(Finding{Rule: "hpa-scale-blocked", Object: href, Culprit: target, Affected: []ObjectRef{target}, Follow: []ObjectRef{target}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s keeps %s/%s at a minimum of %d replicas, but only %d run%s.", h.Name, target.Kind, target.Name, minR, h.Status.CurrentReplicas, hpaMetrics(h))})
	} else if want, have, ok := e.scaledShort(ctx, target); ok && ableFalse == nil {
		// The HPA's currentReplicas is the replicas it asked for, not the pods that exist:
		// a workload short of what it was scaled to is blocked by whatever stops its pods.
		e.find(Finding{Rule: "hpa-scale-blocked", Object: href, Culprit: target, Affected: []ObjectRef{target}, Follow: []ObjectRef{target}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s scaled %s/%s to %d replicas, but only %d pod(s) exist%s.", h.Name, target.Kind, target.Name, want, have, hpaMetrics(h))})
	}
	// The autoscaler says itself that it took a manual scale-up back to its maximum: that
	// answers "it keeps dropping back", whatever its metrics do.
	undo := scaledBack(evs)
	if undo != "" && h.Spec.MaxReplicas > 0 {
		e.find(Finding{Rule: "hpa-maxed-out", Confidence: 88, Object: href, Culprit: href, Affected: []ObjectRef{target}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s holds %s/%s at maxReplicas %d (now %d replicas).%s", h.Name, target.Kind, target.Name, h.Spec.MaxReplicas, h.Status.CurrentReplicas, undo)})
	}
	msg := ""
	if activeFalse != nil && activeFalse.Reason != "ScalingDisabled" {
		msg = activeFalse.Message
	}
	if msg == "" {
		for _, g := range evs {
			if g.Type == corev1.EventTypeWarning && strings.HasPrefix(g.Reason, "FailedGet") || g.Reason == "FailedComputeMetricsReplicas" {
				msg = g.Message
				evIDs = append(evIDs, e.eventEvidence(href, g))
				break
			}
		}
	}
	if msg != "" {
		facts["detail"] = msg
		low := strings.ToLower(msg)
		if strings.Contains(low, "missing request for") {
			if strings.Contains(low, "memory") {
				facts["metric"] = "memory"
			}
			e.find(Finding{Rule: "hpa-missing-requests", Object: href, Culprit: target, Affected: []ObjectRef{href}, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("HorizontalPodAutoscaler %s cannot compute utilization: the pods of %s/%s set no %s request (%s).", h.Name, target.Kind, target.Name, facts["metric"], tools.Sanitize(msg, 200, true))})
			return nil
		}
		e.find(Finding{Rule: "hpa-metrics-unavailable", Object: href, Culprit: href, Affected: []ObjectRef{target}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s cannot read its metrics, so it does not scale %s/%s: %s", h.Name, target.Kind, target.Name, tools.Sanitize(msg, 300, true))})
		return nil
	}
	metrics := hpaMetrics(h)
	if undo == "" && h.Spec.MaxReplicas > 0 && h.Status.CurrentReplicas >= h.Spec.MaxReplicas && (limited != nil && limited.Reason == "TooManyReplicas" || h.Status.DesiredReplicas >= h.Spec.MaxReplicas) {
		e.find(Finding{Rule: "hpa-maxed-out", Object: href, Culprit: href, Affected: []ObjectRef{target}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s runs %s/%s at its maximum, maxReplicas %d, and wants more (desired %d)%s.", h.Name, target.Kind, target.Name, h.Spec.MaxReplicas, h.Status.DesiredReplicas, metrics)})
		return nil
	}
	if h.Status.DesiredReplicas > h.Status.CurrentReplicas && ableFalse == nil && h.Status.CurrentReplicas >= replicasOr(h.Spec.MinReplicas, 1) {
		// The autoscaler decided to scale but the replicas do not come: whatever keeps the
		// workload's pods from being created or scheduled explains it.
		e.find(Finding{Rule: "hpa-scale-blocked", Object: href, Culprit: target, Affected: []ObjectRef{target}, Evidence: evIDs, Facts: facts, Follow: []ObjectRef{target},
			Summary: fmt.Sprintf("HorizontalPodAutoscaler %s wants %d replicas of %s/%s but only %d run%s.", h.Name, h.Status.DesiredReplicas, target.Kind, target.Name, h.Status.CurrentReplicas, metrics)})
	}
	return nil
}

// hpaMetrics renders the autoscaler's observed metrics against their targets
// ("; cpu 180% of requests, target 60%").
func hpaMetrics(h *autoscalingv2.HorizontalPodAutoscaler) string {
	var parts []string
	for i, m := range h.Spec.Metrics {
		if i >= 3 || m.Resource == nil {
			continue
		}
		want := ""
		switch {
		case m.Resource.Target.AverageUtilization != nil:
			want = fmt.Sprintf("target %d%% of requests", *m.Resource.Target.AverageUtilization)
		case m.Resource.Target.AverageValue != nil:
			want = "target " + m.Resource.Target.AverageValue.String()
		}
		got := "current unknown"
		for _, c := range h.Status.CurrentMetrics {
			if c.Resource == nil || c.Resource.Name != m.Resource.Name {
				continue
			}
			if c.Resource.Current.AverageUtilization != nil {
				got = fmt.Sprintf("current %d%%", *c.Resource.Current.AverageUtilization)
			} else if c.Resource.Current.AverageValue != nil {
				got = "current " + c.Resource.Current.AverageValue.String()
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s, %s", m.Resource.Name, got, want))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

func condMsg(cs ...*autoscalingv2.HorizontalPodAutoscalerCondition) string {
	for _, c := range cs {
		if c != nil && c.Message != "" {
			return tools.Sanitize(c.Message, 200, true)
		}
	}
	return "not found"
}

func analyzePDB(ctx context.Context, e *env, ref ObjectRef) error {
	pdb, err := getAs[*policyv1.PodDisruptionBudget](ctx, e, "PodDisruptionBudget", ref.Name)
	if err != nil {
		return e.missingTarget(ObjectRef{Kind: "PodDisruptionBudget", Name: ref.Name}, err)
	}
	return e.checkPDB(ctx, pdb, true)
}

func (e *env) checkPDB(ctx context.Context, pdb *policyv1.PodDisruptionBudget, followPods bool) error {
	pref := e.ref("PodDisruptionBudget", pdb.Name)
	evIDs := []string{e.objEvidence(pref, "PodDisruptionBudget "+pdb.Name+": "+tools.Summarize(pdb, e.now).Status)}
	budget := ""
	if pdb.Spec.MinAvailable != nil {
		budget = "minAvailable " + pdb.Spec.MinAvailable.String()
	}
	if pdb.Spec.MaxUnavailable != nil {
		budget = "maxUnavailable " + pdb.Spec.MaxUnavailable.String()
	}
	facts := map[string]string{"budget": budget}
	st := pdb.Status
	if st.ExpectedPods == 0 {
		if pdb.Status.ObservedGeneration > 0 || len(pdb.Status.Conditions) > 0 {
			e.find(Finding{Rule: "pdb-selects-no-pods", Object: pref, Culprit: pref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("PodDisruptionBudget %s selects no pods (selector %s).", pdb.Name, tools.LabelsString(selectorLabels(pdb)))})
		}
		return nil
	}
	if st.DisruptionsAllowed > 0 {
		return nil
	}
	f := Finding{Rule: "pdb-blocking", Object: pref, Culprit: pref, Evidence: evIDs, Facts: facts}
	if st.CurrentHealthy < st.DesiredHealthy && followPods && pdb.Spec.Selector != nil {
		sel, err := metav1Selector(pdb.Spec.Selector)
		if err == nil && !sel.Empty() {
			pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: sel.String(), Max: 200})
			if err != nil {
				return err
			}
			var bad []*corev1.Pod
			for _, p := range pods {
				if sel.Matches(labels.Set(p.Labels)) && !isReady(p) {
					bad = append(bad, p)
				}
			}
			for _, p := range representatives(bad, 2) {
				f.Follow = append(f.Follow, e.ref("Pod", p.Name))
			}
		}
		f.Summary = fmt.Sprintf("PodDisruptionBudget %s allows 0 disruptions: only %d of the %d required pods are healthy (%s), so drains and evictions are blocked until the pods recover.", pdb.Name, st.CurrentHealthy, st.DesiredHealthy, budget)
	} else {
		f.Summary = fmt.Sprintf("PodDisruptionBudget %s allows 0 disruptions with %d healthy of %d expected pods (%s): its budget leaves no room, so node drains and evictions of these pods are blocked.", pdb.Name, st.CurrentHealthy, st.ExpectedPods, budget)
	}
	e.find(f)
	return nil
}

func selectorLabels(pdb *policyv1.PodDisruptionBudget) map[string]string {
	if pdb.Spec.Selector == nil {
		return nil
	}
	return pdb.Spec.Selector.MatchLabels
}

// analyzeQuota handles ResourceQuota and LimitRange targets: usage, plus pod-creation
// failures in the namespace that mention them.
func analyzeQuota(ctx context.Context, e *env, ref ObjectRef) error {
	if _, err := e.get(ctx, ref.Kind, ref.Name); err != nil {
		return e.missingTarget(ref, err)
	}
	n := len(e.res.Findings)
	e.creationFailuresInNamespace(ctx)
	if len(e.res.Findings) > n {
		return nil
	}
	if ref.Kind == "ResourceQuota" {
		q, err := getAs[*corev1.ResourceQuota](ctx, e, "ResourceQuota", ref.Name)
		if err != nil {
			return err
		}
		e.checkQuota(q)
	}
	return nil
}

func (e *env) checkQuota(q *corev1.ResourceQuota) {
	r := tools.QuotaReportOf(q)
	var full []string
	for _, res := range r.Resources {
		if res.Full {
			full = append(full, fmt.Sprintf("%s %s/%s", res.Resource, res.Used, res.Hard))
		}
	}
	if len(full) == 0 {
		return
	}
	qref := e.ref("ResourceQuota", q.Name)
	ev := e.objEvidence(qref, "ResourceQuota "+q.Name+": "+tools.QuotaLine(q))
	e.find(Finding{Rule: "quota-exhausted", Object: qref, Culprit: qref, Evidence: []string{ev}, Facts: map[string]string{"detail": strings.Join(full, ", ")},
		Summary: fmt.Sprintf("ResourceQuota %s is fully used (%s): new pods needing these resources will be rejected.", q.Name, strings.Join(full, ", "))})
}

// creationFailuresInNamespace turns FailedCreate warnings on controllers into findings.
func (e *env) creationFailuresInNamespace(ctx context.Context) {
	seen := map[string]bool{}
	for _, g := range e.nsWarnings(ctx, 100) {
		if g.Reason != "FailedCreate" {
			continue
		}
		kind, name, ok := strings.Cut(g.Object, "/")
		if !ok || seen[g.Object] || len(seen) >= 5 {
			continue
		}
		seen[g.Object] = true
		obj := e.ref(kind, name)
		wl := obj
		if kind == "ReplicaSet" {
			if rs, err := e.get(ctx, "ReplicaSet", name); err == nil {
				if or := controllerOfObj(rs); or != nil {
					wl = e.ref(or.Kind, or.Name)
				}
			}
		}
		e.createFailure(ctx, obj, wl, g.Message, []string{e.eventEvidence(obj, g)})
	}
}

// analyzeObject covers kinds without a dedicated analyzer: existence and stuck deletion.
func analyzeObject(ctx context.Context, e *env, ref ObjectRef) error {
	obj, err := e.get(ctx, ref.Kind, ref.Name)
	if err != nil {
		return e.missingTarget(ref, err)
	}
	s := tools.Summarize(obj, e.now)
	r := e.ref(ref.Kind, ref.Name)
	ev := e.objEvidence(r, s.Kind+" "+s.Name+": "+s.Status)
	if m := metaOfObj(obj); m != nil && m.GetDeletionTimestamp() != nil && e.now.Sub(m.GetDeletionTimestamp().Time) > 5*time.Minute {
		e.find(Finding{Rule: "pod-stuck-terminating", Object: r, Culprit: r, Evidence: []string{ev},
			Facts:   map[string]string{"finalizers": strings.Join(m.GetFinalizers(), ","), "resource": kubectlResource(r)},
			Summary: fmt.Sprintf("%s %s has been deleting since %s; finalizers %s hold it.", s.Kind, s.Name, m.GetDeletionTimestamp().Format("2006-01-02T15:04:05Z"), orDefault(strings.Join(m.GetFinalizers(), ","), "none"))})
	}
	return nil
}

func metaOfObj(o runtime.Object) metav1.Object {
	m, err := meta.Accessor(o)
	if err != nil {
		return nil
	}
	return m
}

func controllerOfObj(o runtime.Object) *metav1.OwnerReference {
	if m := metaOfObj(o); m != nil {
		return controllerOf(m)
	}
	return nil
}

// utilizationWithoutRequests returns the resource and container of the first utilization
// metric whose container has no request for it.
func utilizationWithoutRequests(ctx context.Context, e *env, h *autoscalingv2.HorizontalPodAutoscaler, target ObjectRef) (string, string) {
	var want []corev1.ResourceName
	for _, m := range h.Spec.Metrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Target.Type == autoscalingv2.UtilizationMetricType {
			want = append(want, m.Resource.Name)
		}
	}
	if len(want) == 0 {
		return "", ""
	}
	obj, err := e.get(ctx, target.Kind, target.Name)
	if err != nil {
		return "", ""
	}
	spec, _, ok := tools.PodTemplate(obj)
	if !ok {
		return "", ""
	}
	for _, r := range want {
		for _, c := range spec.Containers {
			if _, has := c.Resources.Requests[r]; !has {
				return string(r), c.Name
			}
		}
	}
	return "", ""
}

// scaledShort reads the HPA's target and reports its wanted and existing replicas when it has
// fewer pods than its spec asks for.
func (e *env) scaledShort(ctx context.Context, target ObjectRef) (want, have int32, short bool) {
	switch target.Kind {
	case "Deployment":
		d, err := getAs[*appsv1.Deployment](ctx, e, "Deployment", target.Name)
		if err != nil {
			return 0, 0, false
		}
		want, have = replicasOf(d.Spec.Replicas), d.Status.Replicas
	case "StatefulSet":
		s, err := getAs[*appsv1.StatefulSet](ctx, e, "StatefulSet", target.Name)
		if err != nil {
			return 0, 0, false
		}
		want, have = replicasOf(s.Spec.Replicas), s.Status.Replicas
	default:
		return 0, 0, false
	}
	return want, have, have < want
}
