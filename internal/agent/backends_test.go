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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A Service with ready endpoints still fails a share of its clients' calls when some of them
// cannot serve: the pod of a Job that copied the server's labels, or not-ready pods it
// publishes. Two Deployments behind one Service (blue/green) are a choice and are left alone.
func TestServiceBackendsThatCannotServe(t *testing.T) {
	refused := logBook{"web-": "INFO listening on :8080\nERROR GET http://api/v1/items failed: dial tcp 10.96.0.20:80: connect: connection refused\n"}
	shared := func(p *corev1.Pod) { p.Labels["tier"] = "api" }
	sel := map[string]string{"tier": "api"}
	runDepCases(t, []depCase{
		{name: "a Job's Ready pod matches the Service's selector", problem: "product pages fail now and then",
			objs: func() []runtime.Object {
				o := app("web", 1, nil, crashing)
				o = append(o, app("api", 2, nil, shared)...)
				j := fx.Job(ns, "api-reindex", "registry.example/api:1")
				j.Spec.Template.Labels["tier"] = "api"
				jp := fx.Pod(ns, "api-reindex-x1", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job")
				return append(o, j, jp, svcAt("api", "10.96.0.20", sel, 80), fx.Node("node-1"))
			},
			logs: refused, rule: "service-backends-wrong", culprit: "Service/api", affected: []string{"Job/api-reindex"},
			terms: []string{"tier=api", "Job api-reindex", "Deployment api"}},
		{name: "not-ready pods published as endpoints", problem: "half the requests fail",
			objs: func() []runtime.Object {
				o := app("web", 1, nil, crashing)
				o = append(o, app("api", 1, nil, shared)...)
				o = append(o, app("api-green", 1, nil, func(p *corev1.Pod) { shared(p); fx.SetNotReady(p) })...)
				svc := svcAt("api", "10.96.0.20", sel, 80)
				svc.Spec.PublishNotReadyAddresses = true
				return append(o, svc, fx.Node("node-1"))
			},
			logs: refused, rule: "service-backends-wrong", culprit: "Service/api", affected: []string{"Deployment/api-green"},
			terms: []string{"publishNotReadyAddresses: true", "not Ready"}},
	})
	// Blue and green both Ready behind one Service: not this rule's business.
	objs := app("web", 1, nil, crashing)
	objs = append(objs, app("api", 1, nil, shared)...)
	objs = append(objs, app("api-green", 1, nil, shared)...)
	objs = append(objs, svcAt("api", "10.96.0.20", sel, 80), fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = refused.source()
	if rc := drive(t, e, agent.Session{ID: "t", Problem: "half the requests fail", Namespace: ns}).RootCause; rc.Rule == "service-backends-wrong" {
		t.Errorf("blue/green blamed: %s", rc.Summary)
	}
}

// A proxy's access log answered 503 for a share of its requests to the Service's address:
// the Service that publishes its warming pods is followed from there, target-less.
func TestAccessLogFiveHundredsFollowTheUpstream(t *testing.T) {
	access := `10.244.1.1 - - [14/Jan/2026:11:02:01 +0000] "GET / HTTP/1.1" 200 18233 "-" "Mozilla/5.0" rt=0.041 upstream=10.96.0.20:80 ust=200
10.244.1.1 - - [14/Jan/2026:11:02:02 +0000] "GET /search?q=wool HTTP/1.1" 503 197 "-" "Mozilla/5.0" rt=0.004 upstream=10.96.0.20:80 ust=503
10.244.1.1 - - [14/Jan/2026:11:02:03 +0000] "GET /search?q=rain HTTP/1.1" 200 11804 "-" "Mozilla/5.0" rt=0.091 upstream=10.96.0.20:80 ust=200
10.244.1.1 - - [14/Jan/2026:11:02:03 +0000] "GET /search?q=canvas HTTP/1.1" 503 197 "-" "Mozilla/5.0" rt=0.003 upstream=10.96.0.20:80 ust=503
10.244.1.1 - - [14/Jan/2026:11:02:05 +0000] "GET /healthz HTTP/1.1" 200 2 "-" "kube-probe/1.31" rt=0.000 upstream=- ust=-
10.244.1.1 - - [14/Jan/2026:11:02:06 +0000] "GET /search?q=linen HTTP/1.1" 503 197 "-" "Mozilla/5.0" rt=0.005 upstream=10.96.0.20:80 ust=503
`
	shared := func(p *corev1.Pod) { p.Labels["tier"] = "api" }
	runDepCases(t, []depCase{
		{name: "nginx answers 503 for the requests reaching published not-ready pods", problem: "about half the searches on web answer 503",
			objs: func() []runtime.Object {
				o := app("web", 1, nil, nil)
				o = append(o, app("api", 1, nil, shared)...)
				o = append(o, app("api-green", 2, nil, func(p *corev1.Pod) {
					shared(p)
					fx.SetNotReady(p)
					p.Status.ContainerStatuses[0].RestartCount = 0
					p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
				})...)
				// The warming pods fail their own probe too: they are right not to be Ready.
				for _, x := range o {
					if p, ok := x.(*corev1.Pod); ok && p.Labels["app"] == "api-green" {
						o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 12, time.Minute))
					}
				}
				svc := svcAt("api", "10.96.0.20", map[string]string{"tier": "api"}, 80)
				svc.Spec.PublishNotReadyAddresses = true
				return append(o, svc, fx.Node("node-1"))
			},
			logs: logBook{"web-": access, "api-green-": "[WARN ][search.Http] GET /api/search?q=wool -> 503 {\"error\":\"index warming\"}\n"},
			rule: "service-backends-wrong", culprit: "Service/api", terms: []string{"publishNotReadyAddresses"}},
	})
}

// Logs unreachable, no client failing visibly: the namespace scan still finds a Service whose
// endpoints include pods that cannot serve, from the objects alone.
func TestServiceBackendsFoundWithoutAClient(t *testing.T) {
	shared := func(p *corev1.Pod) { p.Labels["tier"] = "api" }
	sel := map[string]string{"tier": "api"}
	runDepCases(t, []depCase{
		{name: "a Job's Ready pod among the endpoints", problem: "product pages fail now and then",
			objs: func() []runtime.Object {
				o := app("web", 1, nil, nil)
				o = append(o, app("api", 2, nil, shared)...)
				j := fx.Job(ns, "api-reindex", "registry.example/api:1")
				j.Spec.Template.Labels["tier"] = "api"
				jp := fx.Pod(ns, "api-reindex-x1", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job")
				return append(o, j, jp, svcAt("api", "10.96.0.20", sel, 80), fx.Node("node-1"))
			},
			logs: nil, rule: "service-backends-wrong", culprit: "Service/api", affected: []string{"Job/api-reindex"},
			terms: []string{"tier=api", "Job api-reindex"}},
		{name: "a Ready server configured for a database no Service names does not outrank it", problem: "product pages fail now and then",
			objs: func() []runtime.Object {
				o := app("web", 1, nil, nil)
				o = append(o, app("api", 2, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgres://api@api-db:5432/api"}}
				}, shared)...)
				j := fx.Job(ns, "api-reindex", "registry.example/api:1")
				j.Spec.Template.Labels["tier"] = "api"
				jp := fx.Pod(ns, "api-reindex-x1", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job")
				return append(o, j, jp, svcAt("api", "10.96.0.20", sel, 80), fx.Node("node-1"))
			},
			logs: nil, rule: "service-backends-wrong", culprit: "Service/api", affected: []string{"Job/api-reindex"},
			terms: []string{"tier=api", "Job api-reindex"}},
		{name: "warming pods published as endpoints", problem: "about half the searches answer 503",
			objs: func() []runtime.Object {
				o := app("web", 1, nil, nil)
				o = append(o, app("api", 1, nil, shared)...)
				o = append(o, app("api-green", 1, nil, func(p *corev1.Pod) {
					shared(p)
					fx.SetNotReady(p)
					p.Status.ContainerStatuses[0].RestartCount = 0
					p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
				})...)
				for _, x := range o {
					if p, ok := x.(*corev1.Pod); ok && p.Labels["app"] == "api-green" {
						o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 12, time.Minute))
					}
				}
				svc := svcAt("api", "10.96.0.20", sel, 80)
				svc.Spec.PublishNotReadyAddresses = true
				return append(o, svc, fx.Node("node-1"))
			},
			logs: nil, rule: "service-backends-wrong", culprit: "Service/api", affected: []string{"Deployment/api-green"},
			terms: []string{"publishNotReadyAddresses: true"}},
	})
}
