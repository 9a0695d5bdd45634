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

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A web UI answering 404 for /api/... requests that an Ingress sends it because the /api
// rule meant for the API is Exact: the Ingress is the fault, not a file the UI lacks. With
// the /api rule Prefix, the same 404 (a path the API routes nowhere) is not blamed on it.
func TestIngressExactPathFallsThrough(t *testing.T) {
	cluster := func(apiType networkingv1.PathType) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("reports-ui", 2, nil, nil)
			o = append(o, app("reports-api", 2, nil, nil)...)
			path := func(p string, pt networkingv1.PathType, svc string) networkingv1.HTTPIngressPath {
				return networkingv1.HTTPIngressPath{Path: p, PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}
			}
			ing := &networkingv1.Ingress{TypeMeta: metav1.TypeMeta{Kind: "Ingress", APIVersion: "networking.k8s.io/v1"},
				ObjectMeta: metav1.ObjectMeta{Name: "reports", Namespace: ns, UID: fx.UID("Ingress", "reports"), CreationTimestamp: fx.Ago(48 * time.Hour)},
				Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "reports.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{path("/api", apiType, "reports-api"), path("/", networkingv1.PathTypePrefix, "reports-ui")}}}}}}}
			return append(o, svcAt("reports-ui", "10.96.0.91", map[string]string{"app": "reports-ui"}, 80), svcAt("reports-api", "10.96.0.92", map[string]string{"app": "reports-api"}, 80), ing, fx.Node("node-1"))
		}
	}
	line := `2026/11/27 15:46:02 [error] 29#29: *118 open() "/usr/share/nginx/html/api/v1/reports/daily" failed (2: No such file or directory), client: 10.244.0.5, server: _, request: "GET /api/v1/reports/daily?date=2026-11-26 HTTP/1.1", host: "reports.example.com"`
	logs := logBook{"reports-ui-": strings.Repeat(line+"\n", 3)}
	runDepCases(t, []depCase{
		{name: "the /api rule is Exact", problem: "the dashboard gets 404 on /api/v1/reports/daily",
			objs: cluster(networkingv1.PathTypeExact), logs: logs,
			rule: "ingress-path-type-mismatch", culprit: "Ingress/reports", affected: []string{"Service/reports-api"},
			terms: []string{"Exact", "/api/v1/reports/daily", "pathType: Prefix"}},
	})
	e := engine(cluster(networkingv1.PathTypePrefix)()...)
	e.Logs = logs.source()
	c := drive(t, e, sessionFor("the dashboard gets 404 on /api/v1/reports/daily"))
	if c.RootCause.Rule == "ingress-path-type-mismatch" {
		t.Errorf("blamed a Prefix rule: %s", c.RootCause.Summary)
	}
}
