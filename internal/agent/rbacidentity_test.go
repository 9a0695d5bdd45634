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
)

// A pod that sets no serviceAccountName runs as "default"; when the permission it is denied is
// granted to another ServiceAccount of the namespace, the workload's serviceAccountName is
// the fix, not a new binding for default. With two accounts holding the grant, which one was
// meant is unclear and the finding stays on the account.
func TestDeniedDefaultAccountWhileAnotherHoldsTheGrant(t *testing.T) {
	msg := `error: failed to patch: deployments.apps "web" is forbidden: User "system:serviceaccount:` + ns + `:default" cannot patch resource "deployments" in API group "apps" in the namespace "` + ns + `"`
	base := app("web-restarter", 1, nil, func(p *corev1.Pod) {
		fx.CrashLoop(p, 1, "Error", 3)
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = msg
	})
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "deployment-restarter", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, ResourceNames: []string{"web"}, Verbs: []string{"get", "patch"}}}}
	bind := func(name, account string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "deployment-restarter"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: account, Namespace: ns}}}
	}
	for _, tc := range []struct {
		name    string
		extra   []runtime.Object
		culprit string
		terms   []string
	}{
		{name: "one account holds the grant", extra: []runtime.Object{bind("deploy-restarter", "deploy-restarter"), sa("deploy-restarter")},
			culprit: "Deployment/web-restarter", terms: []string{"serviceAccountName", "deploy-restarter", "RoleBinding deploy-restarter"}},
		{name: "two accounts hold it", extra: []runtime.Object{bind("deploy-restarter", "deploy-restarter"), sa("deploy-restarter"), bind("release-bot", "release-bot"), sa("release-bot")},
			culprit: "ServiceAccount/default", terms: []string{"no RoleBinding binds it"}},
	} {
		objs := append(append([]runtime.Object{}, base...), role, sa("default"), fx.Node("node-1"))
		objs = append(objs, tc.extra...)
		for _, target := range []*agent.Target{{Kind: "Deployment", Name: "web-restarter"}, nil} {
			e := agent.NewRuleEngine(fake.NewClientset(objs...))
			e.Now = func() time.Time { return fx.Now }
			rc := drive(t, e, agent.Session{ID: "t", Problem: "web was not restarted overnight", Namespace: ns, Target: target}).RootCause
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; got != tc.culprit || tc.culprit == "Deployment/web-restarter" && rc.Rule != "serviceaccount-not-set" {
				t.Errorf("%s, target %v: culprit %s (%s), want %s: %s", tc.name, target, got, rc.Rule, tc.culprit, rc.Summary)
			}
			for _, term := range tc.terms {
				if !strings.Contains(rc.Summary, term) {
					t.Errorf("%s, target %v: summary lacks %q: %s", tc.name, target, term, rc.Summary)
				}
			}
		}
	}
}
