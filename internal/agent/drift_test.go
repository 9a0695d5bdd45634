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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// Faults the objects prove without the application's words: logs unreachable (nil logBook)
// or silent, the configuration still names a port or a Service that cannot answer.
func TestConfigurationProvesTheFault(t *testing.T) {
	brokers := map[string]string{"app": "broker"}
	// withSlice adds Service s and its EndpointSlice over the pods named prefix*, as the
	// EndpointSlice controller would.
	withSlice := func(o []runtime.Object, s *corev1.Service, prefix string) []runtime.Object {
		var pods []*corev1.Pod
		for _, x := range o {
			if p, ok := x.(*corev1.Pod); ok && strings.HasPrefix(p.Name, prefix) {
				pods = append(pods, p)
			}
		}
		return append(o, s, fx.EndpointSlice(s, pods...))
	}
	withTermMsg := func(msg string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			crashing(p)
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = msg
		}
	}
	runDepCases(t, []depCase{
		{name: "Running consumer, logs unreachable: its host:port names a port the Service does not expose", problem: "events are not consumed",
			objs: func() []runtime.Object {
				o := app("consumer", 1, envFrom("consumer-settings"), nil)
				o = append(o, app("broker", 1, nil, nil)...)
				o = withSlice(o, svcAt("broker", "10.96.0.40", brokers, 7000), "broker-")
				return append(o, cmWith("consumer-settings", "BROKER_ADDR", "broker:7001", "GROUP", "c1"), fx.Node("node-1"))
			},
			logs: nil,
			rule: "dependency-port-mismatch", culprit: "ConfigMap/consumer-settings", affected: []string{"Deployment/consumer", "Service/broker"},
			terms: []string{"7001", "7000", "consumer-settings"}},
		{name: "crash with a generic message, logs unreachable: the configured host is a near miss of a Service", problem: "billing keeps restarting",
			objs: func() []runtime.Object {
				o := app("billing", 1, envFrom("billing-settings"), withTermMsg("fatal: startup failed, see log"))
				o = append(o, app("invoices-db", 1, nil, nil)...)
				o = withSlice(o, svcAt("invoices-db", "10.96.0.41", map[string]string{"app": "invoices-db"}, 5432), "invoices-db-")
				return append(o, cmWith("billing-settings", "DB_HOST", "invoice-db"), fx.Node("node-1"))
			},
			logs: nil,
			rule: "dependency-host-unknown", culprit: "ConfigMap/billing-settings", affected: []string{"Deployment/billing"},
			terms: []string{"invoice-db", "invoices-db"}},
		{name: "a Running consumer configured right is not blamed", problem: "is anything wrong?",
			objs: func() []runtime.Object {
				o := app("consumer", 1, envFrom("consumer-settings"), nil)
				o = append(o, app("broker", 1, nil, nil)...)
				o = withSlice(o, svcAt("broker", "10.96.0.40", brokers, 7000), "broker-")
				return append(o, cmWith("consumer-settings", "BROKER_ADDR", "broker:7000", "UPSTREAM_URL", "https://api.partner.example.com:8443"), fx.Node("node-1"))
			},
			logs: nil, rule: "no-problem-found"},
		{name: "a generic crash whose configured host resembles no Service stays the workload's", problem: "billing keeps restarting",
			objs: func() []runtime.Object {
				o := app("billing", 1, envFrom("billing-settings"), withTermMsg("fatal: startup failed, see log"))
				o = append(o, app("invoices-db", 1, nil, nil)...)
				o = withSlice(o, svcAt("invoices-db", "10.96.0.41", map[string]string{"app": "invoices-db"}, 5432), "invoices-db-")
				return append(o, cmWith("billing-settings", "DB_HOST", "ledger"), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/billing", terms: []string{"startup failed"}},
	})
}

// A Service whose selector is right but whose StatefulSet could create none of its pods is a
// symptom: the consumer crashing on it, the Service and the StatefulSet are all explained by
// the ResourceQuota that refused the pod.
func TestServiceFollowsItsWorkloadToTheQuota(t *testing.T) {
	db := fx.Deployment(ns, "postgres", 1, "postgres:16")
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "postgres", Namespace: ns}, Spec: appsv1.StatefulSetSpec{Replicas: fx.Ptr(int32(1)),
		Selector: db.Spec.Selector, Template: db.Spec.Template, ServiceName: "postgres"}}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "team-pods", Namespace: ns},
		Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}},
		Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}
	ev := fx.Event(ns, "StatefulSet", "postgres", "Warning", "FailedCreate",
		`create Pod postgres-0 in StatefulSet postgres failed error: pods "postgres-0" is forbidden: exceeded quota: team-pods, requested: pods=1, used: pods=1, limited: pods=1`, 12, time.Minute)
	objs := app("web", 1, func(s *corev1.PodSpec) { s.Containers[0].Env = []corev1.EnvVar{{Name: "PGHOST", Value: "postgres"}} }, func(p *corev1.Pod) {
		crashing(p)
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = `FATAL: could not connect to server: Connection refused. Is the server running on host "postgres" (10.96.7.7) and accepting TCP/IP connections on port 5432?`
	})
	objs = append(objs, sts, q, ev, svcAt("postgres", "10.96.7.7", map[string]string{"app": "postgres"}, 5432), fx.Node("node-1"))
	for _, target := range []*agent.Target{nil, {Kind: "Deployment", Name: "web"}} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook(nil).source()
		c := drive(t, e, agent.Session{ID: "t", Problem: "the web tier keeps crashing", Namespace: ns, Target: target})
		rc := c.RootCause
		if rc.Culprit.Kind != "ResourceQuota" || rc.Culprit.Name != "team-pods" {
			t.Fatalf("target %v: got %s on %s/%s: %s\nchain %v\nalternatives %+v", target, rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary, rc.Chain, c.Alternatives)
		}
		if !strings.Contains(rc.Summary, "pods=1") {
			t.Errorf("summary lacks the quota's numbers: %s", rc.Summary)
		}
		t.Logf("summary: %s\nchain: %v", rc.Summary, rc.Chain)
	}
}

// An egress policy whose DNS rule selects kube-system by a label it does not carry blocks
// lookups; the summary names the selector that misses.
func TestDNSRuleSelectsNoNamespace(t *testing.T) {
	udp := corev1.ProtocolUDP
	runDepCases(t, []depCase{{name: "port 53 to namespaces name=kube-system", problem: "the exporter keeps crashing",
		objs: func() []runtime.Object {
			o := app("exporter", 1, nil, crashing)
			pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "exporter-egress", Namespace: ns},
				Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "exporter"}}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
					Egress: []networkingv1.NetworkPolicyEgressRule{{
						To:    []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "kube-system"}}}},
						Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: fx.Ptr(intstr.FromInt32(53))}},
					}}}}
			return append(o, pol, fx.Node("node-1"))
		},
		logs: logBook{"exporter-": "ERROR push failed: dial tcp: lookup metrics.example.com on 10.96.0.10:53: read udp 10.244.0.5:4000->10.96.0.10:53: i/o timeout\n"},
		rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/exporter-egress", terms: []string{"DNS", "name=kube-system"}}})
}

// A DNS rule without a protocol opens port 53 over TCP only; lookups go over UDP, so the
// policy still blocks them, and the summary says so.
func TestDNSRuleAdmitsTCPOnly(t *testing.T) {
	runDepCases(t, []depCase{{name: "port 53 without protocol", problem: "the exporter keeps crashing",
		objs: func() []runtime.Object {
			o := app("exporter", 1, nil, crashing)
			pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "exporter-egress", Namespace: ns},
				Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "exporter"}}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
					Egress: []networkingv1.NetworkPolicyEgressRule{{
						To:    []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}}}},
						Ports: []networkingv1.NetworkPolicyPort{{Port: fx.Ptr(intstr.FromInt32(53))}},
					}}}}
			return append(o, pol, fx.Node("node-1"))
		},
		logs: logBook{"exporter-": "ERROR push failed: dial tcp: lookup metrics.example.com on 10.96.0.10:53: read udp 10.244.0.5:4000->10.96.0.10:53: i/o timeout\n"},
		rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/exporter-egress", terms: []string{"DNS", "UDP"}}})
}
