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

package ruleengine_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/session"
	fx "github.com/kubage/kubage/test/fixtures"
)

const ns = "payments"

func engine(objs ...runtime.Object) *agent.RuleEngine {
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	return e
}

// runSession runs s to its conclusion with the rule engine e, through the session engine,
// on e's cluster; its state (checkpoint, results) stays in memory.
func runSession(ctx context.Context, e *agent.RuleEngine, s agent.Session, b agent.Budget) (agent.Conclusion, agent.Trace, error) {
	res, err := (&session.Local{Client: e.Client, Brain: e}).Run(ctx, s, b)
	return res.Conclusion, res.Trace, err
}

func run(t *testing.T, target *agent.Target, objs ...runtime.Object) (agent.Conclusion, agent.Trace) {
	t.Helper()
	s := agent.Session{ID: "t", Problem: "something is broken", Namespace: ns, Target: target}
	c, tr, err := runSession(context.Background(), engine(objs...), s, agent.Budget{})
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	return c, tr
}

// webApp is a Deployment "web" at revision 2 with n pods, mutated by f for the failure.
func webApp(n int, f func(p *corev1.Pod)) (*appsv1.Deployment, *appsv1.ReplicaSet, []runtime.Object) {
	return fx.WebApp(ns, n, f)
}

func podName(i int) string { return fx.WebPodName(i) }

func deploy(name string) *agent.Target { return &agent.Target{Kind: "Deployment", Name: name} }
