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

package agent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A session on a workload follows the autoscaler that scales it: an HPA held at maxReplicas
// (which takes back a manual scale-up) outranks the errors its saturated pods log, whatever
// the names, the log format and the order of the findings.
func TestTargetedWorkloadFollowsItsAutoscaler(t *testing.T) {
	for _, c := range spellings {
		for _, v := range []struct{ atMin, metricsDown, targetLess bool }{{}, {atMin: true}, {metricsDown: true}, {targetLess: true}, {metricsDown: true, targetLess: true}} {
			atMin := v.atMin
			t.Run(fmt.Sprintf("%s/%+v", c.consumer, v), func(t *testing.T) {
				objs := labelledApp(c.consumer, c.label, 3, nil, nil)
				max, cur, reason := int32(3), int32(3), "TooManyReplicas"
				if atMin {
					max, cur, reason = 10, 2, "TooFewReplicas"
				}
				h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: c.consumer + "-hpa", Namespace: ns},
					Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: c.consumer, APIVersion: "apps/v1"},
						MinReplicas: fx.Ptr(int32(2)), MaxReplicas: max},
					Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: cur, DesiredReplicas: cur, Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
						{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale"},
						{Type: autoscalingv2.ScalingLimited, Status: corev1.ConditionTrue, Reason: reason, Message: "the desired replica count is more than the maximum replica count"}}}}
				if v.metricsDown {
					// No metrics server: the autoscaler cannot read utilization either.
					h.Status.Conditions = append(h.Status.Conditions, autoscalingCond())
				}
				ev := fx.Event(ns, "HorizontalPodAutoscaler", h.Name, "Normal", "SuccessfulRescale", fmt.Sprintf("New size: %d; reason: Current number of replicas above Spec.MaxReplicas", max), 4, time.Minute)
				objs = append(objs, h, ev, fx.Node("node-1"))
				line := fmt.Sprintf("ERROR %s: POST /orders -> 503 queue full (depth 512)\n", c.consumer)
				logs := logBook{c.consumer + "-": strings.Repeat("INFO served\n"+line, 4)}
				s := agent.Session{ID: "t", Problem: "we scaled " + c.consumer + " up for the sale and it keeps dropping back", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: c.consumer}}
				if v.targetLess {
					s.Target = nil
				}
				if atMin {
					// An autoscaler at its minimum is how it rests: the pods' errors stay the finding.
					rootUnderShuffles(t, objs, logs, s, "app-error-logged on Deployment/"+c.consumer)
					return
				}
				cl := rootUnderShuffles(t, objs, logs, s, "hpa-maxed-out on HorizontalPodAutoscaler/"+h.Name)
				if sum := cl.RootCause.Summary; !strings.Contains(sum, "maxReplicas 3") || !strings.Contains(sum, "above Spec.MaxReplicas") {
					t.Errorf("summary lacks maxReplicas or the rescale: %s", sum)
				}
			})
		}
	}
}
