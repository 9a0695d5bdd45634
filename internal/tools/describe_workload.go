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

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
)

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
