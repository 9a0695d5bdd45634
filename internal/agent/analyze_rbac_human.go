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
	"regexp"
	"strings"

	"github.com/kubage/kubage/internal/tools"
)

// Permission questions about people and teams ("user jane@example.com cannot delete
// configmaps", "group developers can't create jobs"): the authorizer is asked as that user
// or group, and the bindings that almost name it (a typo, another case, User for Group)
// are the near misses.

var (
	askUser  = regexp.MustCompile(`(?i)\buser\s+["'\x60]?([a-z0-9][a-z0-9@._+:-]{0,252})`)
	askGroup = regexp.MustCompile(`(?i)\b(?:group|team)\s+["'\x60]?([a-z0-9][a-z0-9@._:-]{0,252})`)
)

// humanSubject reads a user or a group the text names (never a ServiceAccount's user name,
// never an API group).
func humanSubject(p string) (user, group string) {
	if m := askUser.FindStringSubmatch(p); m != nil {
		u := strings.TrimRight(m[1], ".,:;")
		if !strings.HasPrefix(strings.ToLower(u), "system:serviceaccount") && !notAName[strings.ToLower(u)] {
			user = u
		}
	}
	for _, m := range askGroup.FindAllStringSubmatchIndex(p, 3) {
		before := strings.ToLower(p[max(0, m[0]-4):m[0]])
		g := strings.TrimRight(p[m[2]:m[3]], ".,:;")
		if strings.HasSuffix(before, "api ") || notAName[strings.ToLower(g)] {
			continue
		}
		group = g
		break
	}
	if user != "" {
		group = ""
	}
	return user, group
}

// judgeHuman asks the authorizer as the user or group and reports the nearest binding.
func (e *env) judgeHuman(ctx context.Context, a accessAsk) error {
	ns := e.s.Namespace
	if a.Verb == "" || a.Resource == "" || e.budget() != nil {
		return nil
	}
	kind, name, flag := "User", a.User, "--user="+a.User
	groups := []string{"system:authenticated"}
	if a.Team != "" {
		kind, name, flag = "Group", a.Team, "--group="+a.Team
		groups = append([]string{a.Team}, groups...)
	}
	sref := ObjectRef{Kind: kind, Name: name}
	facts := map[string]string{"sa": name, "verb": a.Verb, "resource": a.Resource, "group": a.Group, "user": a.User,
		"subject": a.subject(), "subjectName": strings.NewReplacer("@", "-", ".", "-", ":", "-").Replace(strings.ToLower(name)), "bindFlag": flag,
		"resourceSlug": strings.ReplaceAll(a.Resource, "/", "-")}
	q := tools.AccessQuestion{User: a.User, Groups: groups, Verb: a.Verb, Group: a.Group, Resource: a.Resource, ClusterScoped: clusterScoped(a.Resource)}
	ans, err := e.c.Review(ctx, q)
	_ = e.record("k8s_access_review", a.subject()+" "+a.what(), err)
	verdict := "unknown (the review failed: " + errString(err) + ")"
	if err == nil {
		verdict = map[bool]string{true: "allowed", false: "denied"}[ans.Allowed]
	}
	evs := []string{e.evidence(fmt.Sprintf("SubjectAccessReview: may %s %s in %s? %s", a.subject(), a.what(), ns, verdict), Source{Kind: SourceQuery, Tool: "k8s_access_review", Query: a.subject() + " " + a.what()}, "")}
	if err == nil && ans.Allowed {
		e.find(Finding{Rule: "rbac-allowed", Object: sref, Culprit: sref, Affected: []ObjectRef{sref}, Evidence: evs, Facts: facts,
			Summary: fmt.Sprintf("RBAC allows %s to %s in %s now; a denial seen earlier came from another namespace, another identity, or was fixed since.", a.subject(), a.what(), ns)})
		return nil
	}
	if e.budget() != nil {
		return nil
	}
	view, lerr := e.c.RBAC(ctx)
	_ = e.record("k8s_list", "roles, rolebindings, clusterrolebindings, clusterroles", lerr)
	if lerr != nil {
		return nil
	}
	m := humanMiss(view, a, kind, name, ns)
	if m.culprit.IsZero() {
		return nil // nothing names the subject: no object to point at
	}
	for _, r := range m.related {
		evs = append(evs, e.objEvidence(r, r.Kind+" "+r.Name+" is part of the near miss"))
	}
	facts["sourceResource"] = kubectlResource(m.culprit)
	facts["role"] = orDefault(m.role, "<role>")
	e.find(Finding{Rule: "rbac-forbidden", Object: m.culprit, Culprit: m.culprit, Affected: mergeRefs([]ObjectRef{m.culprit}, m.related), Evidence: evs, Facts: facts,
		Summary: fmt.Sprintf("RBAC denies it: %s may not %s in namespace %s (SubjectAccessReview: %s). %s", a.subject(), a.what(), ns, verdict, m.why)})
	return nil
}

// humanMiss finds the binding that names the user or group, or almost does.
func humanMiss(v tools.RBACView, a accessAsk, kind, name, ns string) miss {
	var best miss
	consider := func(m miss) {
		if m.score > best.score {
			best = m
		}
	}
	type binding struct {
		ref  ObjectRef
		role ObjectRef
		subs []string
	}
	var bs []binding
	for _, b := range v.RoleBindings {
		rr := ObjectRef{Kind: b.RoleRef.Kind, Name: b.RoleRef.Name}
		if rr.Kind == "Role" {
			rr.Namespace = ns
		}
		var subs []string
		for _, s := range b.Subjects {
			subs = append(subs, s.Kind+"\x00"+s.Name)
		}
		bs = append(bs, binding{ObjectRef{Kind: "RoleBinding", Namespace: ns, Name: b.Name}, rr, subs})
	}
	for _, b := range v.ClusterRoleBindings {
		var subs []string
		for _, s := range b.Subjects {
			subs = append(subs, s.Kind+"\x00"+s.Name)
		}
		bs = append(bs, binding{ObjectRef{Kind: "ClusterRoleBinding", Name: b.Name}, ObjectRef{Kind: "ClusterRole", Name: b.RoleRef.Name}, subs})
	}
	for _, b := range bs {
		rules, ok := rulesOfView(v, b.role)
		for _, sub := range b.subs {
			sk, sn, _ := strings.Cut(sub, "\x00")
			if strings.HasPrefix(sn, "system:") {
				continue
			}
			switch {
			case sk == kind && sn == name:
				if !ok {
					consider(miss{score: 90, culprit: b.ref, related: []ObjectRef{b.role}, role: b.role.Name,
						why: fmt.Sprintf("%s %s binds it to %s %s, which does not exist: create the role or fix roleRef (roleRef is immutable: delete and recreate the binding).", b.ref.Kind, b.ref.Name, b.role.Kind, b.role.Name)})
				} else if b.ref.Kind == "RoleBinding" && clusterScoped(a.Resource) && rulesAllow(rules, a) {
					consider(miss{score: 92, culprit: b.ref, related: []ObjectRef{b.role}, role: b.role.Name,
						why: fmt.Sprintf("%s %s binds it to %s %s, which allows %s, but %s are cluster-scoped and a RoleBinding grants only inside namespace %s: bind %s with a ClusterRoleBinding instead.", b.ref.Kind, b.ref.Name, b.role.Kind, b.role.Name, a.what(), a.Resource, ns, b.role.Name)})
				} else if s, why := ruleMiss(rules, a); s > 0 {
					consider(miss{score: 50 + s, culprit: b.role, related: []ObjectRef{b.ref}, role: b.role.Name,
						why: fmt.Sprintf("%s %s binds it to %s %s, whose rules %s.", b.ref.Kind, b.ref.Name, b.role.Kind, b.role.Name, why)})
				}
			case sn != name && (strings.EqualFold(sn, name) || editDistance(strings.ToLower(sn), strings.ToLower(name), 3) <= 2) && (sk == kind):
				s := 60
				if ok && rulesAllow(rules, a) {
					s = 95
				}
				consider(miss{score: s, culprit: b.ref, related: []ObjectRef{b.role}, role: b.role.Name,
					why: fmt.Sprintf("%s %s (role %s %s) binds %s %q, not %q (names are case-sensitive and exact); fix its subjects.", b.ref.Kind, b.ref.Name, b.role.Kind, b.role.Name, sk, sn, name)})
			case sn == name && sk != kind:
				s := 60
				if ok && rulesAllow(rules, a) {
					s = 95
				}
				consider(miss{score: s, culprit: b.ref, related: []ObjectRef{b.role}, role: b.role.Name,
					why: fmt.Sprintf("%s %s (role %s %s) binds %s as kind %s instead of kind %s; fix its subjects.", b.ref.Kind, b.ref.Name, b.role.Kind, b.role.Name, name, sk, kind)})
			}
		}
	}
	return best
}
