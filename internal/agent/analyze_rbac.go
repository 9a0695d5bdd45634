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

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Questions outside the failure catalogue: "why can't service account X list pods?" is
// answered by the authorizer (a SubjectAccessReview) and by the RBAC objects that almost
// grant the permission (wrong verb, resource, API group, subject name, kind or namespace),
// which name the object to change.

func init() { analyzers["rbac"] = analyzeRBAC }

// accessAsk is one permission in question.
type accessAsk struct {
	SA, User, Verb, Group, Resource string
	// Name is the object asked for, when the denial quoted one (a Role's resourceNames).
	Name string
	// Team is a group subject ("group developers can't create jobs").
	Team string
}

func (a accessAsk) subject() string {
	switch {
	case a.SA != "":
		return "ServiceAccount " + a.SA
	case a.Team != "":
		return "group " + a.Team
	}
	return "user " + a.User
}

func (a accessAsk) what() string {
	r := a.Resource
	if a.Group != "" {
		r += "." + a.Group
	}
	return a.Verb + " " + r
}

var (
	askSA       = regexp.MustCompile(`(?i)(?:service ?account|\bsa)[ :/"'\x60]+([a-z0-9][a-z0-9.-]{0,252})`)
	askSAUser   = regexp.MustCompile(`system:serviceaccount:([a-z0-9-]{1,63}):([a-z0-9][a-z0-9.-]{0,252})`)
	askVerbRes  = regexp.MustCompile(`(?i)\b(get|list|watch|create|update|patch|delete|deletecollection|read|write|edit|see|access|view|fetch|modify|remove|getting|listing|watching|creating|updating|patching|deleting|reading|writing|editing|seeing|accessing|viewing|fetching|modifying|removing)(?:s|es)?\s+(?:the\s+|any\s+|all\s+|other\s+)?([a-z][a-z0-9./-]{1,80})`)
	askAuthz    = regexp.MustCompile(`(?i)forbidden|denied|not allowed|permission|rbac|\b403\b`)
	askWord     = regexp.MustCompile(`(?i)\b[a-z][a-z0-9.-]{2,80}\b`)
	askSABefore = regexp.MustCompile(`(?i)\b([a-z0-9][a-z0-9.-]{0,252})[ "'\x60]+(?:service ?account|sa\b)`)
	askDenied   = regexp.MustCompile(`(?i)can'?not|can't|cannot|forbidden|denied|not allowed|unable|permission|rbac|why can|\b403\b|auth can-i`)
	// askMultiword joins resource names people write as words ("config maps") into the plural
	// the API uses.
	askMultiword = strings.NewReplacer("config maps", "configmaps", "config map", "configmap", "Config Maps", "configmaps", "ConfigMaps", "configmaps",
		"persistent volume claims", "persistentvolumeclaims", "persistent volume claim", "persistentvolumeclaim",
		"persistent volumes", "persistentvolumes", "persistent volume", "persistentvolume", "storage classes", "storageclasses",
		"cluster role bindings", "clusterrolebindings", "cluster roles", "clusterroles", "custom resource definitions", "customresourcedefinitions",
		"priority classes", "priorityclasses", "pod disruption budgets", "poddisruptionbudgets", "horizontal pod autoscalers", "horizontalpodautoscalers",
		"stateful sets", "statefulsets", "daemon sets", "daemonsets", "replica sets", "replicasets", "cron jobs", "cronjobs",
		"role bindings", "rolebindings", "network policies", "networkpolicies", "endpoint slices", "endpointslices")
	verbSynonym = map[string]string{"read": "get", "see": "list", "access": "get", "write": "update", "edit": "update",
		"getting": "get", "listing": "list", "watching": "watch", "creating": "create", "updating": "update", "patching": "patch",
		"deleting": "delete", "reading": "get", "writing": "update", "editing": "update", "seeing": "list", "accessing": "get"}
)

// parseAccessQuestion reads a permission question from the problem text. The subject may be
// missing (the analyzer then looks for a ServiceAccount the text names); the resource must be
// one Kubernetes has, so "pods cannot get scheduled" is not a permission question.
func parseAccessQuestion(problem string) (accessAsk, bool) {
	p := subresourcePhrases(askMultiword.Replace(clipString(problem, 2000)))
	if !askDenied.MatchString(p) {
		return accessAsk{}, false
	}
	// An API denial quoted in full says everything.
	if c := ExtractClues([]string{p}); c.Forbidden != nil && (c.Forbidden.ServiceAccount != "" || c.Forbidden.User != "") {
		d := c.Forbidden
		return accessAsk{SA: d.ServiceAccount, User: d.User, Verb: d.Verb, Resource: d.Resource, Group: d.Group}, true
	}
	var a accessAsk
	a.User, a.Team = humanSubject(p)
	switch m := askSAUser.FindStringSubmatch(p); {
	case m != nil:
		a.SA, a.User, a.Team = m[2], "", ""
	case a.User != "" || a.Team != "":
	default:
		if m := askSA.FindStringSubmatch(p); m != nil && !notAName[strings.ToLower(m[1])] {
			a.SA = strings.ToLower(strings.Trim(m[1], ".-"))
		} else if m := askSABefore.FindStringSubmatch(p); m != nil && !notAName[strings.ToLower(m[1])] {
			a.SA = strings.ToLower(strings.Trim(m[1], ".-"))
		}
	}
	for _, m := range askVerbRes.FindAllStringSubmatch(p, 5) {
		verb := strings.ToLower(m[1])
		if v, ok := verbSynonym[verb]; ok {
			verb = v
		}
		res := strings.ToLower(strings.Trim(m[2], ".-?!,/"))
		if res == "" || res == a.SA || !knownResource(res) && !kindPlural(strings.Trim(m[2], ".-?!,/")) {
			continue
		}
		a.Verb = verb
		a.Resource, a.Group = normalizeResource(res)
		break
	}
	if a.Verb == "" && a.SA != "" && askAuthz.MatchString(p) {
		// No verb, but an account named and refused by the authorizer on a resource ("cannot"
		// alone is not enough: pods of an account that cannot start are no RBAC question).
		rest := askSA.ReplaceAllString(askSABefore.ReplaceAllString(p, " "), " ")
		for _, w := range askWord.FindAllString(rest, 40) {
			w = strings.ToLower(strings.Trim(w, ".-"))
			if w != a.SA && strings.HasSuffix(w, "s") && knownResource(w) {
				a.Resource, a.Group = normalizeResource(w)
				return a, true
			}
		}
	}
	if a.Verb == "" {
		return accessAsk{}, false
	}
	// The resource is a real one and the text says something is refused: a permission
	// question, even when it names the account in passing ("why can't vault-agent read
	// secrets?"); the analyzer finds the account among the namespace's.
	return a, true
}

// knownResource reports whether r names a Kubernetes resource (kind, plural, short name, or
// plural.group of a custom resource).
func knownResource(r string) bool {
	if base, sub, ok := strings.Cut(r, "/"); ok {
		return knownResource(base) && sub != "" && !strings.Contains(sub, "/")
	}
	if _, err := tools.ResolveKind(r); err == nil {
		return true
	}
	if _, ok := knownGroups[r]; ok {
		return true
	}
	switch strings.TrimSuffix(r, "s") {
	case "secret", "configmap", "pod", "service", "event", "namespace", "node", "serviceaccount", "endpoint", "lease",
		"persistentvolumeclaim", "deployment", "statefulset", "daemonset", "job", "cronjob", "ingress", "role", "rolebinding":
		return true
	}
	return strings.Count(r, ".") >= 2 // widgets.example.com
}

// normalizeResource turns "pod", "Pods" or "deployments.apps" into (plural, group).
func normalizeResource(r string) (string, string) {
	// A subresource keeps its name: "pods/log", "deployments/scale".
	sub := ""
	if base, s, ok := strings.Cut(r, "/"); ok {
		r, sub = base, "/"+s
	}
	group := ""
	if i := strings.IndexByte(r, '.'); i > 0 {
		r, group = r[:i], r[i+1:]
	}
	if k, err := tools.ResolveKind(r); err == nil {
		r = k.Plural
	} else if !strings.HasSuffix(r, "s") {
		r += "s"
	}
	if group == "" {
		group = knownGroups[r]
	}
	return r + sub, group
}

func analyzeRBAC(ctx context.Context, e *env, _ ObjectRef) error {
	a := accessAsk{SA: e.task.Args["serviceAccount"], User: e.task.Args["user"], Team: e.task.Args["subjectGroup"], Verb: e.task.Args["verb"], Resource: e.task.Args["resource"], Group: e.task.Args["group"]}
	if a.SA == "" && (a.User != "" || a.Team != "") {
		// A person or a group: no object of the namespace stands for it.
		return e.judgeHuman(ctx, a)
	}
	if a.SA != "" {
		if _, err := e.get(ctx, "ServiceAccount", a.SA); tools.IsNotFound(err) {
			if named := e.serviceAccountNamed(ctx); named != "" {
				a.SA = named // the text's wording misled the parser; the namespace knows better
			}
		}
	}
	if a.SA == "" {
		a.SA = e.serviceAccountNamed(ctx)
	}
	if a.SA == "" {
		// No subject to evaluate: look at the namespace instead.
		e.followUp(ObjectRef{Kind: "Namespace", Name: e.s.Namespace})
		return nil
	}
	e.examine(e.ref("ServiceAccount", a.SA))
	if a.Verb == "" {
		a.Verb = e.deniedVerb(ctx, a)
	}
	v := e.judgeAccess(ctx, a)
	if v == nil {
		return nil
	}
	sref := e.ref("ServiceAccount", a.SA)
	e.find(Finding{Rule: v.rule, Confidence: v.conf, Object: sref, Culprit: v.culprit, Affected: v.affected, Summary: v.summary, Evidence: v.evIDs, Facts: v.facts})
	return nil
}

// serviceAccountNamed finds the ServiceAccount of the namespace the problem text names (the
// longest name that appears as a word).
func (e *env) serviceAccountNamed(ctx context.Context) string {
	sas, _, err := listAs[*corev1.ServiceAccount](ctx, e, "ServiceAccount", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return ""
	}
	words := problemWords(e.s.Problem)
	best := ""
	for _, sa := range sas {
		if words[sa.Name] && len(sa.Name) > len(best) {
			best = sa.Name
		}
	}
	return best
}

// rbacDenied follows a Kubernetes API denial quoted in a container's text.
func (pc *podCheck) rbacDenied(ctx context.Context, d *depCheck) bool {
	den := *d.clue.Forbidden
	sa := den.ServiceAccount
	if sa == "" && den.User == "" {
		// The message leaves out who asked: the pod's own ServiceAccount did.
		sa = orDefault(pc.pod.Spec.ServiceAccountName, "default")
	}
	if den.ServiceAccount != "" && den.ServiceAccount == orDefault(pc.pod.Spec.ServiceAccountName, "default") &&
		den.SANamespace == den.Namespace && den.Namespace != pc.pod.Namespace {
		// The pod's API token is its own ServiceAccount's: a denial that names that account
		// in another namespace, and asks for that namespace's objects, was written where the
		// pod ran under another namespace name (logs carried over from another environment,
		// a namespace recreated under a new name). It is the pod's own access to its own
		// namespace; a request across namespaces (the account's namespace differs from the
		// objects') is still someone else's question.
		den.Namespace = pc.pod.Namespace
	}
	if sa == "" || den.Namespace != "" && den.Namespace != pc.e.s.Namespace {
		return false
	}
	ask := accessAsk{SA: sa, Verb: den.Verb, Resource: den.Resource, Group: den.Group, Name: den.Name}
	v := pc.e.judgeAccess(ctx, ask)
	if v == nil || den.Inferred && !v.confirmed {
		return false
	}
	pc.runsAsDefault(ctx, ask, v)
	d.evIDs = append(d.evIDs, v.evIDs...)
	d.report(ctx, v.rule, v.conf, v.culprit, d.opening()+": "+v.summary, nil, v.affected, v.facts)
	return true
}

// accessVerdict is what the RBAC objects say about a denied permission.
type accessVerdict struct {
	rule     string
	conf     int
	culprit  ObjectRef
	affected []ObjectRef
	summary  string
	facts    map[string]string
	evIDs    []string
	// confirmed is a denial the SubjectAccessReview gave, not one assumed when it failed.
	confirmed bool
	// view is the RBAC read that explained the denial, for checks after it (nil if unread).
	view *tools.RBACView
}

// judgeAccess asks the authorizer and, when the permission is denied, finds the RBAC object
// that almost grants it.
func (e *env) judgeAccess(ctx context.Context, a accessAsk) *accessVerdict {
	ns := e.s.Namespace
	if a.SA == "" || a.Verb == "" || a.Resource == "" {
		return nil
	}
	sref := e.ref("ServiceAccount", a.SA)
	user, groups := tools.ServiceAccountUser(ns, a.SA)
	facts := map[string]string{"sa": a.SA, "verb": a.Verb, "resource": a.Resource, "group": a.Group, "user": user,
		"subject": a.subject(), "subjectName": a.SA, "bindFlag": "--serviceaccount=" + ns + ":" + a.SA, "resourceSlug": strings.ReplaceAll(a.Resource, "/", "-")}
	v := &accessVerdict{rule: "rbac-forbidden", facts: facts}
	if err := e.budget(); err != nil {
		return nil
	}
	if a.Group == "" && !knownCore(a.Resource) {
		// A custom resource named by its kind ("Certificates"): the rules that mention it
		// give its API group.
		if view, err := e.c.RBAC(ctx); err == nil {
			a.Group = groupInRules(view, a.Resource)
			facts["group"] = a.Group
		}
	}
	ans, err := e.c.Review(ctx, tools.AccessQuestion{User: user, Groups: groups, Verb: a.Verb, Group: a.Group, Resource: a.Resource, Name: a.Name, ClusterScoped: clusterScoped(a.Resource)})
	_ = e.record("k8s_access_review", user+" "+a.what(), err)
	verdict := "unknown (the review failed: " + errString(err) + ")"
	if err == nil {
		verdict = "denied"
		if ans.Allowed {
			verdict = "allowed"
		}
		if ans.Reason != "" {
			verdict += " (" + strings.TrimSpace(ans.Reason) + ")"
		}
	}
	v.evIDs = append(v.evIDs, e.evidence(fmt.Sprintf("SubjectAccessReview: may %s %s in %s? %s", user, a.what(), ns, verdict), Source{Kind: SourceQuery, Tool: "k8s_access_review", Query: user + " " + a.what()}, ""))
	_, saErr := e.get(ctx, "ServiceAccount", a.SA)
	v.confirmed = err == nil && !ans.Allowed
	if err == nil && ans.Allowed {
		v.rule, v.conf, v.culprit = "rbac-allowed", 60, sref
		v.affected = []ObjectRef{sref}
		v.summary = fmt.Sprintf("RBAC allows ServiceAccount %s to %s in %s now%s; a denial seen earlier came from another namespace, another identity, or was fixed since.", a.SA, a.what(), ns, orDefault(" ("+strings.TrimSpace(ans.Reason)+")", ""))
		return v
	}
	if err := e.budget(); err != nil {
		return nil
	}
	view, lerr := e.c.RBAC(ctx)
	_ = e.record("k8s_list", "roles, rolebindings, clusterrolebindings, clusterroles", lerr)
	if lerr != nil {
		v.culprit, v.conf = sref, 55
		v.affected = []ObjectRef{sref}
		v.summary = fmt.Sprintf("ServiceAccount %s may not %s in %s (%s); the RBAC objects could not be read: %s", a.SA, a.what(), ns, verdict, lerr)
		return v
	}
	v.view = &view
	m := nearMiss(view, a, ns)
	prefix := fmt.Sprintf("RBAC denies it: ServiceAccount %s may not %s in namespace %s (SubjectAccessReview: %s). ", a.SA, a.what(), ns, verdict)
	if tools.IsNotFound(saErr) {
		prefix += fmt.Sprintf("ServiceAccount %s does not even exist. ", a.SA)
	}
	v.culprit, v.summary = m.culprit, prefix+m.why
	if v.culprit.IsZero() {
		v.culprit = sref
	}
	v.affected = mergeRefs([]ObjectRef{v.culprit}, append(m.related, sref))
	facts["sourceResource"] = kubectlResource(v.culprit)
	facts["role"] = orDefault(m.role, "<role>")
	for _, r := range m.related {
		v.evIDs = append(v.evIDs, e.objEvidence(r, r.Kind+" "+r.Name+" is part of the near miss"))
	}
	return v
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return clipString(err.Error(), 200)
}

// miss is the RBAC object closest to granting the permission.
type miss struct {
	score   int
	culprit ObjectRef
	related []ObjectRef
	role    string
	why     string
}

// nearMiss scores every binding and rule against the question and keeps the best.
func nearMiss(v tools.RBACView, a accessAsk, ns string) miss {
	best := miss{why: fmt.Sprintf("No Role, RoleBinding or ClusterRoleBinding mentions it: create a Role that allows %s and bind it to the ServiceAccount.", a.what())}
	if clusterScoped(a.Resource) {
		best.why = fmt.Sprintf("No ClusterRoleBinding grants it, and %s are cluster-scoped (no Role or RoleBinding can): create a ClusterRole that allows %s and a ClusterRoleBinding to the ServiceAccount.", a.Resource, a.what())
	}
	consider := func(m miss) {
		if m.score > best.score {
			best = m
		}
	}
	rulesOf := func(kind, name string) ([]rbacv1.PolicyRule, bool) {
		if kind == "ClusterRole" {
			if cr := v.ClusterRoles[name]; cr != nil {
				return cr.Rules, true
			}
			return nil, false
		}
		for _, r := range v.Roles {
			if r.Name == name {
				return r.Rules, true
			}
		}
		return nil, false
	}
	type binding struct {
		ref      ObjectRef
		subjects []rbacv1.Subject
		roleRef  rbacv1.RoleRef
		bindNS   string
	}
	var bs []binding
	for _, b := range v.RoleBindings {
		bs = append(bs, binding{ObjectRef{Kind: "RoleBinding", Namespace: ns, Name: b.Name}, b.Subjects, b.RoleRef, ns})
	}
	for _, b := range v.ClusterRoleBindings {
		bs = append(bs, binding{ObjectRef{Kind: "ClusterRoleBinding", Name: b.Name}, b.Subjects, b.RoleRef, ""})
	}
	roleRef := func(b binding) ObjectRef {
		if b.roleRef.Kind == "ClusterRole" {
			return ObjectRef{Kind: "ClusterRole", Name: b.roleRef.Name}
		}
		return ObjectRef{Kind: "Role", Namespace: ns, Name: b.roleRef.Name}
	}
	// A binding of this namespace's account: then a binding of a same-named account of
	// another namespace is that namespace's own install, not a near miss of ours.
	ours := accountBound(v, a.SA, ns)
	bound := map[string]bool{}
	for _, b := range bs {
		exact, near, broad, otherNS := false, "", false, false
		for _, s := range b.subjects {
			sns := orDefault(s.Namespace, b.bindNS)
			switch {
			case s.Kind == "ServiceAccount" && s.Name == a.SA && sns == ns:
				exact = true
			case s.Kind == "Group" && (s.Name == "system:serviceaccounts" || s.Name == "system:serviceaccounts:"+ns || s.Name == "system:authenticated"):
				// Every account gets these (system:basic-user, discovery): they bind the subject
				// but are rarely where a missing permission belongs.
				broad = true
			case s.Kind == "ServiceAccount" && s.Name == a.SA:
				near, otherNS = fmt.Sprintf("binds ServiceAccount %s of namespace %s, not of %s", s.Name, orDefault(sns, "<none>"), ns), true
			case s.Kind == "ServiceAccount" && sns == ns && editDistance(s.Name, a.SA, 3) <= 2:
				near = fmt.Sprintf("binds ServiceAccount %q, not %q", s.Name, a.SA)
			case s.Kind == "User" && (s.Name == a.SA || strings.HasSuffix(s.Name, ":"+a.SA)):
				near = fmt.Sprintf("binds %s as a User (kind User, name %q) instead of kind ServiceAccount", a.SA, s.Name)
			}
		}
		rr := roleRef(b)
		rules, ok := rulesOf(rr.Kind, rr.Name)
		if broad && !exact {
			if ok {
				if s, why := ruleMiss(rules, a); s > 0 {
					consider(miss{score: 10 + s/3, culprit: rr, related: []ObjectRef{b.ref}, role: rr.Name,
						why: fmt.Sprintf("only %s %s binds it (through a group every account belongs to), to %s %s, whose rules %s.", b.ref.Kind, b.ref.Name, rr.Kind, rr.Name, why)})
				}
			}
			continue
		}
		if exact {
			bound[rr.Key()] = true
			if !ok {
				consider(miss{score: 90, culprit: b.ref, related: []ObjectRef{rr}, role: rr.Name,
					why: fmt.Sprintf("%s %s binds it to %s %s, which does not exist: create the role or fix roleRef (roleRef is immutable: delete and recreate the binding).", b.ref.Kind, b.ref.Name, rr.Kind, rr.Name)})
				continue
			}
			if b.bindNS != "" && clusterScoped(a.Resource) && rulesAllow(rules, a) {
				// The role allows it, but a RoleBinding grants only inside its namespace.
				consider(miss{score: 92, culprit: b.ref, related: []ObjectRef{rr}, role: rr.Name,
					why: fmt.Sprintf("%s %s binds it to %s %s, which allows %s, but %s are cluster-scoped and a RoleBinding grants only inside namespace %s: bind %s with a ClusterRoleBinding instead.", b.ref.Kind, b.ref.Name, rr.Kind, rr.Name, a.what(), a.Resource, ns, rr.Name)})
				continue
			}
			if s, why := ruleMiss(rules, a); s > 0 {
				consider(miss{score: 50 + s, culprit: rr, related: []ObjectRef{b.ref}, role: rr.Name,
					why: fmt.Sprintf("%s %s binds it to %s %s, whose rules %s.", b.ref.Kind, b.ref.Name, rr.Kind, rr.Name, why)})
			}
			continue
		}
		if near != "" {
			s := 60
			switch {
			case otherNS && ours:
				s = 45 // below any miss of the binding that does bind our account
			case ok && rulesAllow(rules, a) && otherNS:
				// The same name in another namespace is often that namespace's own account
				// (external-dns, prometheus): a binding of ours that almost grants it is closer.
				s = 75
			case ok && rulesAllow(rules, a):
				s = 95 // the right permission, bound to the wrong subject
			}
			consider(miss{score: s, culprit: b.ref, related: []ObjectRef{rr}, role: rr.Name,
				why: fmt.Sprintf("%s %s (role %s %s) %s; fix its subjects.", b.ref.Kind, b.ref.Name, rr.Kind, rr.Name, near)})
		}
	}
	// A Role that would allow it, bound to nobody asking.
	for _, r := range v.Roles {
		ref := ObjectRef{Kind: "Role", Namespace: ns, Name: r.Name}
		if !bound[ref.Key()] && rulesAllow(r.Rules, a) && !clusterScoped(a.Resource) {
			consider(miss{score: 40, culprit: ObjectRef{Kind: "ServiceAccount", Namespace: ns, Name: a.SA}, related: []ObjectRef{ref}, role: r.Name,
				why: fmt.Sprintf("Role %s allows %s, but no RoleBinding binds it to the ServiceAccount: create one (kubectl create rolebinding --role=%s --serviceaccount=%s:%s).", r.Name, a.what(), r.Name, ns, a.SA)})
		}
	}
	return best
}
