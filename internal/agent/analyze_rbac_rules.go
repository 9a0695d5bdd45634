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

package agent

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubage/kubage/internal/tools"
)

// How close a role's rules come to a permission.

// rulesAllow reports whether rules grant the permission.
func rulesAllow(rules []rbacv1.PolicyRule, a accessAsk) bool {
	for _, r := range rules {
		if has(r.Verbs, a.Verb) && has(r.Resources, a.Resource) && has(r.APIGroups, a.Group) && namesAllow(r, a) {
			return true
		}
	}
	return false
}

// ruleMiss scores how close a role comes to the permission and says what is off.
func ruleMiss(rules []rbacv1.PolicyRule, a accessAsk) (int, string) {
	best, why := 0, ""
	for i, r := range rules {
		if i >= 50 {
			break
		}
		verb, res, grp := has(r.Verbs, a.Verb), has(r.Resources, a.Resource), has(r.APIGroups, a.Group)
		var s int
		var w string
		switch {
		case verb && res && grp && !namesAllow(r, a):
			s, w = 35, fmt.Sprintf("grant %s on %s only for resourceNames %s, not %s", a.Verb, a.Resource, strings.Join(r.ResourceNames, ", "), orDefault(a.Name, "every object (list and watch cannot be limited by name)"))
		case verb && res && grp:
			return 0, "" // allowed after all (an aggregated or cached denial)
		case res && grp:
			s, w = 30, fmt.Sprintf("grant %s on %s but not %s", strings.Join(r.Verbs, ","), a.Resource, a.Verb)
		case verb && grp:
			s, w = 25, fmt.Sprintf("allow %s on %s but not on %s", a.Verb, strings.Join(r.Resources, ","), a.Resource)
		case verb && res:
			s, w = 28, fmt.Sprintf("allow %s %s in API group(s) %q, but %s are in group %q", a.Verb, a.Resource, strings.Join(r.APIGroups, ","), a.Resource, a.Group)
		case res:
			s, w = 15, fmt.Sprintf("grant only %s on %s", strings.Join(r.Verbs, ","), a.Resource)
		default:
			continue
		}
		if s > best {
			best, why = s, w
		}
	}
	if best == 0 {
		return 10, fmt.Sprintf("grant nothing close to %s", a.what())
	}
	return best, why + ": add the missing part to the rule"
}

// has reports whether a rule list covers want ("*" covers everything).
func has(l []string, want string) bool {
	for _, x := range l {
		if x == want || x == "*" {
			return true
		}
	}
	return false
}

// rulesOfView returns the rules of the Role or ClusterRole ref in the view, and whether it exists.
func rulesOfView(v tools.RBACView, ref ObjectRef) ([]rbacv1.PolicyRule, bool) {
	if ref.Kind == "ClusterRole" {
		if cr := v.ClusterRoles[ref.Name]; cr != nil {
			return cr.Rules, true
		}
		return nil, false
	}
	for _, r := range v.Roles {
		if r.Name == ref.Name {
			return r.Rules, true
		}
	}
	return nil, false
}

// namesAllow reports whether a rule's resourceNames (if any) cover the object asked for. A
// rule limited by name never grants a request without one (list, watch, create).
func namesAllow(r rbacv1.PolicyRule, a accessAsk) bool {
	return len(r.ResourceNames) == 0 || a.Name != "" && has(r.ResourceNames, a.Name)
}

// accountBound reports whether a RoleBinding of namespace ns or a ClusterRoleBinding binds
// ServiceAccount sa of ns.
func accountBound(v tools.RBACView, sa, ns string) bool {
	for _, b := range v.RoleBindings {
		for _, s := range b.Subjects {
			if s.Kind == "ServiceAccount" && s.Name == sa && orDefault(s.Namespace, ns) == ns {
				return true
			}
		}
	}
	for _, b := range v.ClusterRoleBindings {
		for _, s := range b.Subjects {
			if s.Kind == "ServiceAccount" && s.Name == sa && s.Namespace == ns {
				return true
			}
		}
	}
	return false
}
