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

package tools

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Field is one describe line.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Condition is a status condition in compact form.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Age     string `json:"age,omitempty"`
}

// ObjectSummary is the describe-like, bounded view of one object. It never holds
// Secret values or ConfigMap data, only key names.
type ObjectSummary struct {
	Kind        string      `json:"kind"`
	Namespace   string      `json:"namespace,omitempty"`
	Name        string      `json:"name"`
	Status      string      `json:"status"`
	Age         string      `json:"age,omitempty"`
	Terminating string      `json:"terminating,omitempty"`
	Owners      []string    `json:"owners,omitempty"`
	Fields      []Field     `json:"fields,omitempty"`
	Conditions  []Condition `json:"conditions,omitempty"`
}

const (
	maxFields     = 40
	maxKeysShown  = 30
	maxFieldValue = 300
)

// Age renders a duration like kubectl does (5s, 3m, 2h, 4d).
func Age(now time.Time, t metav1.Time) string {
	if t.IsZero() {
		return ""
	}
	return shortDur(now.Sub(t.Time))
}

type summaryBuilder struct {
	s   *ObjectSummary
	now time.Time
}

func (b *summaryBuilder) field(name, format string, args ...any) {
	if len(b.s.Fields) >= maxFields {
		return
	}
	v := format
	if len(args) > 0 {
		v = fmt.Sprintf(format, args...)
	}
	b.s.Fields = append(b.s.Fields, Field{Name: name, Value: Sanitize(v, maxFieldValue, true)})
}

func (b *summaryBuilder) cond(typ, status, reason, msg string, t metav1.Time) {
	b.s.Conditions = append(b.s.Conditions, Condition{
		Type: typ, Status: status, Reason: Sanitize(reason, 80, true),
		Message: Sanitize(msg, maxFieldValue, true), Age: Age(b.now, t),
	})
}

// Summarize renders the describe-like summary of any object the tools know.
func Summarize(obj runtime.Object, now time.Time) ObjectSummary {
	m := metaOf(obj)
	s := ObjectSummary{Kind: KindOf(obj)}
	if m == nil {
		s.Status = "unknown object"
		return s
	}
	s.Namespace, s.Name = m.GetNamespace(), m.GetName()
	s.Age = Age(now, m.GetCreationTimestamp())
	if dt := m.GetDeletionTimestamp(); dt != nil {
		s.Terminating = fmt.Sprintf("deletion requested %s ago", Age(now, *dt))
		if f := m.GetFinalizers(); len(f) > 0 {
			s.Terminating += "; finalizers: " + Sanitize(strings.Join(f, ","), 200, true)
		}
	}
	for _, o := range m.GetOwnerReferences() {
		s.Owners = append(s.Owners, o.Kind+"/"+o.Name)
	}
	b := &summaryBuilder{s: &s, now: now}
	switch o := obj.(type) {
	case *corev1.Pod:
		describePod(b, o)
	case *appsv1.Deployment:
		describeDeployment(b, o)
	case *appsv1.ReplicaSet:
		describeReplicaSet(b, o)
	case *appsv1.StatefulSet:
		s.Status = fmt.Sprintf("ready %d/%d, updated %d, current revision %s", o.Status.ReadyReplicas, replicas(o.Spec.Replicas), o.Status.UpdatedReplicas, o.Status.CurrentRevision)
		b.field("selector", "%s", selectorString(o.Spec.Selector))
		b.field("images", "%s", images(o.Spec.Template.Spec))
		for _, t := range o.Spec.VolumeClaimTemplates {
			b.field("volumeClaimTemplate", "%s class=%s", t.Name, ptrStr(t.Spec.StorageClassName))
		}
		for _, c := range o.Status.Conditions {
			b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
		}
	case *appsv1.DaemonSet:
		s.Status = fmt.Sprintf("desired %d, ready %d, available %d, misscheduled %d", o.Status.DesiredNumberScheduled, o.Status.NumberReady, o.Status.NumberAvailable, o.Status.NumberMisscheduled)
		b.field("selector", "%s", selectorString(o.Spec.Selector))
		b.field("images", "%s", images(o.Spec.Template.Spec))
		for _, c := range o.Status.Conditions {
			b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
		}
	case *appsv1.ControllerRevision:
		s.Status = fmt.Sprintf("revision %d", o.Revision)
	case *batchv1.Job:
		describeJob(b, o)
	case *batchv1.CronJob:
		s.Status = fmt.Sprintf("schedule %q, suspend=%t, active %d, last schedule %s", o.Spec.Schedule, o.Spec.Suspend != nil && *o.Spec.Suspend, len(o.Status.Active), ageOrNever(now, o.Status.LastScheduleTime))
		b.field("concurrencyPolicy", "%s", o.Spec.ConcurrencyPolicy)
		if o.Spec.StartingDeadlineSeconds != nil {
			b.field("startingDeadlineSeconds", "%d", *o.Spec.StartingDeadlineSeconds)
		}
		if o.Spec.TimeZone != nil {
			b.field("timeZone", "%s", *o.Spec.TimeZone)
		}
		b.field("lastSuccessfulTime", "%s", ageOrNever(now, o.Status.LastSuccessfulTime))
		b.field("images", "%s", images(o.Spec.JobTemplate.Spec.Template.Spec))
	case *corev1.Service:
		describeService(b, o)
	case *corev1.Endpoints:
		ready, notReady := 0, 0
		for _, ss := range o.Subsets {
			ready += len(ss.Addresses)
			notReady += len(ss.NotReadyAddresses)
		}
		s.Status = fmt.Sprintf("%d ready address(es), %d not ready", ready, notReady)
	case *discoveryv1.EndpointSlice:
		ready, total := 0, len(o.Endpoints)
		for _, e := range o.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				ready++
			}
		}
		s.Status = fmt.Sprintf("service %s: %d/%d endpoints ready", o.Labels[discoveryv1.LabelServiceName], ready, total)
		var ports []string
		for _, p := range o.Ports {
			ports = append(ports, fmt.Sprintf("%s:%d", ptrStr(p.Name), ptrInt32(p.Port)))
		}
		b.field("ports", "%s", strings.Join(ports, ", "))
	case *corev1.PersistentVolumeClaim:
		req := o.Spec.Resources.Requests[corev1.ResourceStorage]
		s.Status = fmt.Sprintf("%s, class=%s, request=%s, access=%s", o.Status.Phase, ptrStrOr(o.Spec.StorageClassName, "<unset>"), req.String(), accessModes(o.Spec.AccessModes))
		if o.Spec.VolumeName != "" {
			b.field("volume", "%s", o.Spec.VolumeName)
		}
		for _, c := range o.Status.Conditions {
			b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
		}
	case *corev1.PersistentVolume:
		capacity := o.Spec.Capacity[corev1.ResourceStorage]
		claim := "<none>"
		if o.Spec.ClaimRef != nil {
			claim = o.Spec.ClaimRef.Namespace + "/" + o.Spec.ClaimRef.Name
		}
		s.Status = fmt.Sprintf("%s, class=%s, capacity=%s, access=%s, claim=%s", o.Status.Phase, o.Spec.StorageClassName, capacity.String(), accessModes(o.Spec.AccessModes), claim)
		b.field("reclaimPolicy", "%s", o.Spec.PersistentVolumeReclaimPolicy)
	case *storagev1.StorageClass:
		mode := "Immediate"
		if o.VolumeBindingMode != nil {
			mode = string(*o.VolumeBindingMode)
		}
		s.Status = fmt.Sprintf("provisioner=%s, binding=%s, default=%t", o.Provisioner, mode, IsDefaultStorageClass(o))
	case *storagev1.CSIDriver:
		s.Status = "CSI driver registered"
	case *corev1.ConfigMap:
		keys := make([]string, 0, len(o.Data)+len(o.BinaryData))
		for k := range o.Data {
			keys = append(keys, k)
		}
		for k := range o.BinaryData {
			keys = append(keys, k)
		}
		s.Status = fmt.Sprintf("%d key(s): %s", len(keys), joinCapped(keys, maxKeysShown))
	case *corev1.Secret:
		keys := SecretKeys(o)
		s.Status = fmt.Sprintf("type %s, %d key(s): %s (values never shown)", o.Type, len(keys), joinCapped(keys, maxKeysShown))
	case *corev1.ServiceAccount:
		s.Status = fmt.Sprintf("%d image pull secret(s)", len(o.ImagePullSecrets))
	case *corev1.Node:
		describeNode(b, o)
	case *corev1.Event:
		s.Status = fmt.Sprintf("%s %s %s/%s: %s", o.Type, o.Reason, o.InvolvedObject.Kind, o.InvolvedObject.Name, Sanitize(o.Message, 200, true))
	case *autoscalingv2.HorizontalPodAutoscaler:
		describeHPA(b, o)
	case *policyv1.PodDisruptionBudget:
		s.Status = fmt.Sprintf("disruptionsAllowed %d, healthy %d/%d desired, expected pods %d", o.Status.DisruptionsAllowed, o.Status.CurrentHealthy, o.Status.DesiredHealthy, o.Status.ExpectedPods)
		if o.Spec.MinAvailable != nil {
			b.field("minAvailable", "%s", o.Spec.MinAvailable.String())
		}
		if o.Spec.MaxUnavailable != nil {
			b.field("maxUnavailable", "%s", o.Spec.MaxUnavailable.String())
		}
		b.field("selector", "%s", selectorString(o.Spec.Selector))
		for _, c := range o.Status.Conditions {
			b.cond(c.Type, string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
		}
	case *networkingv1.Ingress:
		backends := IngressBackends(o)
		var parts []string
		for _, be := range backends {
			parts = append(parts, be.String())
		}
		s.Status = fmt.Sprintf("class=%s, %d backend(s)", ptrStrOr(o.Spec.IngressClassName, "<default>"), len(backends))
		b.field("backends", "%s", joinCapped(parts, 20))
	case *networkingv1.NetworkPolicy:
		var types []string
		for _, t := range o.Spec.PolicyTypes {
			types = append(types, string(t))
		}
		s.Status = fmt.Sprintf("podSelector {%s}, types %s, %d ingress rule(s), %d egress rule(s)", selectorString(&o.Spec.PodSelector), strings.Join(types, ","), len(o.Spec.Ingress), len(o.Spec.Egress))
	case *corev1.ResourceQuota:
		s.Status = QuotaLine(o)
	case *corev1.LimitRange:
		var parts []string
		for _, it := range o.Spec.Limits {
			parts = append(parts, LimitRangeItemLine(it))
		}
		s.Status = strings.Join(parts, "; ")
	default:
		s.Status = "no summary for this kind"
	}
	s.Status = Sanitize(s.Status, 600, true)
	return s
}

// KindOf returns the Kubernetes kind of a typed object.
func KindOf(obj runtime.Object) string {
	switch obj.(type) {
	case *corev1.Pod:
		return "Pod"
	case *appsv1.Deployment:
		return "Deployment"
	case *appsv1.ReplicaSet:
		return "ReplicaSet"
	case *appsv1.StatefulSet:
		return "StatefulSet"
	case *appsv1.DaemonSet:
		return "DaemonSet"
	case *appsv1.ControllerRevision:
		return "ControllerRevision"
	case *batchv1.Job:
		return "Job"
	case *batchv1.CronJob:
		return "CronJob"
	case *corev1.Service:
		return "Service"
	case *corev1.Endpoints:
		return "Endpoints"
	case *discoveryv1.EndpointSlice:
		return "EndpointSlice"
	case *corev1.PersistentVolumeClaim:
		return "PersistentVolumeClaim"
	case *corev1.PersistentVolume:
		return "PersistentVolume"
	case *storagev1.StorageClass:
		return "StorageClass"
	case *storagev1.CSIDriver:
		return "CSIDriver"
	case *corev1.ConfigMap:
		return "ConfigMap"
	case *corev1.Secret:
		return "Secret"
	case *corev1.ServiceAccount:
		return "ServiceAccount"
	case *corev1.Node:
		return "Node"
	case *corev1.Event:
		return "Event"
	case *autoscalingv2.HorizontalPodAutoscaler:
		return "HorizontalPodAutoscaler"
	case *policyv1.PodDisruptionBudget:
		return "PodDisruptionBudget"
	case *networkingv1.Ingress:
		return "Ingress"
	case *networkingv1.NetworkPolicy:
		return "NetworkPolicy"
	case *corev1.ResourceQuota:
		return "ResourceQuota"
	case *corev1.LimitRange:
		return "LimitRange"
	}
	return fmt.Sprintf("%T", obj)
}

func describePod(b *summaryBuilder, p *corev1.Pod) {
	ready, total, restarts := 0, len(p.Spec.Containers), int32(0)
	var problems []string
	for _, cs := range p.Status.InitContainerStatuses {
		restarts += cs.RestartCount
		if st := ContainerProblem(cs); st != "" {
			problems = append(problems, "init:"+cs.Name+":"+st)
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		restarts += cs.RestartCount
		if cs.Ready {
			ready++
		}
		if st := ContainerProblem(cs); st != "" {
			problems = append(problems, cs.Name+":"+st)
		}
	}
	phase := string(p.Status.Phase)
	if p.Status.Reason != "" {
		phase += " (" + p.Status.Reason + ")"
	}
	if c := PodCondition(p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse {
		phase += " (" + c.Reason + ")"
	}
	b.s.Status = fmt.Sprintf("%s, ready %d/%d, restarts %d, node %s", phase, ready, total, restarts, orNone(p.Spec.NodeName))
	if len(problems) > 0 {
		b.s.Status += ", " + strings.Join(problems, ", ")
	}
	if p.Status.Message != "" {
		b.field("message", "%s", p.Status.Message)
	}
	b.field("images", "%s", images(p.Spec))
	for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		b.field("container "+c.Name, "%s", containerSpecLine(c))
	}
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		b.field("state "+cs.Name, "%s", ContainerStateLine(cs))
	}
	for _, c := range p.Status.Conditions {
		b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
	}
}

func containerSpecLine(c corev1.Container) string {
	parts := []string{"image " + c.Image}
	if len(c.Resources.Requests) > 0 {
		parts = append(parts, "requests "+resourceList(c.Resources.Requests))
	}
	if len(c.Resources.Limits) > 0 {
		parts = append(parts, "limits "+resourceList(c.Resources.Limits))
	}
	var ports []string
	for _, p := range c.Ports {
		if p.Name != "" {
			ports = append(ports, fmt.Sprintf("%s=%d", p.Name, p.ContainerPort))
		} else {
			ports = append(ports, strconv.Itoa(int(p.ContainerPort)))
		}
	}
	if len(ports) > 0 {
		parts = append(parts, "ports "+strings.Join(ports, ","))
	}
	if c.ReadinessProbe != nil {
		parts = append(parts, "readiness "+ProbeLine(c.ReadinessProbe))
	}
	if c.LivenessProbe != nil {
		parts = append(parts, "liveness "+ProbeLine(c.LivenessProbe))
	}
	return strings.Join(parts, "; ")
}

// ProbeLine renders a probe's handler compactly.
func ProbeLine(p *corev1.Probe) string {
	switch {
	case p.HTTPGet != nil:
		return fmt.Sprintf("http-get %s port %s", p.HTTPGet.Path, p.HTTPGet.Port.String())
	case p.TCPSocket != nil:
		return "tcp port " + p.TCPSocket.Port.String()
	case p.Exec != nil:
		return "exec " + clip(strings.Join(p.Exec.Command, " "), 80)
	case p.GRPC != nil:
		return fmt.Sprintf("grpc port %d", p.GRPC.Port)
	}
	return "unknown"
}

// ContainerProblem names a container's bad state ("" when it looks fine).
func ContainerProblem(cs corev1.ContainerStatus) string {
	switch {
	case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "ContainerCreating" && cs.State.Waiting.Reason != "PodInitializing":
		s := cs.State.Waiting.Reason
		if t := cs.LastTerminationState.Terminated; t != nil {
			s += fmt.Sprintf("(last exit %d %s)", t.ExitCode, t.Reason)
		}
		return s
	case cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0:
		return fmt.Sprintf("Terminated(%s exit %d)", cs.State.Terminated.Reason, cs.State.Terminated.ExitCode)
	case cs.State.Running != nil && !cs.Ready && cs.Started != nil && *cs.Started:
		return "NotReady"
	}
	return ""
}

// ContainerStateLine renders a container status like kubectl describe does, in one line.
func ContainerStateLine(cs corev1.ContainerStatus) string {
	var s string
	switch {
	case cs.State.Waiting != nil:
		s = "Waiting " + cs.State.Waiting.Reason
		if cs.State.Waiting.Message != "" {
			s += ": " + cs.State.Waiting.Message
		}
	case cs.State.Running != nil:
		s = "Running"
	case cs.State.Terminated != nil:
		t := cs.State.Terminated
		s = fmt.Sprintf("Terminated %s exit %d", t.Reason, t.ExitCode)
		if t.Message != "" {
			s += ": " + t.Message
		}
	default:
		s = "Unknown"
	}
	s += fmt.Sprintf("; ready=%t restarts=%d", cs.Ready, cs.RestartCount)
	if t := cs.LastTerminationState.Terminated; t != nil {
		s += fmt.Sprintf("; last terminated %s exit %d", t.Reason, t.ExitCode)
	}
	return Sanitize(s, maxFieldValue, true)
}

func describeDeployment(b *summaryBuilder, d *appsv1.Deployment) {
	b.s.Status = fmt.Sprintf("ready %d/%d, updated %d, available %d, unavailable %d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas), d.Status.UpdatedReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas)
	if d.Spec.Paused {
		b.s.Status += ", paused"
	}
	b.field("selector", "%s", selectorString(d.Spec.Selector))
	b.field("strategy", "%s", d.Spec.Strategy.Type)
	b.field("images", "%s", images(d.Spec.Template.Spec))
	if r := d.Annotations["deployment.kubernetes.io/revision"]; r != "" {
		b.field("revision", "%s", r)
	}
	for _, c := range d.Status.Conditions {
		b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
	}
}

func describeReplicaSet(b *summaryBuilder, r *appsv1.ReplicaSet) {
	b.s.Status = fmt.Sprintf("ready %d/%d, available %d, revision %s", r.Status.ReadyReplicas, replicas(r.Spec.Replicas), r.Status.AvailableReplicas, orNone(r.Annotations["deployment.kubernetes.io/revision"]))
	b.field("images", "%s", images(r.Spec.Template.Spec))
	for _, c := range r.Status.Conditions {
		b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
	}
}

func describeJob(b *summaryBuilder, j *batchv1.Job) {
	b.s.Status = fmt.Sprintf("active %d, succeeded %d, failed %d, completions %d, backoffLimit %d", j.Status.Active, j.Status.Succeeded, j.Status.Failed, replicasOr(j.Spec.Completions, 1), replicasOr(j.Spec.BackoffLimit, 6))
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		b.s.Status += ", suspended"
	}
	if j.Spec.ActiveDeadlineSeconds != nil {
		b.field("activeDeadlineSeconds", "%d", *j.Spec.ActiveDeadlineSeconds)
	}
	b.field("images", "%s", images(j.Spec.Template.Spec))
	for _, c := range j.Status.Conditions {
		b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
	}
}

func describeService(b *summaryBuilder, s *corev1.Service) {
	var ports []string
	for _, p := range s.Spec.Ports {
		ports = append(ports, fmt.Sprintf("%s %d→%s/%s", orNone(p.Name), p.Port, p.TargetPort.String(), p.Protocol))
	}
	sel := "<none>"
	if len(s.Spec.Selector) > 0 {
		sel = LabelsString(s.Spec.Selector)
	}
	b.s.Status = fmt.Sprintf("%s %s, selector %s, ports %s", s.Spec.Type, orNone(s.Spec.ClusterIP), sel, strings.Join(ports, ", "))
	if s.Spec.ExternalName != "" {
		b.field("externalName", "%s", s.Spec.ExternalName)
	}
}

func describeNode(b *summaryBuilder, n *corev1.Node) {
	ready := "Unknown"
	var bad []string
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = string(c.Status)
		} else if c.Status == corev1.ConditionTrue {
			bad = append(bad, string(c.Type))
		}
		b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastHeartbeatTime)
	}
	b.s.Status = "Ready=" + ready
	if len(bad) > 0 {
		b.s.Status += ", " + strings.Join(bad, ",")
	}
	if n.Spec.Unschedulable {
		b.s.Status += ", SchedulingDisabled"
	}
	var taints []string
	for _, t := range n.Spec.Taints {
		taints = append(taints, TaintString(t))
	}
	if len(taints) > 0 {
		b.field("taints", "%s", strings.Join(taints, ", "))
	}
	b.field("allocatable", "%s", resourceList(n.Status.Allocatable))
	b.field("kubelet", "%s", n.Status.NodeInfo.KubeletVersion)
}

func describeHPA(b *summaryBuilder, h *autoscalingv2.HorizontalPodAutoscaler) {
	b.s.Status = fmt.Sprintf("target %s/%s, replicas %d (desired %d), min %d, max %d", h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name, h.Status.CurrentReplicas, h.Status.DesiredReplicas, replicasOr(h.Spec.MinReplicas, 1), h.Spec.MaxReplicas)
	for _, m := range h.Spec.Metrics {
		if m.Resource != nil {
			t := ""
			if m.Resource.Target.AverageUtilization != nil {
				t = fmt.Sprintf(" %d%%", *m.Resource.Target.AverageUtilization)
			}
			b.field("metric", "resource %s%s", m.Resource.Name, t)
		} else {
			b.field("metric", "%s", m.Type)
		}
	}
	for _, c := range h.Status.Conditions {
		b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
	}
}

// QuotaLine renders used/hard for every resource of a quota, flagging exhausted ones.
func QuotaLine(q *corev1.ResourceQuota) string {
	names := make([]string, 0, len(q.Status.Hard))
	for n := range q.Status.Hard {
		names = append(names, string(n))
	}
	if len(names) == 0 {
		for n := range q.Spec.Hard {
			names = append(names, string(n))
		}
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		hard, ok := q.Status.Hard[corev1.ResourceName(n)]
		if !ok {
			hard = q.Spec.Hard[corev1.ResourceName(n)]
		}
		used := q.Status.Used[corev1.ResourceName(n)]
		p := fmt.Sprintf("%s %s/%s", n, used.String(), hard.String())
		if !hard.IsZero() && used.Cmp(hard) >= 0 {
			p += " (FULL)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// LimitRangeItemLine renders one LimitRange item.
func LimitRangeItemLine(it corev1.LimitRangeItem) string {
	var parts []string
	add := func(label string, l corev1.ResourceList) {
		if len(l) > 0 {
			parts = append(parts, label+" "+resourceList(l))
		}
	}
	add("min", it.Min)
	add("max", it.Max)
	add("default", it.Default)
	add("defaultRequest", it.DefaultRequest)
	add("maxLimitRequestRatio", it.MaxLimitRequestRatio)
	return string(it.Type) + ": " + strings.Join(parts, ", ")
}

// IngressBackend is one Service backend of an Ingress.
type IngressBackend struct {
	Host, Path, Service, PortName string
	PortNumber                    int32
}

func (b IngressBackend) String() string {
	port := b.PortName
	if port == "" {
		port = strconv.Itoa(int(b.PortNumber))
	}
	return fmt.Sprintf("%s%s→%s:%s", orNone(b.Host), b.Path, b.Service, port)
}

// IngressBackends lists every Service backend of an Ingress (default backend included).
func IngressBackends(ing *networkingv1.Ingress) []IngressBackend {
	var out []IngressBackend
	add := func(host, path string, be *networkingv1.IngressBackend) {
		if be == nil || be.Service == nil {
			return
		}
		out = append(out, IngressBackend{Host: host, Path: path, Service: be.Service.Name, PortName: be.Service.Port.Name, PortNumber: be.Service.Port.Number})
	}
	add("", "", ing.Spec.DefaultBackend)
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			add(r.Host, p.Path, &p.Backend)
		}
	}
	return out
}

// SecretKeys returns the key names of a Secret, sorted; values are never read.
func SecretKeys(s *corev1.Secret) []string {
	keys := make([]string, 0, len(s.Data)+len(s.StringData))
	for k := range s.Data {
		keys = append(keys, k)
	}
	for k := range s.StringData {
		if _, dup := s.Data[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// IsDefaultStorageClass reports the default-class annotation (GA and beta).
func IsDefaultStorageClass(sc *storagev1.StorageClass) bool {
	return sc.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

// TaintString renders a taint as key=value:Effect.
func TaintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// PodCondition returns the pod condition of a type, or nil.
func PodCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// LabelsString renders a label map sorted, as a selector string.
func LabelsString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

func selectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return "<none>"
	}
	out := metav1.FormatLabelSelector(s)
	return out
}

func images(spec corev1.PodSpec) string {
	var parts []string
	for _, c := range spec.InitContainers {
		parts = append(parts, "init:"+c.Name+"="+c.Image)
	}
	for _, c := range spec.Containers {
		parts = append(parts, c.Name+"="+c.Image)
	}
	return strings.Join(parts, ", ")
}

func resourceList(l corev1.ResourceList) string {
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, string(n))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		q := l[corev1.ResourceName(n)]
		parts = append(parts, n+"="+q.String())
	}
	return strings.Join(parts, ",")
}

func accessModes(m []corev1.PersistentVolumeAccessMode) string {
	parts := make([]string, 0, len(m))
	for _, a := range m {
		parts = append(parts, string(a))
	}
	if len(parts) == 0 {
		return "<none>"
	}
	return strings.Join(parts, ",")
}

func joinCapped(items []string, n int) string {
	sort.Strings(items)
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", … (%d more)", len(items)-n)
}

func replicas(p *int32) int32 { return replicasOr(p, 1) }

func replicasOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func ptrStr(p *string) string { return ptrStrOr(p, "") }

func ptrStrOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func ptrInt32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func ageOrNever(now time.Time, t *metav1.Time) string {
	if t == nil {
		return "never"
	}
	return Age(now, *t) + " ago"
}
