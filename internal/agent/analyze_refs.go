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
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/tools"
)

// The namespace scan's reference checks: every name a pod template uses to point at another
// object (ConfigMaps, Secrets and their keys, claims, the ServiceAccount, pull secrets, a
// StatefulSet's claim-template StorageClasses) is resolved against what the namespace
// holds. A name that resolves to nothing is a finding on the referencing workload that blames
// the missing object, so both the object to create and the object to edit are named; the
// explain graph then orders it against the symptoms it causes.

// Bounds of the reference checks.
const (
	refMaxUsers    = 100 // referencing workloads examined per scan
	refMaxFindings = 8   // dangling references reported per scan
	refMaxGets     = 20  // names read one at a time per scan
)

// nsInventory is what the namespace scan already listed, so the reference checks reuse it.
type nsInventory struct {
	pods []*corev1.Pod
	deps []*appsv1.Deployment
	stss []*appsv1.StatefulSet
	dss  []*appsv1.DaemonSet
	jobs []*batchv1.Job
	cjs  []*batchv1.CronJob
	svcs []*corev1.Service
	pvcs []*corev1.PersistentVolumeClaim
}

// templateUser is a workload (or a bare pod) and the pod template it creates pods from.
type templateUser struct {
	ref  ObjectRef
	spec *corev1.PodSpec
	// troubled marks a workload short of ready pods: a dangling reference there is the
	// likely reason, elsewhere it is a latent fault (new pods will fail).
	troubled bool
	sts      *appsv1.StatefulSet
}

// templateUsers lists the pod templates of the namespace, a CronJob standing for its Jobs
// (a Job's template is immutable; the CronJob's is what a user edits).
func (e *env) templateUsers(inv *nsInventory) []*templateUser {
	var out []*templateUser
	byKey := map[string]*templateUser{}
	add := func(u *templateUser) {
		if len(out) >= refMaxUsers {
			return
		}
		if x, ok := byKey[u.ref.Key()]; ok {
			x.troubled = x.troubled || u.troubled
			return
		}
		byKey[u.ref.Key()] = u
		out = append(out, u)
	}
	for _, d := range inv.deps {
		add(&templateUser{ref: e.ref("Deployment", d.Name), spec: &d.Spec.Template.Spec,
			troubled: replicasOf(d.Spec.Replicas) > 0 && d.Status.ReadyReplicas < replicasOf(d.Spec.Replicas)})
	}
	for _, s := range inv.stss {
		add(&templateUser{ref: e.ref("StatefulSet", s.Name), spec: &s.Spec.Template.Spec, sts: s,
			troubled: replicasOf(s.Spec.Replicas) > 0 && s.Status.ReadyReplicas < replicasOf(s.Spec.Replicas)})
	}
	for _, d := range inv.dss {
		add(&templateUser{ref: e.ref("DaemonSet", d.Name), spec: &d.Spec.Template.Spec,
			troubled: d.Status.NumberReady < d.Status.DesiredNumberScheduled})
	}
	for _, cj := range inv.cjs {
		add(&templateUser{ref: e.ref("CronJob", cj.Name), spec: &cj.Spec.JobTemplate.Spec.Template.Spec})
	}
	for _, j := range inv.jobs {
		ref := e.ref("Job", j.Name)
		spec := &j.Spec.Template.Spec
		if or := controllerOf(j); or != nil && or.Kind == "CronJob" {
			ref = e.ref("CronJob", or.Name)
		}
		add(&templateUser{ref: ref, spec: spec, troubled: !jobDone(j) && (j.Spec.Suspend == nil || !*j.Spec.Suspend)})
	}
	for _, p := range inv.pods {
		if controllerOf(p) == nil && p.Status.Phase != corev1.PodSucceeded {
			add(&templateUser{ref: e.ref("Pod", p.Name), spec: &p.Spec, troubled: !isReady(p)})
		}
	}
	return out
}

func jobDone(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// refIndex resolves names per kind from one list per kind (a capped list falls back to a get).
type refIndex struct {
	e      *env
	byKind map[string]map[string]runtime.Object
	capped map[string]bool
	gets   int
}

func newRefIndex(e *env, inv *nsInventory) *refIndex {
	x := &refIndex{e: e, byKind: map[string]map[string]runtime.Object{}, capped: map[string]bool{}}
	if inv == nil {
		return x
	}
	svcs := map[string]runtime.Object{}
	for _, s := range inv.svcs {
		svcs[s.Name] = s
	}
	x.byKind["Service"], x.capped["Service"] = svcs, len(inv.svcs) >= scanMaxObjects
	pvcs := map[string]runtime.Object{}
	for _, c := range inv.pvcs {
		pvcs[c.Name] = c
	}
	x.byKind["PersistentVolumeClaim"], x.capped["PersistentVolumeClaim"] = pvcs, len(inv.pvcs) >= scanMaxObjects
	return x
}

func indexList[T runtime.Object](ctx context.Context, e *env, kind string, name func(T) string) (map[string]runtime.Object, bool, error) {
	l, err := listOnce[T](ctx, e, kind, scanMaxObjects)
	if err != nil {
		return nil, false, err
	}
	m := make(map[string]runtime.Object, len(l))
	for _, o := range l {
		m[name(o)] = o
	}
	return m, len(l) >= scanMaxObjects, nil
}

// lookup returns the object and whether it exists; known is false when the API could not
// say (list refused, budget reached), and then nothing may be concluded.
func (x *refIndex) lookup(ctx context.Context, kind, name string) (obj runtime.Object, exists, known bool) {
	m, ok := x.byKind[kind]
	if !ok {
		var err error
		var capped bool
		switch kind {
		case "ConfigMap":
			m, capped, err = indexList(ctx, x.e, kind, func(o *corev1.ConfigMap) string { return o.Name })
		case "ServiceAccount":
			m, capped, err = indexList(ctx, x.e, kind, func(o *corev1.ServiceAccount) string { return o.Name })
		case "StorageClass":
			m, capped, err = indexList(ctx, x.e, kind, func(o *storagev1.StorageClass) string { return o.Name })
		default:
			// Kinds the scan did not list are read one name at a time (Secrets too: a
			// namespace's Secrets can be large, and templates name few of them).
			if x.gets >= refMaxGets {
				return nil, false, false
			}
			x.gets++
			o, err := x.e.get(ctx, kind, name)
			if err == nil {
				return o, true, true
			}
			return nil, false, tools.IsNotFound(err)
		}
		if err != nil {
			return nil, false, false
		}
		x.byKind[kind], x.capped[kind] = m, capped
	}
	if o, ok := m[name]; ok {
		return o, true, true
	}
	if !x.capped[kind] {
		return nil, false, true
	}
	o, err := x.e.get(ctx, kind, name)
	if err == nil {
		return o, true, true
	}
	return nil, false, tools.IsNotFound(err)
}

// names lists the names of a kind (for "did you mean"); Secrets, otherwise read one at a
// time, are listed once here, only when one is missing.
func (x *refIndex) names(ctx context.Context, kind string) []string {
	if _, ok := x.byKind[kind]; !ok && kind == "Secret" {
		if m, capped, err := indexList(ctx, x.e, kind, func(o *corev1.Secret) string { return o.Name }); err == nil {
			x.byKind[kind], x.capped[kind] = m, capped
		}
	}
	out := make([]string, 0, len(x.byKind[kind]))
	for n := range x.byKind[kind] {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// dangling is one reference that resolves to nothing (or to an object lacking what is used).
type dangling struct {
	user    *templateUser
	rule    string
	missing ObjectRef
	// what says where the name is used ("volume config in container app").
	what  string
	facts map[string]string
	// detail replaces the default "does not exist" wording (missing keys, wrong type).
	detail string
}

// scanReferences resolves every reference of the namespace's pod templates and reports the
// dangling ones, troubled workloads first.
func (e *env) scanReferences(ctx context.Context, inv *nsInventory) {
	users := e.templateUsers(inv)
	sort.SliceStable(users, func(i, j int) bool { return users[i].troubled && !users[j].troubled })
	idx := newRefIndex(e, inv)
	var found []dangling
	for _, u := range users {
		if len(found) >= refMaxFindings || e.budget() != nil {
			break
		}
		found = append(found, e.templateRefs(ctx, idx, u)...)
	}
	for i, d := range found {
		if i >= refMaxFindings {
			break
		}
		e.reportDangling(ctx, idx, d)
	}
}

// templateRefs checks one pod template's references.
func (e *env) templateRefs(ctx context.Context, idx *refIndex, u *templateUser) []dangling {
	var out []dangling
	for _, r := range tools.PodConfigRefs(u.spec) {
		if r.Optional {
			continue
		}
		used := strings.Join(r.UsedBy, "; ")
		o, exists, known := idx.lookup(ctx, r.Kind, r.Name)
		if !known {
			continue
		}
		facts := map[string]string{"keys": orDefault(strings.Join(r.Keys, ","), "all keys"), "usedBy": used}
		if !exists {
			out = append(out, dangling{user: u, rule: strings.ToLower(r.Kind) + "-missing", missing: e.ref(r.Kind, r.Name), what: used, facts: facts})
			continue
		}
		have := objectKeys(o)
		var missing []string
		for _, k := range r.Keys {
			if !containsStr(have, k) {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			facts["missingKeys"], facts["firstMissingKey"] = strings.Join(missing, ","), missing[0]
			out = append(out, dangling{user: u, rule: strings.ToLower(r.Kind) + "-key-missing", missing: e.ref(r.Kind, r.Name), what: used, facts: facts,
				detail: fmt.Sprintf("has no key %s (present: %s)", strings.Join(missing, ","), orDefault(strings.Join(have, ","), "none"))})
		}
	}
	for _, s := range u.spec.ImagePullSecrets {
		if _, exists, known := idx.lookup(ctx, "Secret", s.Name); known && !exists && s.Name != "" {
			out = append(out, dangling{user: u, rule: "pull-secret-missing", missing: e.ref("Secret", s.Name), what: "imagePullSecrets",
				facts: map[string]string{"pullSecret": s.Name}})
		}
	}
	for _, v := range u.spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		name := v.PersistentVolumeClaim.ClaimName
		if _, exists, known := idx.lookup(ctx, "PersistentVolumeClaim", name); known && !exists {
			out = append(out, dangling{user: u, rule: "pvc-missing", missing: e.ref("PersistentVolumeClaim", name), what: "volume " + v.Name,
				facts: map[string]string{"claim": name}})
		}
	}
	if sa := u.spec.ServiceAccountName; sa != "" {
		if _, exists, known := idx.lookup(ctx, "ServiceAccount", sa); known && !exists {
			out = append(out, dangling{user: u, rule: "serviceaccount-missing", missing: e.ref("ServiceAccount", sa), what: "serviceAccountName"})
		}
	}
	if u.sts != nil {
		out = append(out, e.statefulSetRefs(ctx, idx, u)...)
	}
	return out
}

func objectKeys(o runtime.Object) []string {
	var have []string
	switch x := o.(type) {
	case *corev1.ConfigMap:
		for k := range x.Data {
			have = append(have, k)
		}
		for k := range x.BinaryData {
			have = append(have, k)
		}
	case *corev1.Secret:
		have = tools.SecretKeys(x)
	}
	sort.Strings(have)
	return have
}

// reportDangling turns a dangling reference into a finding on the referencing workload.
func (e *env) reportDangling(ctx context.Context, idx *refIndex, d dangling) {
	u := d.user
	facts := map[string]string{"workload": kubectlResource(u.ref), "usedBy": d.what}
	for k, v := range d.facts {
		facts[k] = v
	}
	state := "does not exist"
	if d.detail != "" {
		state = d.detail
	}
	summary := fmt.Sprintf("%s %s %s, but %s %s refers to it (%s)", d.missing.Kind, d.missing.Name, state, u.ref.Kind, u.ref.Name, d.what)
	if d.detail == "" {
		if near := nearName(d.missing.Name, idx.names(ctx, d.missing.Kind)); near != "" {
			facts["similar"] = near
			summary += fmt.Sprintf("; %s %s exists, so the reference may be a typo", d.missing.Kind, near)
		}
	}
	conf := 0
	if u.troubled {
		summary += "; its pods cannot start or run correctly until the reference resolves."
	} else {
		// Running pods may predate the deletion; the next pod created will fail.
		summary += "; new pods will fail while it is missing."
		conf = min(Catalogue[d.rule].Confidence, 65)
	}
	ev := e.objEvidence(u.ref, summary)
	e.find(Finding{Rule: d.rule, Confidence: conf, Object: u.ref, Culprit: d.missing, Affected: []ObjectRef{u.ref},
		Evidence: []string{ev}, Facts: facts, Summary: summary})
}

// A dangling pull secret is harmless for public images: it explains nothing by itself and
// is explained by the pull failure that names it.
func init() { causeLayer["pull-secret-missing"] = 0 }
