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
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A workload's replica count is often not its own: an HorizontalPodAutoscaler that scales
// it sets it, and takes back a manual scale above its maxReplicas. A session that targets
// the workload follows the autoscalers that scale it and show trouble, so the autoscaler's
// limit is weighed against whatever the workload's pods say.

// followAutoscalers adds as leads the HPAs whose scaleTargetRef is the workload and whose
// status shows a limit or a failure.
func (e *env) followAutoscalers(ctx context.Context, wl ObjectRef) {
	hpas, err := listOnce[*autoscalingv2.HorizontalPodAutoscaler](ctx, e, "HorizontalPodAutoscaler", 50)
	if err != nil {
		return
	}
	for _, h := range hpas {
		t := h.Spec.ScaleTargetRef
		if t.Name != wl.Name || !strings.EqualFold(t.Kind, wl.Kind) || !hpaTroubled(h) {
			continue
		}
		e.followUp(e.ref("HorizontalPodAutoscaler", h.Name))
	}
}

// hpaTroubled reports an autoscaler held at a limit or unable to scale.
func hpaTroubled(h *autoscalingv2.HorizontalPodAutoscaler) bool {
	for _, c := range h.Status.Conditions {
		switch {
		case c.Type == autoscalingv2.ScalingLimited && c.Status == corev1.ConditionTrue && c.Reason != "TooFewReplicas",
			c.Type == autoscalingv2.AbleToScale && c.Status == corev1.ConditionFalse,
			c.Type == autoscalingv2.ScalingActive && c.Status == corev1.ConditionFalse && c.Reason != "ScalingDisabled":
			return true
		}
	}
	return h.Spec.MaxReplicas > 0 && h.Status.DesiredReplicas >= h.Spec.MaxReplicas
}

// scaledBack quotes the autoscaler's rescale that took a manual scale-up back to its
// maximum, if its events hold one.
func scaledBack(evs []tools.EventGroup) string {
	for _, g := range evs {
		if g.Reason == "SuccessfulRescale" && strings.Contains(g.Message, "above Spec.MaxReplicas") {
			return " It scales the workload back down whenever it is scaled above maxReplicas: " + quoteLine(tools.Sanitize(g.Message, 200, true)) + "."
		}
	}
	return ""
}

// removedWorkloadAPI reports an API version Kubernetes stopped serving a workload kind in
// (1.16): extensions/v1beta1, apps/v1beta1 and apps/v1beta2 Deployments, DaemonSets,
// StatefulSets and ReplicaSets exist only as apps/v1.
func removedWorkloadAPI(kind, apiVersion string) bool {
	switch kind {
	case "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet":
		return apiVersion == "extensions/v1beta1" || apiVersion == "apps/v1beta1" || apiVersion == "apps/v1beta2"
	}
	return false
}
