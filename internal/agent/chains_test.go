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

// Chains of two hops or more: the consumer fails, the Service it calls has no working
// backends, and those backends fail for a reason of their own, which is the root cause; the
// path from the consumer to it is shown in the chain.

type chainCase struct {
	depCase
	chain []string // objects (Kind/Name) the chain must pass through, in order
}

func runChainCases(t *testing.T, cases []chainCase) {
	t.Helper()
	var dcs []depCase
	for _, c := range cases {
		dcs = append(dcs, c.depCase)
	}
	runDepCases(t, dcs)
	for _, tc := range cases {
		t.Run(tc.name+"/chain", func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = tc.logs.source()
			rc := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns}).RootCause
			path := strings.Join(rc.Chain, " | ")
			at := 0
			for _, w := range tc.chain {
				kind, name, _ := strings.Cut(w, "/")
				i := indexStep(rc.Chain[at:], kind, name)
				if i < 0 {
					t.Fatalf("chain lacks %s after step %d: %s", w, at, path)
				}
				at += i + 1
			}
			t.Logf("chain: %s", path)
		})
	}
}

// indexStep finds the first step naming kind and name.
func indexStep(steps []string, kind, name string) int {
	for i, s := range steps {
		if strings.Contains(s, kind) && strings.Contains(s, name) {
			return i
		}
	}
	return -1
}

func podsOf(o []runtime.Object, prefix string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, x := range o {
		if p, ok := x.(*corev1.Pod); ok && strings.HasPrefix(p.Name, prefix+"-") {
			out = append(out, p)
		}
	}
	return out
}

func TestProviderChains(t *testing.T) {
	invLabels := map[string]string{"app": "inventory"}
	cases := []chainCase{
		{depCase: depCase{name: "provider's pods never created: ResourceQuota", problem: "storefront keeps restarting",
			objs: func() []runtime.Object {
				o := app("storefront", 1, withEnv("INVENTORY_ADDR", "inventory:7000"), crashing)
				inv := app("inventory", 0, nil, nil)
				d, rs := inv[0].(*appsv1.Deployment), inv[1].(*appsv1.ReplicaSet)
				d.Spec.Replicas, rs.Spec.Replicas = fx.Ptr(int32(2)), fx.Ptr(int32(2))
				d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 0, 2
				d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
					Message: `pods "inventory-x" is forbidden: exceeded quota: shop-compute, requested: requests.cpu=2, used: requests.cpu=7, limited: requests.cpu=8`})
				q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "shop-compute", Namespace: ns},
					Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("8")}},
					Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("8")}, Used: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("7")}}}
				ev := fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate", `Error creating: pods "inventory-x" is forbidden: exceeded quota: shop-compute, requested: requests.cpu=2, used: requests.cpu=7, limited: requests.cpu=8`, 12, time.Minute)
				return append(append(o, inv...), q, ev, svcAt("inventory", "10.96.7.7", invLabels, 7000), fx.Node("node-1"))
			},
			logs: logBook{"storefront-": "panic: inventory client: dial tcp 10.96.7.7:7000: connect: connection refused\n"},
			rule: "quota-exceeded", culprit: "ResourceQuota/shop-compute", affected: []string{"Deployment/inventory"},
			terms: []string{"shop-compute"}},
			chain: []string{"Service/inventory", "ResourceQuota/shop-compute"}},
		{depCase: depCase{name: "provider Pending: no node has room", problem: "storefront keeps restarting",
			objs: func() []runtime.Object {
				o := app("storefront", 1, nil, crashing)
				o = append(o, app("inventory", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}
				}, func(p *corev1.Pod) {
					fx.Unschedulable(p, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
				})...)
				return append(o, svcAt("inventory", "10.96.7.7", invLabels, 7000), fx.Node("node-1"))
			},
			logs: logBook{"storefront-": "Error: connect ECONNREFUSED inventory.payments.svc.cluster.local:7000\n"},
			rule: "unschedulable-insufficient-resources", culprit: "Deployment/inventory", affected: []string{"Service/inventory"},
			terms: []string{"Insufficient cpu"}},
			chain: []string{"Service/inventory", "inventory"}},
		{depCase: depCase{name: "provider crash-loops on its own missing ConfigMap key", problem: "storefront keeps restarting",
			objs: func() []runtime.Object {
				o := app("storefront", 1, withEnv("INVENTORY_URL", "grpc://inventory:7000"), crashing)
				o = append(o, app("inventory", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "STOCK_DSN", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "inventory-cfg"}, Key: "stock_dsn"}}}}
				}, func(p *corev1.Pod) {
					fx.Waiting(p, "CreateContainerConfigError", `couldn't find key stock_dsn in ConfigMap payments/inventory-cfg`)
				})...)
				return append(o, cmWith("inventory-cfg", "stock-dsn", "x"), svcAt("inventory", "10.96.7.7", invLabels, 7000), fx.Node("node-1"))
			},
			logs: logBook{"storefront-": "ERROR rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp 10.96.7.7:7000: connect: connection refused\"\n"},
			rule: "configmap-key-missing", culprit: "ConfigMap/inventory-cfg", affected: []string{"Deployment/inventory"},
			terms: []string{"stock_dsn"}},
			chain: []string{"Service/inventory", "ConfigMap/inventory-cfg"}},
		{depCase: depCase{name: "egress policy on the consumer drops the provider's port", problem: "storefront times out",
			objs: func() []runtime.Object {
				o := app("storefront", 1, nil, crashing)
				o = append(o, app("inventory", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Ports = []corev1.ContainerPort{{Name: "rpc", ContainerPort: 7443}}
				}, nil)...)
				svc := svcAt("inventory", "10.96.7.7", invLabels, 7000)
				svc.Spec.Ports[0].TargetPort = intstr.FromString("rpc")
				udp := corev1.ProtocolUDP
				pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "storefront-out", Namespace: ns},
					Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "storefront"}}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
						Egress: []networkingv1.NetworkPolicyEgressRule{
							{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: fx.Ptr(intstr.FromInt32(53))}}},
							{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: invLabels}}}, Ports: []networkingv1.NetworkPolicyPort{{Port: fx.Ptr(intstr.FromInt32(7000))}}},
						}}}
				return append(o, svc, pol, fx.Node("node-1"))
			},
			logs: logBook{"storefront-": "WARN retrying\nERROR inventory: Post \"http://inventory:7000/reserve\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)\n"},
			rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/storefront-out", affected: []string{"Deployment/storefront", "Service/inventory"},
			terms: []string{"7443"}},
			chain: []string{"NetworkPolicy/storefront-out"}},
		{depCase: depCase{name: "egress policy on the consumer drops DNS to a Service name", problem: "storefront times out",
			objs: func() []runtime.Object {
				o := app("storefront", 1, nil, crashing)
				o = append(o, app("inventory", 1, nil, nil)...)
				pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "lockdown", Namespace: ns},
					Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
						Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: invLabels}}}}}}}
				return append(o, svcAt("inventory", "10.96.7.7", invLabels, 7000), pol, fx.Node("node-1"))
			},
			logs: logBook{"storefront-": "FATAL dial tcp: lookup inventory on 10.96.0.10:53: read udp 10.244.1.7:40000->10.96.0.10:53: i/o timeout\n"},
			rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/lockdown", affected: []string{"Deployment/storefront"},
			terms: []string{"DNS"}},
			chain: []string{"NetworkPolicy/lockdown"}},
		{depCase: depCase{name: "three hops: consumer → api → api's database Service selecting nothing", problem: "the shop front is down",
			objs: func() []runtime.Object {
				o := app("storefront", 1, nil, crashing)
				o = append(o, app("orders", 1, withEnv("PGHOST", "orders-db", "PGPORT", "5432"), crashing)...)
				o = append(o, app("orders-db", 1, nil, nil)...)
				return append(o, svcAt("orders", "10.96.7.8", map[string]string{"app": "orders"}, 80),
					svcAt("orders-db", "10.96.7.9", map[string]string{"app": "postgres"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"storefront-": "ERROR GET http://orders/api/v1/cart: dial tcp 10.96.7.8:80: connect: connection refused\n",
				"orders-": "FATAL: could not connect to server: Connection refused\n\tIs the server running on host \"orders-db\" (10.96.7.9) and accepting TCP/IP connections on port 5432?\n"},
			rule: "service-selector-mismatch", culprit: "Service/orders-db", affected: []string{"Deployment/orders"},
			terms: []string{"app=postgres"}},
			chain: []string{"Service/orders", "Service/orders-db"}},
		{depCase: depCase{name: "four hops: each provider fails on the next, the last one's Service selects nothing", problem: "the shop front is down",
			objs: func() []runtime.Object {
				o := app("storefront", 1, withEnv("API_URL", "http://gateway"), crashing)
				o = append(o, app("gateway", 1, withEnv("UPSTREAM", "orders.payments.svc.cluster.local:80"), crashing)...)
				o = append(o, app("orders", 1, withEnv("DATABASE_URL", "postgres://orders@orders-db:5432/orders"), crashing)...)
				o = append(o, app("orders-db", 1, nil, nil)...)
				return append(o, svcAt("gateway", "10.96.7.6", map[string]string{"app": "gateway"}, 80), svcAt("orders", "10.96.7.8", map[string]string{"app": "orders"}, 80),
					svcAt("orders-db", "10.96.7.9", map[string]string{"app": "postgres"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"storefront-": "ERROR GET http://gateway/: dial tcp 10.96.7.6:80: connect: connection refused\n",
				"gateway-": "ERROR upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: delayed connect error: 111\n",
				"orders-":  "FATAL: could not connect to server: Connection refused\n"},
			rule: "service-selector-mismatch", culprit: "Service/orders-db", affected: []string{"Deployment/orders"},
			terms: []string{"app=postgres"}},
			chain: []string{"Service/gateway", "Service/orders", "Service/orders-db"}},
		{depCase: depCase{name: "a headless Service without ready pods has no DNS records: its pods' own failure", problem: "search is down",
			objs: func() []runtime.Object {
				o := app("search-api", 1, nil, crashing)
				o = append(o, app("opensearch", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "ADMIN_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "opensearch-admin"}, Key: "password"}}}}
				}, func(p *corev1.Pod) {
					fx.Waiting(p, "CreateContainerConfigError", `secret "opensearch-admin" not found`)
				})...)
				return append(o, svcAt("opensearch", "None", map[string]string{"app": "opensearch"}, 9200), fx.Node("node-1"))
			},
			logs: logBook{"search-api-": "Caused by: java.net.UnknownHostException: opensearch: Name or service not known\n"},
			rule: "secret-missing", culprit: "Secret/opensearch-admin", affected: []string{"Deployment/opensearch"},
			terms: []string{"opensearch-admin"}},
			chain: []string{"Service/opensearch", "Secret/opensearch-admin"}},
		{depCase: depCase{name: "internalTrafficPolicy Local with no backend on the client's node", problem: "storefront times out",
			objs: func() []runtime.Object {
				o := app("storefront", 1, nil, func(p *corev1.Pod) { crashing(p); p.Spec.NodeName = "node-1" })
				o = append(o, app("inventory", 2, nil, func(p *corev1.Pod) { p.Spec.NodeName = "node-2" })...)
				svc := svcAt("inventory", "10.96.7.7", invLabels, 7000)
				svc.Spec.InternalTrafficPolicy = fx.Ptr(corev1.ServiceInternalTrafficPolicyLocal)
				return append(o, svc, fx.Node("node-1"), fx.Node("node-2"))
			},
			logs: logBook{"storefront-": "ERROR inventory: dial tcp 10.96.7.7:7000: i/o timeout\n"},
			rule: "dependency-unreachable", culprit: "Service/inventory", affected: []string{"Deployment/storefront"},
			terms: []string{"internalTrafficPolicy: Local", "node-1", "node-2"}},
			chain: []string{"Service/inventory"}},
		{depCase: depCase{name: "an ExternalName alias of a Service of the namespace that selects nothing", problem: "orders fail",
			objs: func() []runtime.Object {
				o := app("orders", 1, nil, crashing)
				o = append(o, app("orders-pg", 1, nil, nil)...)
				alias := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "orders-pg.payments.svc.cluster.local"}}
				return append(o, alias, svcAt("orders-pg", "10.96.8.1", map[string]string{"app": "postgresql"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"orders-": "FATAL could not connect to server: Connection refused\n\tIs the server running on host \"db\" and accepting TCP/IP connections on port 5432?\n"},
			rule: "service-selector-mismatch", culprit: "Service/orders-pg", affected: []string{"Deployment/orders"},
			terms: []string{"app=postgresql"}},
			chain: []string{"Service/orders-pg"}},
		{depCase: depCase{name: "an ExternalName alias of a Service that does not exist", problem: "orders fail",
			objs: func() []runtime.Object {
				o := app("orders", 1, nil, crashing)
				alias := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "orders-pg.payments.svc.cluster.local"}}
				return append(o, alias, fx.Node("node-1"))
			},
			logs: logBook{"orders-": "FATAL dial tcp: lookup db on 10.96.0.10:53: no such host\n"},
			rule: "dependency-host-unknown", culprit: "Service/db", affected: []string{"Deployment/orders"},
			terms: []string{"externalName", "orders-pg"}},
			chain: []string{"Service/db"}},
	}
	runChainCases(t, cases)
}
