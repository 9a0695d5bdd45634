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
)

// A pod whose template names no serviceAccountName runs as the namespace's "default"
// account. When the permission it is denied is granted, in this namespace, to another
// ServiceAccount made for the job (a RoleBinding of a Role that allows exactly that), the
// grant is fine and the pod runs under the wrong identity: the fix is serviceAccountName in
// the workload's pod template, not a new binding for "default" (which would hand the
// permission to every pod of the namespace).

// runsAsDefault rewrites v when the denied account is the implicit "default" and another
// ServiceAccount of the namespace holds the grant.
func (pc *podCheck) runsAsDefault(ctx context.Context, a accessAsk, v *accessVerdict) {
	if a.SA != "default" || pc.pod.Spec.ServiceAccountName != "" && pc.pod.Spec.ServiceAccountName != "default" || v.rule != "rbac-forbidden" {
		return
	}
	if v.view == nil {
		return
	}
	view := *v.view
	if g := v.facts["group"]; g != "" {
		a.Group = g // judgeAccess may have found a custom resource's group
	}
	ns := pc.e.s.Namespace
	holders := map[string]string{} // ServiceAccount → the RoleBinding granting it
	for _, b := range view.RoleBindings {
		allowed := false
		if cr := view.ClusterRoles[b.RoleRef.Name]; b.RoleRef.Kind == "ClusterRole" && cr != nil {
			allowed = rulesAllow(cr.Rules, a)
		}
		for _, r := range view.Roles {
			if b.RoleRef.Kind == "Role" && r.Name == b.RoleRef.Name && rulesAllow(r.Rules, a) {
				allowed = true
			}
		}
		if !allowed {
			continue
		}
		for _, s := range b.Subjects {
			if s.Kind == "ServiceAccount" && s.Name != "default" && orDefault(s.Namespace, ns) == ns {
				holders[s.Name] = b.Name
			}
		}
	}
	if len(holders) != 1 {
		return // none, or several: which identity the pod was meant to have is not clear
	}
	var name string
	for n := range holders {
		name = n
	}
	if _, err := pc.e.get(ctx, "ServiceAccount", name); err != nil {
		return
	}
	wl := pc.workloadOrPod(ctx)
	field := "spec.template.spec.serviceAccountName"
	switch wl.Kind {
	case "CronJob":
		field = "spec.jobTemplate.spec.template.spec.serviceAccountName"
	case "Pod":
		field = "spec.serviceAccountName"
	}
	sref, bref := pc.e.ref("ServiceAccount", name), pc.e.ref("RoleBinding", holders[name])
	v.culprit = wl
	v.affected = mergeRefs([]ObjectRef{wl, sref, bref}, v.affected)
	v.summary = fmt.Sprintf("RBAC denies it: the pod runs as ServiceAccount default because %s %s sets no serviceAccountName, while RoleBinding %s grants %s to ServiceAccount %s. Set serviceAccountName: %s (%s) rather than binding the role to default, which every pod of the namespace uses.",
		wl.Kind, wl.Name, holders[name], a.what(), name, name, field)
	v.rule, v.conf = "serviceaccount-not-set", 0
	v.facts["sourceResource"] = kubectlResource(wl)
	v.facts["serviceAccount"] = name
	v.evIDs = append(v.evIDs, pc.e.objEvidence(bref, fmt.Sprintf("RoleBinding %s binds ServiceAccount %s to a role allowing %s", holders[name], name, a.what())))
}
