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

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
	"github.com/kubage/kubage/test/vocabulary"
)

func sa(name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
}

func role(name string, verbs []string, groups []string, resources ...string) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: []rbacv1.PolicyRule{{APIGroups: groups, Resources: resources, Verbs: verbs}}}
}

func binding(name, roleKind, roleName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: roleKind, Name: roleName}}
}

func saSubject(name, namespace string) rbacv1.Subject {
	return rbacv1.Subject{Kind: "ServiceAccount", Name: name, Namespace: namespace}
}

func TestAccessQuestions(t *testing.T) {
	core := []string{""}
	cases := []struct {
		name     string
		problem  string
		objs     []runtime.Object
		logs     logBook
		rule     string
		culprit  string
		affected []string
		terms    []string
	}{
		{name: "the bound Role lacks the verb", problem: "why can't service account lister list pods?",
			objs: []runtime.Object{sa("lister"), role("pod-reader", []string{"get", "watch"}, core, "pods"), binding("lister-reads", "Role", "pod-reader", saSubject("lister", ns))},
			rule: "rbac-forbidden", culprit: "Role/pod-reader", affected: []string{"RoleBinding/lister-reads", "ServiceAccount/lister"}, terms: []string{"list", "pod-reader", "get,watch"}},
		{name: "the binding names a misspelt ServiceAccount", problem: "ServiceAccount lister gets forbidden when it lists deployments",
			objs: []runtime.Object{sa("lister"), role("deploy-reader", []string{"get", "list"}, []string{"apps"}, "deployments"), binding("lister-deploys", "Role", "deploy-reader", saSubject("listr", ns))},
			rule: "rbac-forbidden", culprit: "RoleBinding/lister-deploys", affected: []string{"Role/deploy-reader"}, terms: []string{"listr", "lister-deploys"}},
		{name: "the Role grants the resource in the wrong API group", problem: "why can't service account ci list deployments",
			objs: []runtime.Object{sa("ci"), role("ci", []string{"list"}, core, "deployments"), binding("ci", "Role", "ci", saSubject("ci", ns))},
			rule: "rbac-forbidden", culprit: "Role/ci", terms: []string{"apps"}},
		{name: "a Role allows it but nothing binds it", problem: "sa reporter cannot get configmaps",
			objs: []runtime.Object{sa("reporter"), role("cm-reader", []string{"get"}, core, "configmaps")},
			rule: "rbac-forbidden", culprit: "ServiceAccount/reporter", affected: []string{"Role/cm-reader"}, terms: []string{"cm-reader", "create rolebinding"}},
		{name: "the binding refers to a role that does not exist", problem: "why can't service account lister list pods",
			objs: []runtime.Object{sa("lister"), binding("lister", "ClusterRole", "pod-lister", saSubject("lister", ns))},
			rule: "rbac-forbidden", culprit: "RoleBinding/lister", affected: []string{"ClusterRole/pod-lister"}, terms: []string{"pod-lister", "does not exist"}},
		{name: "the subject is only named, and every account's default bindings exist", problem: "vault-agent is forbidden to read secrets",
			objs: []runtime.Object{sa("vault-agent"), sa("default"), binding("vault-agent-secrets", "ClusterRole", "secret-reader", saSubject("vault-agent", ns)),
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system:basic-user"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "system:basic-user"},
					Subjects: []rbacv1.Subject{{Kind: "Group", Name: "system:authenticated"}}},
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:basic-user"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews"}, Verbs: []string{"create"}}}}},
			rule: "rbac-forbidden", culprit: "RoleBinding/vault-agent-secrets", affected: []string{"ClusterRole/secret-reader"}, terms: []string{"secret-reader"}},
		{name: "a Running controller whose denial does not name the user", problem: "config-controller does not pick up changes",
			objs: append(app("config-controller", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "config-controller" }, nil),
				sa("config-controller"), role("config-reader", []string{"get"}, core, "configmaps"), binding("config-controller-reader", "Role", "config-reader", saSubject("config-controller", ns)), fx.Node("node-1")),
			logs: logBook{"config-controller-": strings.Repeat(`ERROR reflector.go:547] failed to list *v1.ConfigMap: configmaps is forbidden: cannot list resource "configmaps" in API group "" in the namespace`+"\n", 3)},
			rule: "rbac-forbidden", culprit: "Role/config-reader", affected: []string{"Deployment/config-controller"}, terms: []string{"configmaps", "list"}},
		{name: "an account named in passing", problem: "why can't vault-agent read secrets in this namespace?",
			objs: []runtime.Object{sa("vault-agent"), sa("default"), binding("vault-agent-secrets", "ClusterRole", "secret-reader", saSubject("vault-agent", ns))},
			rule: "rbac-forbidden", culprit: "RoleBinding/vault-agent-secrets", affected: []string{"ClusterRole/secret-reader"}, terms: []string{"secret-reader"}},
		{name: "a 403 while creating: the verb in its -ing form", problem: "the deploy-bot account gets 403 when creating jobs",
			objs: []runtime.Object{sa("deploy-bot"), role("deployer", []string{"get", "list"}, []string{"batch"}, "jobs"), binding("deploy-bot", "Role", "deployer", saSubject("deploy-bot", ns))},
			rule: "rbac-forbidden", culprit: "Role/deployer", affected: []string{"RoleBinding/deploy-bot"}, terms: []string{"create", "deployer"}},
		{name: "no verb: the authorizer is asked verb by verb", problem: "why does the sync-worker service account get forbidden on secrets?",
			objs: []runtime.Object{sa("sync-worker"), role("secret-lister", []string{"list", "watch"}, core, "secrets"), binding("sync-worker", "Role", "secret-lister", saSubject("sync-worker", ns))},
			rule: "rbac-forbidden", culprit: "Role/secret-lister", terms: []string{"get secrets", "secret-lister"}},
		{name: "a crash-looping pod quoting the denial", problem: "the controller keeps restarting",
			objs: append(app("ctl", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "ctl" }, crashing),
				sa("ctl"), role("ctl", []string{"get"}, core, "pods"), binding("ctl", "Role", "ctl", saSubject("ctl", ns)), fx.Node("node-1")),
			logs: logBook{"ctl-": `E1125 reflector.go:147] failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:payments:ctl" cannot list resource "pods" in API group "" in the namespace "payments"` + "\n"},
			rule: "rbac-forbidden", culprit: "Role/ctl", affected: []string{"Deployment/ctl", "ServiceAccount/ctl"}, terms: []string{"forbidden", "list"}},
		{name: "the pod's own account, its denial written under another namespace name", problem: "the controller keeps restarting",
			objs: append(app("ctl", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "ctl" }, crashing),
				sa("ctl"), role("ctl", []string{"get"}, core, "pods"), binding("ctl", "Role", "ctl", saSubject("ctl", ns)), fx.Node("node-1")),
			logs: logBook{"ctl-": `E1125 reflector.go:147] failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:staging:ctl" cannot list resource "pods" in API group "" in the namespace "staging"` + "\n"},
			rule: "rbac-forbidden", culprit: "Role/ctl", affected: []string{"Deployment/ctl", "ServiceAccount/ctl"}, terms: []string{"forbidden", "list"}},
		{name: "an account asking for another namespace's objects is not read as the pod's own", problem: "the controller keeps restarting",
			objs: append(app("ctl", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "ctl" }, crashing),
				sa("ctl"), role("ctl", []string{"get"}, core, "pods"), binding("ctl", "Role", "ctl", saSubject("ctl", ns)), fx.Node("node-1")),
			logs: logBook{"ctl-": `E1125 reflector.go:147] failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:staging:ctl" cannot list resource "pods" in API group "" in the namespace "kube-system"` + "\n"},
			rule: "crash-loop", culprit: "Deployment/ctl"},
		{name: "our account's binding that almost grants it beats another namespace's account of the same name", problem: "why can't service account external-dns list ingresses?",
			objs: []runtime.Object{sa("external-dns"),
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "external-dns"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"extensions"}, Resources: []string{"ingresses"}, Verbs: []string{"get", "list", "watch"}}}},
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "external-dns"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "external-dns"}, Subjects: []rbacv1.Subject{saSubject("external-dns", ns)}},
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "edns-viewer"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: []string{"get", "list", "watch"}}}},
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dns-team-external-dns-viewer"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "edns-viewer"}, Subjects: []rbacv1.Subject{saSubject("external-dns", "dns-team")}}},
			rule: "rbac-forbidden", culprit: "ClusterRole/external-dns", terms: []string{"networking.k8s.io"}},
		{name: "a Role limited by resourceNames that leave out the object asked for", problem: "inventory-service crashes on boot",
			objs: append(app("inventory-service", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "inventory-service" }, crashing),
				sa("inventory-service"), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "inventory-config-reader", Namespace: ns},
					Rules: []rbacv1.PolicyRule{{APIGroups: core, Resources: []string{"configmaps"}, Verbs: []string{"get", "watch"}, ResourceNames: []string{"inventory-settings"}}}},
				binding("inventory-service", "Role", "inventory-config-reader", saSubject("inventory-service", ns)), fx.Node("node-1")),
			logs: logBook{"inventory-service-": `ERROR [io.qua.kub.run.KubernetesConfigSourceFactory] Failure executing: GET at: https://10.96.0.1/api/v1/namespaces/payments/configmaps/inventory-flags. Message: configmaps "inventory-flags" is forbidden: User "system:serviceaccount:payments:inventory-service" cannot get resource "configmaps" in API group "" in the namespace "payments".` + "\n"},
			rule: "rbac-forbidden", culprit: "Role/inventory-config-reader", affected: []string{"Deployment/inventory-service"}, terms: []string{"resourceNames inventory-settings", "not inventory-flags"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = tc.logs.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns})
			rc := c.RootCause
			got := rc.Culprit.Kind + "/" + rc.Culprit.Name
			if rc.Rule != tc.rule || got != tc.culprit {
				t.Fatalf("got %s on %s, want %s on %s\nsummary: %s", rc.Rule, got, tc.rule, tc.culprit, rc.Summary)
			}
			var aff []string
			for _, r := range rc.AffectedObjects {
				aff = append(aff, r.Kind+"/"+r.Name)
			}
			for _, w := range append([]string{tc.culprit}, tc.affected...) {
				if !contains(aff, w) {
					t.Errorf("affectedObjects %v lack %s", aff, w)
				}
			}
			for _, w := range tc.terms {
				if !strings.Contains(rc.Summary, w) && !strings.Contains(c.Remediation.Actions[len(c.Remediation.Actions)-1].Command, w) {
					t.Errorf("summary lacks %q: %s", w, rc.Summary)
				}
			}
			for _, g := range vocabulary.Gaps(rc) {
				t.Errorf("%s: the summary does not name %s: %s", rc.Rule, g, rc.Summary)
			}
		})
	}
}

// The problem's words pick between unrelated findings: a user asking about access gets the
// binding that grants nothing, not the crash next door.
func TestProblemWordsPickTheRBACFinding(t *testing.T) {
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "deploy-manager"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "ci", Namespace: ns}}}
	objs := append(app("web", 1, nil, crashing), rb, sa("ci"), fx.Node("node-1"))
	for problem, want := range map[string]string{
		"the pipeline gets a permission error": "rolebinding-role-missing",
		"web keeps restarting":                 "crash-loop",
	} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{}.source()
		if rc := drive(t, e, agent.Session{ID: "t", Problem: problem, Namespace: ns}).RootCause; rc.Rule != want {
			t.Errorf("%q: got %s on %s, want %s", problem, rc.Rule, rc.Culprit, want)
		}
	}
}
