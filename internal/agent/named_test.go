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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// bystanders are Running, Ready workloads that log nothing wrong; they come first in the
// pod list, more of them than the namespace scan samples logs from.
func bystanders(names ...string) []runtime.Object {
	var o []runtime.Object
	for _, n := range names {
		o = append(o, app(n, 1, nil, nil)...)
	}
	return append(o, fx.Node("node-1"))
}

// served is a Service over a workload's pods with its EndpointSlice.
func served(name string, objs []runtime.Object) []runtime.Object {
	d := objs[0].(*appsv1.Deployment)
	svc := fx.Service(ns, name, d.Spec.Template.Labels, intstr.FromInt32(8080))
	var pods []*corev1.Pod
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return append(objs, svc, fx.EndpointSlice(svc, pods...))
}

func ingressFor(name, host, svc string) *networkingv1.Ingress {
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{Kind: "Ingress", APIVersion: "networking.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: fx.UID("Ingress", name), CreationTimestamp: fx.Ago(48 * time.Hour)},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}},
		}}}}},
	}
}

// relabel gives a workload's template and pods another label (app.kubernetes.io/name=x).
func relabel(objs []runtime.Object, k, v string) []runtime.Object {
	for _, o := range objs {
		switch x := o.(type) {
		case *appsv1.Deployment:
			x.Spec.Template.Labels[k] = v
		case *corev1.Pod:
			x.Labels[k] = v
		}
	}
	return objs
}

// A target-less question about a Running, Ready workload whose log repeats an error is
// answered about that workload, however the user (or an alert) names it, even when the
// namespace holds more healthy workloads than the scan reads logs of.
func TestNamedWorkloadLogsReadFirst(t *testing.T) {
	quiet := []string{"accounts", "billing", "catalog", "docs", "emails"}
	cases := []struct {
		name, problem string
		hints         []string
		objs          func() []runtime.Object
		logs          logBook
		culprit, term string
	}{
		{name: "two words for a hyphenated name", problem: "the search API is slow and shows no results for some queries",
			objs:    func() []runtime.Object { return append(bystanders(quiet...), app("search-api", 2, nil, nil)...) },
			logs:    logBook{"search-api-": strings.Repeat("INFO GET /q 200\nERROR render results: template: results:12: function \"fmtPrice\" not defined\n", 3)},
			culprit: "Deployment/search-api", term: "fmtPrice"},
		{name: "a pod name with its hashes, JSON log", problem: "pod ranker-6d4cf56db6-8fk2l keeps logging errors",
			objs:    func() []runtime.Object { return append(bystanders(quiet...), app("ranker", 1, nil, nil)...) },
			logs:    logBook{"ranker-": strings.Repeat(`{"level":"info","msg":"batch scored"}`+"\n"+`{"level":"error","msg":"scoring failed","error":"model weights checksum mismatch"}`+"\n", 3)},
			culprit: "Deployment/ranker", term: "checksum mismatch"},
		{name: "a Service DNS name with a port, logfmt", problem: "calls to quotes.payments.svc.cluster.local:8080 return 500",
			objs: func() []runtime.Object {
				return append(bystanders(quiet...), served("quotes", app("pricing-engine", 1, nil, nil))...)
			},
			logs:    logBook{"pricing-engine-": strings.Repeat("level=info msg=\"quote served\"\nlevel=error msg=\"quote failed\" err=\"rule 7: division by zero\"\n", 3)},
			culprit: "Deployment/pricing-engine", term: "division by zero"},
		{name: "a URL whose host an Ingress routes", problem: "https://status.example.org/incidents shows stale data",
			objs: func() []runtime.Object {
				return append(append(bystanders(quiet...), served("status-web", app("statuspage", 1, nil, nil))...), ingressFor("public", "status.example.org", "status-web"))
			},
			logs:    logBook{"statuspage-": strings.Repeat("I1127 10:00:00.000000       1 sync.go:40] tick\nE1127 10:00:01.000000       1 sync.go:88] refresh incidents: unexpected end of JSON input\n", 3)},
			culprit: "Deployment/statuspage", term: "unexpected end of JSON input"},
		{name: "a label value", problem: "tiles come back blank on the map",
			objs: func() []runtime.Object {
				return append(bystanders(quiet...), relabel(app("render-v3", 1, nil, nil), "app.kubernetes.io/name", "tiles")...)
			},
			logs:    logBook{"render-v3-": strings.Repeat("[INFO] tile 12/1204/1539 done\n[ERROR] rasterize failed: invalid style layer \"roads\"\n", 3)},
			culprit: "Deployment/render-v3", term: "invalid style layer"},
		{name: "an alert's pod label", problem: "Alert HighErrorRate is firing in namespace payments.\nsummary: error rate above 5%",
			hints:   []string{"labels: alertname=HighErrorRate, namespace=payments, pod=ledger-7f8b9c6d5-k2x9p, severity=warning"},
			objs:    func() []runtime.Object { return append(bystanders(quiet...), app("ledger", 1, nil, nil)...) },
			logs:    logBook{"ledger-": strings.Repeat("2026-11-27 10:00:00 INFO posted\n2026-11-27 10:00:01 ERROR IllegalStateException: balance mismatch for account 4711\n", 3)},
			culprit: "Deployment/ledger", term: "balance mismatch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = tc.logs.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Hints: tc.hints, Namespace: ns})
			rc := c.RootCause
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "app-error-logged" || got != tc.culprit {
				t.Fatalf("got %s on %s, want app-error-logged on %s\nsummary: %s", rc.Rule, got, tc.culprit, rc.Summary)
			}
			if !strings.Contains(rc.Summary, tc.term) {
				t.Errorf("summary lacks %q: %s", tc.term, rc.Summary)
			}
		})
	}
}

// The workload the user names is where the symptom shows: its own repeated error outranks a
// louder failure of an unrelated workload in the same namespace.
func TestNamedWorkloadOutranksUnrelatedNoise(t *testing.T) {
	noise := []struct {
		name string
		objs func() []runtime.Object
	}{
		{"a crash-looping neighbour", func() []runtime.Object { return app("importer", 1, nil, crashing) }},
		{"a Pending neighbour", func() []runtime.Object {
			return app("indexer", 1, func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"pool": "gpu"} }, func(p *corev1.Pod) {
				fx.Unschedulable(p, "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.")
			})
		}},
	}
	for _, n := range noise {
		t.Run(n.name, func(t *testing.T) {
			objs := append(append(bystanders("accounts"), n.objs()...), app("orders-api", 2, nil, nil)...)
			logs := logBook{"orders-api-": strings.Repeat("ERROR POST /orders: pq: duplicate key value violates unique constraint \"orders_pkey\"\n", 4)}
			e := agent.NewRuleEngine(fake.NewClientset(objs...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logs.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: "the orders API returns 500 when customers check out", Namespace: ns})
			rc := c.RootCause
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; got != "Deployment/orders-api" || !strings.Contains(rc.Summary, "duplicate key") {
				t.Fatalf("got %s on %s, want Deployment/orders-api quoting its error\nsummary: %s\nalternatives: %+v", rc.Rule, got, rc.Summary, c.Alternatives)
			}
		})
	}
}

// A problem told in the business's words ("notifications", "thumbnails", "payment
// statuses") shares a stem with the workload that does that job: its log is read first
// among more healthy-looking workloads than the scan samples.
func TestProblemWordsStemToWorkloads(t *testing.T) {
	quiet := []string{"accounts", "billing", "catalog", "docs", "emails"}
	cases := []struct {
		problem, workload, log, term string
	}{
		{"customers stopped getting notifications", "notifier", "level=error msg=\"send failed\" err=\"template push.tmpl: unexpected EOF\"\n", "unexpected EOF"},
		{"thumbnails are missing for new uploads", "thumbnailer", "[ERROR] resize failed: vips: unsupported image format\n", "unsupported image format"},
		{"payment statuses are hours behind", "payments-sync", "ERROR reconcile batch 118: provider returned 429 Too Many Requests\n", "429"},
	}
	for _, tc := range cases {
		t.Run(tc.workload, func(t *testing.T) {
			objs := append(bystanders(quiet...), app(tc.workload, 1, nil, nil)...)
			logs := logBook{tc.workload + "-": "INFO tick\n" + strings.Repeat(tc.log, 3)}
			e := agent.NewRuleEngine(fake.NewClientset(objs...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logs.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns})
			rc := c.RootCause
			if rc.Culprit.Name != tc.workload || !strings.Contains(rc.Summary, tc.term) {
				t.Fatalf("got %s on %s/%s, want a finding on Deployment/%s quoting %q\nsummary: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, tc.workload, tc.term, rc.Summary)
			}
		})
	}
}
