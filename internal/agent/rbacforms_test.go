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

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

func clusterRole(name string, verbs, groups []string, resources ...string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{Verbs: verbs, APIGroups: groups, Resources: resources}}}
}

// Permission questions in the words people use: subresources ("read pod logs", "exec into
// pods", "scale deployments"), a custom resource by its kind, the account in its
// system:serviceaccount form, a cluster-scoped resource granted through a RoleBinding.
func TestAccessQuestionForms(t *testing.T) {
	core := []string{""}
	cases := []struct {
		name, problem string
		objs          []runtime.Object
		culprit       string
		affected      []string
		terms         []string
	}{
		{name: "pod logs, not pods", problem: "the log-collector SA can't read pod logs",
			objs:    []runtime.Object{sa("log-collector"), role("pod-viewer", []string{"get", "list"}, core, "pods"), binding("log-collector", "Role", "pod-viewer", saSubject("log-collector", ns))},
			culprit: "Role/pod-viewer", affected: []string{"RoleBinding/log-collector"}, terms: []string{"pods/log"}},
		{name: "exec needs create", problem: "why can't ci-runner exec into pods? kubectl says forbidden",
			objs:    []runtime.Object{sa("ci-runner"), role("debugger", []string{"get"}, core, "pods/exec"), binding("ci-runner-debug", "Role", "debugger", saSubject("ci-runner", ns))},
			culprit: "Role/debugger", affected: []string{"RoleBinding/ci-runner-debug"}, terms: []string{"create", "pods/exec"}},
		{name: "scale is a subresource", problem: "system:serviceaccount:payments:autoscaler-bot cannot scale deployments (403)",
			objs:    []runtime.Object{sa("autoscaler-bot"), role("deploy-patcher", []string{"get", "patch", "update"}, []string{"apps"}, "deployments"), binding("autoscaler-bot", "Role", "deploy-patcher", saSubject("autoscaler-bot", ns))},
			culprit: "Role/deploy-patcher", terms: []string{"deployments/scale"}},
		{name: "a custom resource by its kind", problem: "why can't issuer-sync create Certificates?",
			objs: []runtime.Object{sa("issuer-sync"), sa("default"), role("cert-viewer", []string{"get", "list", "watch"}, []string{"cert-manager.io"}, "certificates"),
				binding("issuer-sync", "Role", "cert-viewer", saSubject("issuer-sync", ns))},
			culprit: "Role/cert-viewer", terms: []string{"create", "certificates"}},
		{name: "a cluster-scoped resource through a RoleBinding", problem: "node-exporter-sd service account is forbidden to list nodes",
			objs: []runtime.Object{sa("node-exporter-sd"), clusterRole("node-lister", []string{"get", "list", "watch"}, core, "nodes"),
				binding("node-exporter-sd-nodes", "ClusterRole", "node-lister", saSubject("node-exporter-sd", ns))},
			culprit: "RoleBinding/node-exporter-sd-nodes", affected: []string{"ClusterRole/node-lister"}, terms: []string{"cluster-scoped", "ClusterRoleBinding"}},
		{name: "a cluster-scoped resource nothing grants", problem: "why can't the pv-auditor account list persistent volumes?",
			objs:    []runtime.Object{sa("pv-auditor"), role("pv-auditor", []string{"list"}, core, "persistentvolumeclaims"), binding("pv-auditor", "Role", "pv-auditor", saSubject("pv-auditor", ns))},
			culprit: "Role/pv-auditor", terms: []string{"persistentvolumes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs...))
			e.Now = func() time.Time { return fx.Now }
			c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns})
			rc := c.RootCause
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "rbac-forbidden" || got != tc.culprit {
				t.Fatalf("got %s on %s, want rbac-forbidden on %s\nsummary: %s", rc.Rule, got, tc.culprit, rc.Summary)
			}
			var aff []string
			for _, r := range rc.AffectedObjects {
				aff = append(aff, r.Kind+"/"+r.Name)
			}
			for _, w := range tc.affected {
				if !contains(aff, w) {
					t.Errorf("affectedObjects %v lack %s", aff, w)
				}
			}
			for _, w := range tc.terms {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, rc.Summary)
				}
			}
		})
	}
}
