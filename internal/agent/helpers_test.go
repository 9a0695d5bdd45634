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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// The rule engine's own tests: its analyzers and brain steps, one call at a time. Tests
// that run whole sessions drive it through the session engine (test/ruleengine).

const ns = "payments"

func engine(objs ...runtime.Object) *agent.RuleEngine {
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	return e
}

// webApp is a Deployment "web" at revision 2 with n pods, mutated by f for the failure.
func webApp(n int, f func(p *corev1.Pod)) (*appsv1.Deployment, *appsv1.ReplicaSet, []runtime.Object) {
	return fx.WebApp(ns, n, f)
}

func podName(i int) string { return fx.WebPodName(i) }

func deploy(name string) *agent.Target { return &agent.Target{Kind: "Deployment", Name: name} }

func autoscalingCond() autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric",
		Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"}
}
