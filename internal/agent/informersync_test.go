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

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A controller that logs only that its informer never synced is asked about with the
// authorizer: a list its ServiceAccount may not make names the RBAC object that almost
// grants it; a list it may make is no RBAC finding (the network is next).
func TestInformerSyncFailureAsksTheAuthorizer(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("dns-sync", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "dns-sync" }, crashing)
		cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "dns-sync"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "pods"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"extensions"}, Resources: []string{"ingresses"}, Verbs: []string{"get", "list", "watch"}}}}
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dns-sync-viewer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "dns-sync"},
			Subjects: []rbacv1.Subject{saSubject("dns-sync", ns)}}
		return append(o, cr, crb, sa("dns-sync"), fx.Node("node-1"))
	}
	logs := logBook{"dns-sync-": "level=info msg=\"Instantiating new Kubernetes client\"\nlevel=info msg=\"Created Kubernetes client https://10.96.0.1:443\"\nlevel=fatal msg=\"failed to sync *v1.Ingress: context deadline exceeded\"\n"}
	withReview := func(allowed bool) *agent.RuleEngine {
		cs := fake.NewClientset(objs()...)
		cs.PrependReactor("create", "subjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, &authorizationv1.SubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: allowed}}, nil
		})
		e := agent.NewRuleEngine(cs)
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logs.source()
		return e
	}
	rc := drive(t, withReview(false), sessionFor("DNS records stopped updating")).RootCause
	if rc.Rule != "rbac-forbidden" || rc.Culprit.Kind+"/"+rc.Culprit.Name != "ClusterRole/dns-sync" {
		t.Fatalf("got %s on %s, want rbac-forbidden on ClusterRole/dns-sync: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
	for _, w := range []string{"ingresses", "networking.k8s.io", "extensions"} {
		if !strings.Contains(rc.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, rc.Summary)
		}
	}
	if !hasRef(rc.AffectedObjects, "Deployment", "dns-sync") {
		t.Errorf("the controller is not among the affected objects: %v", rc.AffectedObjects)
	}
	for allowed, what := range map[bool]string{true: "an allowed list", false: "a review that failed"} {
		e := withReview(allowed)
		if !allowed {
			e = agent.NewRuleEngine(fake.NewClientset(objs()...)) // the fake cannot answer a review
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logs.source()
		}
		if rc := drive(t, e, sessionFor("DNS records stopped updating")).RootCause; rc.Rule == "rbac-forbidden" || rc.Rule == "rbac-allowed" {
			t.Errorf("%s was reported as RBAC: %s: %s", what, rc.Rule, rc.Summary)
		}
	}
}

func hasRef(refs []agent.ObjectRef, kind, name string) bool {
	for _, r := range refs {
		if r.Kind == kind && r.Name == name {
			return true
		}
	}
	return false
}

// Two installs of one controller, each with a ServiceAccount of the same name in its own
// namespace: the other install's binding (whose role allows the list) is that namespace's
// own, and the binding of ours is where the missing permission goes.
func TestOtherInstallsBindingIsNotANearMiss(t *testing.T) {
	rules := func(withSlices bool) []rbacv1.PolicyRule {
		r := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "secrets"}, Verbs: []string{"get", "list", "watch"}}}
		if withSlices {
			r = append(r, rbacv1.PolicyRule{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}})
		}
		return r
	}
	o := app("traefik", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "traefik" }, nil)
	o = append(o, sa("traefik"),
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "payments-traefik"}, Rules: rules(false)},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "payments-traefik"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "payments-traefik"},
			Subjects: []rbacv1.Subject{saSubject("traefik", ns)}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "edge-traefik"}, Rules: rules(true)},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "edge-traefik"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edge-traefik"},
			Subjects: []rbacv1.Subject{saSubject("traefik", "edge")}},
		fx.Node("node-1"))
	line := `W1128 09:14:03.118204       1 reflector.go:561] k8s.io/client-go@v0.31.1/tools/cache/reflector.go:243: failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:payments:traefik" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope` + "\n"
	cs := fake.NewClientset(o...)
	cs.PrependReactor("create", "subjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &authorizationv1.SubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: false}}, nil
	})
	e := agent.NewRuleEngine(cs)
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"traefik-": line + line + line}.source()
	rc := drive(t, e, sessionFor("every Ingress answers 404 after the upgrade")).RootCause
	if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; got != "ClusterRole/payments-traefik" {
		t.Fatalf("got %s on %s, want the ClusterRole our binding uses: %s", rc.Rule, got, rc.Summary)
	}
}
