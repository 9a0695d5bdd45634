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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A client that is not ready, pointed at the target: the Service it is configured to call
// has a ready endpoint right now, but that backend is killed by its liveness probe every
// few seconds. The provider's restarts are the cause, with or without the client's log.
func TestClientOfARestartingProviderFollowsIt(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Env = []corev1.EnvVar{{Name: "RENDERER_URL", Value: "http://renderer"}}
		s.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
	}, func(p *corev1.Pod) {
		fx.SetNotReady(p)
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(10 * time.Minute)}}
	})
	var renderer []runtime.Object
	renderer = append(renderer, app("renderer", 1, func(s *corev1.PodSpec) {
		s.Containers[0].LivenessProbe = &corev1.Probe{TimeoutSeconds: 1, PeriodSeconds: 5, FailureThreshold: 1}
	}, func(p *corev1.Pod) {
		cs := &p.Status.ContainerStatuses[0]
		cs.RestartCount = 7
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(4 * time.Second)}}
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: fx.Ago(12 * time.Second), FinishedAt: fx.Ago(5 * time.Second)}}
	})...)
	for _, o := range renderer {
		if p, ok := o.(*corev1.Pod); ok {
			renderer = append(renderer, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.2.4:8080/livez": context deadline exceeded`, 9, time.Minute))
			break
		}
	}
	objs = append(objs, renderer...)
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.Labels["app"] == "web" {
			objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30, time.Minute))
			break
		}
	}
	objs = append(objs, svcAt("renderer", "10.96.0.31", map[string]string{"app": "renderer"}, 80), fx.Node("node-1"))
	for _, logs := range []logBook{nil, {"web-": "E0302 render statement 88214: Post \"http://renderer/render\": read: connection reset by peer\n"}} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logs.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "web is not ready", Namespace: ns, Target: deploy("web")}).RootCause
		t.Logf("logs %v: %s on %s/%s: %s", logs != nil, rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
		if rc.Culprit.Kind != "Deployment" || rc.Culprit.Name != "renderer" {
			t.Errorf("logs %v: want the renderer Deployment as culprit, got %s on %s/%s", logs != nil, rc.Rule, rc.Culprit.Kind, rc.Culprit.Name)
		}
	}
}

// An exec readiness probe checks the database the application needs; without a log the
// probe's failure output, or failing that its command, names the provider, whose selector
// matches nothing.
func TestExecProbeCommandNamesTheProvider(t *testing.T) {
	for _, msg := range []string{"Readiness probe failed: orders-db:5432 - no response", "Readiness probe failed: "} {
		objs := app("web", 1, func(s *corev1.PodSpec) {
			s.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
				Command: []string{"sh", "-c", "pg_isready -h orders-db -p 5432 -U app"}}}}
		}, func(p *corev1.Pod) {
			fx.SetNotReady(p)
			p.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(10 * time.Minute)}}
		})
		for _, o := range objs {
			if p, ok := o.(*corev1.Pod); ok {
				objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", msg, 30, time.Minute))
				break
			}
		}
		objs = append(objs, app("postgres", 1, nil, nil)...)
		objs = append(objs, svcAt("orders-db", "10.96.0.40", map[string]string{"app": "orders-postgres"}, 5432), fx.Node("node-1"))
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook(nil).source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "web is not ready", Namespace: ns, Target: deploy("web")}).RootCause
		t.Logf("%q: %s on %s/%s: %s", msg, rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
		if rc.Culprit.Kind != "Service" || rc.Culprit.Name != "orders-db" {
			t.Errorf("%q: want Service orders-db as culprit, got %s on %s/%s", msg, rc.Rule, rc.Culprit.Kind, rc.Culprit.Name)
		}
	}
}

// A Deployment paused with a template change: its healthy pods run the old image, and
// the target-less scan names the pause.
func TestPausedDeploymentHoldsBackItsChange(t *testing.T) {
	objs := app("web", 2, nil, nil)
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			d.Spec.Paused = true
			d.Spec.Template.Spec.Containers[0].Image = "registry.example/web:2"
			d.Generation, d.Status.ObservedGeneration = 3, 3
			d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = 2, 0, 2, 2
		}
	}
	e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
	e.Now = func() time.Time { return fx.Now }
	rc := drive(t, e, agent.Session{ID: "t", Problem: "web still serves the old version after the deploy", Namespace: ns}).RootCause
	t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	if rc.Rule != "deployment-paused" || rc.Culprit.Name != "web" || !strings.Contains(rc.Summary, "registry.example/web:2") {
		t.Fatalf("want deployment-paused on Deployment web naming the held-back image")
	}
}

// A client configured with ordinal 2 of a StatefulSet that runs two replicas: the
// headless Service is healthy, the pod name does not resolve, and the ConfigMap holding it
// is the fault.
func TestStatefulSetOrdinalBeyondReplicas(t *testing.T) {
	objs := app("reader", 1, envFrom("reader-config"), func(p *corev1.Pod) {
		crashing(p)
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "replica pool: dial tcp: lookup ledger-db-2.ledger-db on 10.96.0.10:53: no such host"
	})
	objs = append(objs, cmWith("reader-config", "PRIMARY_HOST", "ledger-db-0.ledger-db", "REPLICA_HOST", "ledger-db-2.ledger-db"))
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ledger-db", Namespace: ns}, Spec: appsv1.StatefulSetSpec{
		Replicas: fx.Ptr(int32(2)), ServiceName: "ledger-db", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ledger-db"}}}}
	objs = append(objs, sts)
	for i := 0; i < 2; i++ {
		objs = append(objs, fx.Pod(ns, fmt.Sprintf("ledger-db-%d", i), map[string]string{"app": "ledger-db"}, corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "postgres:16", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 5432}}}}}, sts, "StatefulSet"))
	}
	h := svcAt("ledger-db", "None", map[string]string{"app": "ledger-db"}, 5432)
	objs = append(objs, h, fx.Node("node-1"))
	for _, target := range []*agent.Target{deploy("reader"), nil} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook(nil).source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "reader keeps crashing", Namespace: ns, Target: target}).RootCause
		t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
		if rc.Culprit.Kind != "ConfigMap" || rc.Culprit.Name != "reader-config" || !strings.Contains(rc.Summary, "ledger-db-0 to ledger-db-1") {
			t.Errorf("target %v: want ConfigMap reader-config naming the StatefulSet's pods", target)
		}
	}
}

// Peers that cannot resolve each other's pod.service names when the StatefulSet's governing
// Service is gone: the Service is the fault, with the StatefulSet that names it.
func TestGoverningServiceGoneBreaksPeerNames(t *testing.T) {
	for _, host := range []string{"alertmanager-main-1.alertmanager-operated", "alertmanager-main-1.alertmanager-operated.payments.svc.cluster.local"} {
		for _, target := range []*agent.Target{nil, {Kind: "StatefulSet", Name: "alertmanager-main"}} {
			s := statefulSet("alertmanager-main", 3, 3, func(s *appsv1.StatefulSet) { s.Spec.ServiceName = "alertmanager-operated" })
			objs := []runtime.Object{s, fx.Node("node-1")}
			for i := 0; i < 3; i++ {
				objs = append(objs, fx.Pod(ns, fmt.Sprintf("alertmanager-main-%d", i), s.Spec.Template.Labels, s.Spec.Template.Spec, s, "StatefulSet"))
			}
			e := agent.NewRuleEngine(fake.NewClientset(objs...))
			e.Now = func() time.Time { return fx.Now }
			line := fmt.Sprintf("level=warn component=cluster msg=\"refresh result\" err=\"1 error occurred:\\n\\t* Failed to resolve %s:9094: lookup %s on 10.96.0.10:53: no such host\"\n", host, host)
			e.Logs = logBook{"alertmanager-main-": strings.Repeat(line, 4)}.source()
			rc := drive(t, e, agent.Session{ID: "t", Problem: "A member of an Alertmanager cluster has not found all other cluster members.", Namespace: ns, Target: target}).RootCause
			names := map[string]bool{}
			for _, a := range rc.AffectedObjects {
				names[a.Kind+"/"+a.Name] = true
			}
			if rc.Rule != "statefulset-service-missing" || rc.Culprit.Name != "alertmanager-operated" || !names["StatefulSet/alertmanager-main"] {
				t.Errorf("%s (target %v): got %s on %s, affected %v: %s", host, target, rc.Rule, rc.Culprit, rc.AffectedObjects, rc.Summary)
			}
		}
	}
}
