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
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/tools"
)

// A finding's summary is what a user reads to decide what to change. Every object it names
// as "Kind name" (the holder of the setting at fault, the place to fix) must therefore be in
// the finding's affected objects, whichever rule wrote the sentence: this file enforces that
// once, in env.find, instead of in each rule.

// summaryKinds are the kinds a summary may name as a place to look or to fix. Pods and
// ReplicaSets are left out: they are re-created from the objects above them.
var summaryKinds = []string{
	"ConfigMap", "Secret", "Service", "EndpointSlice", "Endpoints", "Ingress", "IngressClass", "NetworkPolicy",
	"Deployment", "StatefulSet", "DaemonSet", "CronJob", "Job", "HorizontalPodAutoscaler", "PodDisruptionBudget",
	"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "ServiceAccount", "Role", "RoleBinding",
	"ClusterRole", "ClusterRoleBinding", "ResourceQuota", "LimitRange", "PriorityClass", "RuntimeClass",
	"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
}

// noteKnown remembers an object the task has read, so a summary's mention of it can be
// trusted as a reference (and a word after a kind, "Secret key", cannot).
func (e *env) noteKnown(kind string, o runtime.Object) {
	m, err := meta.Accessor(o)
	if err != nil || m.GetName() == "" {
		return
	}
	if e.known == nil {
		e.known = map[string]bool{}
	}
	if len(e.known) < 5000 {
		e.known[strings.ToLower(kind)+"/"+m.GetName()] = true
	}
}

// noteKnownList remembers every object of a list.
func noteKnownList[T runtime.Object](e *env, kind string, l []T) {
	for _, o := range l {
		e.noteKnown(kind, o)
	}
}

// summaryRefs returns the objects text names as "Kind name", "Kind/name" or "Kind \"name\""
// (the kind spelt as Kubernetes spells it), in the order the text names them, for which ok
// holds.
func summaryRefs(text string, ok func(kind, name string) bool) []ObjectRef {
	type hit struct {
		at  int
		ref ObjectRef
	}
	var hits []hit
	for _, kind := range summaryKinds {
		for i := 0; i < len(text); {
			j := strings.Index(text[i:], kind)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(kind)
			if at > 0 && (isNameByte(text[at-1]) || text[at-1] >= 'A' && text[at-1] <= 'Z') {
				continue
			}
			name := nameAfterKind(text[i:])
			if name == "" || !ok(kind, name) {
				continue
			}
			hits = append(hits, hit{at, ObjectRef{Kind: kind, Name: name}})
		}
	}
	// In text order: the order the summary walks the user through the objects.
	for a := 1; a < len(hits); a++ {
		for b := a; b > 0 && hits[b].at < hits[b-1].at; b-- {
			hits[b], hits[b-1] = hits[b-1], hits[b]
		}
	}
	var out []ObjectRef
	for _, h := range hits {
		out = mergeRefs(out, []ObjectRef{h.ref})
	}
	return out
}

// nameAfterKind reads the object name that follows a kind: " name", "/name", " \"name\"",
// " 'name'"; a name is a DNS subdomain (a trailing dot ends the sentence).
func nameAfterKind(s string) string {
	switch {
	case strings.HasPrefix(s, " \""), strings.HasPrefix(s, " '"):
		s = s[2:]
	case strings.HasPrefix(s, " "), strings.HasPrefix(s, "/"):
		s = s[1:]
	default:
		return ""
	}
	n := 0
	for n < len(s) && n < 253 && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= '0' && s[n] <= '9' || s[n] == '-' || s[n] == '.') {
		n++
	}
	if n < len(s) && (s[n] >= 'A' && s[n] <= 'Z' || s[n] == '_') {
		return "" // a word of another spelling ("Secret Key", "Service_NAME"), not a name
	}
	name := strings.TrimRight(s[:n], ".-")
	if name == "" || name[0] == '-' || name[0] == '.' {
		return ""
	}
	return name
}

// withSummaryRefs puts the objects f's summary names, that the task has read or the finding
// already references, into f.Affected, ahead of the rest: the rule wrote them into the
// sentence as where the cause sits or where the fix goes.
func (e *env) withSummaryRefs(f Finding) Finding {
	refs := append([]ObjectRef{f.Object, f.Culprit}, append(f.Affected, f.Follow...)...)
	has := map[string]bool{}
	for _, r := range refs {
		has[strings.ToLower(r.Kind)+"/"+r.Name] = true
	}
	var named []ObjectRef
	lookups := 0
	for _, r := range summaryRefs(f.Summary, func(kind, name string) bool {
		k := strings.ToLower(kind) + "/" + name
		if has[k] || e.known[k] {
			return true
		}
		// An object the sentence names from a reference (a volume's ConfigMap, the owner of
		// pods) that the task did not read: one cached GET says whether it is real.
		if _, err := tools.ResolveKind(kind); err != nil || lookups >= 4 || e.budget() != nil {
			return false
		}
		lookups++
		_, err := e.get(context.Background(), kind, name)
		return err == nil
	}) {
		if isNamespaced(r.Kind) {
			r.Namespace = e.s.Namespace
		}
		in := false
		for _, x := range append([]ObjectRef{f.Object, f.Culprit}, f.Affected...) {
			in = in || x.Kind == r.Kind && x.Name == r.Name
		}
		if !in {
			named = append(named, r)
		}
	}
	if len(named) > 0 {
		f.Affected = append(named, f.Affected...)
	}
	return f
}
