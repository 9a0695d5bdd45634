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
	"strings"

	corev1 "k8s.io/api/core/v1"
)

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

// TaintString renders a taint as key=value:Effect.
func TaintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}
