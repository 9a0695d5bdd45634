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
