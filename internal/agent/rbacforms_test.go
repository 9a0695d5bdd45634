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
		{name: "a user bound under another spelling", problem: "user jane.doe@example.com cannot delete configmaps in this namespace",
			objs: []runtime.Object{role("config-editor", []string{"get", "list", "update", "delete"}, core, "configmaps"),
				binding("jane-config", "Role", "config-editor", rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "Jane.Doe@example.com"})},
			culprit: "RoleBinding/jane-config", affected: []string{"Role/config-editor"}, terms: []string{"Jane.Doe@example.com", "case-sensitive"}},
		{name: "a group bound as a User", problem: "group platform-oncall can't create jobs: forbidden",
			objs: []runtime.Object{role("job-runner", []string{"create", "get"}, []string{"batch"}, "jobs"),
				binding("oncall-jobs", "Role", "job-runner", rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "platform-oncall"})},
			culprit: "RoleBinding/oncall-jobs", terms: []string{"kind User instead of kind Group"}},
		{name: "a user whose role lacks the subresource", problem: "why does user alice get forbidden when she runs kubectl exec into pods?",
			objs: []runtime.Object{role("pod-reader", []string{"get", "list"}, core, "pods", "pods/log"),
				binding("alice-read", "Role", "pod-reader", rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"})},
			culprit: "Role/pod-reader", affected: []string{"RoleBinding/alice-read"}, terms: []string{"pods/exec", "user alice"}},
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

// The remediation binds the subject the question is about: a ServiceAccount, a user or a
// group, with a binding name kubectl accepts.
func TestAccessRemediationBindsTheSubject(t *testing.T) {
	cases := []struct{ problem, flag string }{
		{"why can't the reporter service account read pod logs?", "--serviceaccount=payments:reporter"},
		{"user ops@example.com cannot list secrets", "--user=ops@example.com"},
		{"group auditors can't list configmaps", "--group=auditors"},
	}
	for _, tc := range cases {
		objs := []runtime.Object{sa("reporter"), role("viewer", []string{"get"}, []string{""}, "pods", "secrets", "configmaps"), role("logs", []string{"get"}, []string{""}, "pods/log"),
			binding("any", "Role", "viewer", saSubject("reporter", ns), rbacv1.Subject{Kind: "User", Name: "ops@example.com"}, rbacv1.Subject{Kind: "Group", Name: "auditors"})}
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns})
		var cmds []string
		for _, a := range c.Remediation.Actions {
			cmds = append(cmds, a.Command)
		}
		all := strings.Join(cmds, "\n")
		if c.RootCause.Rule != "rbac-forbidden" || !strings.Contains(all, tc.flag) || strings.Contains(all, "/log-") {
			t.Errorf("%q: got %s with actions:\n%s\nwant a binding with %s", tc.problem, c.RootCause.Rule, all, tc.flag)
		}
	}
}
