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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// neverScheduled is a pod no scheduler has looked at: Pending, no node, no condition.
func neverScheduled(p *corev1.Pod) {
	p.Spec.NodeName = ""
	p.CreationTimestamp = fx.Ago(3 * time.Minute)
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
}

// Pods that name a scheduler nobody runs stay Pending without a single event; the name is the
// explanation, found from the provider's pods or from a consumer that calls them.
func TestSchedulerNameNobodyServes(t *testing.T) {
	schedulers := []string{"binpack-scheduler", "volcano", "my-scheduler"}
	for i, c := range spellings {
		sched := schedulers[i]
		withSched := func(s *corev1.PodSpec) { s.SchedulerName = sched }
		for _, tc := range []struct {
			name   string
			target *agent.Target
			served bool
		}{
			{name: "provider targeted", target: &agent.Target{Kind: "Deployment", Name: c.provider}},
			{name: "consumer targeted", target: &agent.Target{Kind: "Deployment", Name: c.consumer}},
			{name: "target-less"},
			{name: "scheduler pod runs", target: &agent.Target{Kind: "Deployment", Name: c.provider}, served: true},
		} {
			t.Run(fmt.Sprintf("%s/%s", c.provider, tc.name), func(t *testing.T) {
				objs := append(consumerApp(c, crashing), providerApp(c, 2, withSched, neverScheduled)...)
				objs = append(objs, fx.Node("node-1"))
				if tc.served {
					objs = append(objs, labelledApp(sched, "component", 1, nil, nil)...)
				}
				e := agent.NewRuleEngine(fake.NewClientset(objs...))
				e.Now = func() time.Time { return fx.Now }
				e.Logs = logBook{c.consumer + "-": fmt.Sprintf("ERROR upstream http://%s:%d: dial tcp %s:%d: connect: connection refused\n", c.provider, c.port, c.ip, c.port)}.source()
				cl := drive(t, e, agent.Session{ID: "t", Problem: c.consumer + " is not ready", Namespace: ns, Target: tc.target})
				rc := cl.RootCause
				t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
				mentions := strings.Contains(rc.Summary, "schedulerName") && strings.Contains(rc.Summary, sched)
				if tc.served {
					if mentions && strings.Contains(rc.Summary, "no scheduler of that name runs") {
						t.Fatalf("blames schedulerName %s although a pod of it runs", sched)
					}
					return
				}
				if rc.Culprit.Kind != "Deployment" || rc.Culprit.Name != c.provider || !mentions {
					t.Fatalf("want Deployment/%s naming schedulerName %s", c.provider, sched)
				}
			})
		}
	}
}
