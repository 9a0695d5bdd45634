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
	"context"
	"fmt"
	"strings"
)

// scanMaxBindingFindings bounds the RoleBindings reported per scan.
const scanMaxBindingFindings = 3

// scanRoleBindings reports RoleBindings whose roleRef names a Role or ClusterRole that does
// not exist: the binding grants nothing. RBAC is read (four calls, ClusterRoleBindings
// included) only when the problem asks about access or nothing else in the namespace fails.
func (e *env) scanRoleBindings(ctx context.Context, quiet bool) {
	if !quiet && !askDenied.MatchString(clipString(e.s.Problem, 2000)) || e.budget() != nil {
		return
	}
	v, err := e.c.RBAC(ctx)
	if e.record("k8s_rbac", "roles and bindings in "+e.s.Namespace, err) != nil {
		return // RBAC not readable: nothing can be concluded
	}
	roles := map[string]bool{}
	for _, r := range v.Roles {
		roles[r.Name] = true
	}
	n := 0
	for _, b := range v.RoleBindings {
		if n >= scanMaxBindingFindings {
			break
		}
		name := b.RoleRef.Name
		switch b.RoleRef.Kind {
		case "Role":
			if roles[name] {
				continue
			}
		case "ClusterRole":
			if v.ClusterRoles[name] != nil {
				continue
			}
		default:
			continue
		}
		n++
		bref := e.ref("RoleBinding", b.Name)
		culprit := e.ref(b.RoleRef.Kind, name)
		affected := []ObjectRef{bref}
		var subjects []string
		for _, s := range b.Subjects {
			subjects = append(subjects, s.Kind+" "+s.Name)
			if s.Kind == "ServiceAccount" && (s.Namespace == "" || s.Namespace == e.s.Namespace) && len(affected) < 5 {
				affected = append(affected, e.ref("ServiceAccount", s.Name))
			}
		}
		who := orDefault(strings.Join(clipList(subjects, 5), ", "), "no subject")
		summary := fmt.Sprintf("RoleBinding %s binds %s to %s %s, which does not exist, so the binding grants nothing and %s cannot do what it was meant to allow.",
			b.Name, who, b.RoleRef.Kind, name, who)
		ev := e.evidence(summary, Source{Kind: SourceObject, Object: &bref, Tool: "k8s_rbac"}, "")
		e.find(Finding{Rule: "rolebinding-role-missing", Object: bref, Culprit: culprit, Affected: affected, Evidence: []string{ev}, Summary: summary,
			Facts: map[string]string{"binding": b.Name, "roleKind": b.RoleRef.Kind, "roleResource": strings.ToLower(b.RoleRef.Kind), "subjects": who, "resource": kubectlResource(bref)}})
	}
}
