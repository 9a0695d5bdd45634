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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubage/kubage/internal/tools"
)

// An object with a deletionTimestamp stays until its finalizers are gone. Who removes each
// one says what the deletion waits for: the garbage collector's foregroundDeletion waits for
// the dependents that block their owner's deletion, kubernetes.io/pvc-protection for the last
// pod using the claim, kubernetes.io/pv-protection for the bound claim, and any other
// finalizer for the controller that added it (which may no longer run). This walks from a
// deleting object to what holds it, whatever its kind.

const (
	finForeground    = "foregroundDeletion"
	finOrphan        = "orphan"
	finPVCProtection = "kubernetes.io/pvc-protection"
	finPVProtection  = "kubernetes.io/pv-protection"
	// heldAfter is how long past its grace period a deletion may take before a finalizer is
	// said to hold it (the kubelet and controllers normally finish within seconds).
	heldAfter = time.Minute
	// maxDependentDepth bounds the owner → dependent walk (Deployment → ReplicaSet → Pod).
	maxDependentDepth = 3
)

// controllerFinalizers are the finalizers a controller must remove (the garbage collector's
// own two are about dependents, not about a controller).
func controllerFinalizers(m metav1.Object) []string {
	var out []string
	for _, f := range m.GetFinalizers() {
		if f != finForeground && f != finOrphan {
			out = append(out, f)
		}
	}
	return out
}

func hasFinalizer(m metav1.Object, f string) bool { return containsStr(m.GetFinalizers(), f) }

// deletionRequested is when the deletion was asked for: a pod's deletionTimestamp is that
// moment plus its grace period.
func deletionRequested(m metav1.Object) time.Time {
	t := m.GetDeletionTimestamp().Time
	if g := m.GetDeletionGracePeriodSeconds(); g != nil && *g > 0 {
		t = t.Add(-time.Duration(*g) * time.Second)
	}
	return t
}

// deletingFor says how long ago the deletion was asked for.
func (e *env) deletingFor(m metav1.Object) string {
	d := e.now.Sub(deletionRequested(m)).Round(time.Second)
	if d < time.Second {
		return "moments"
	}
	return d.String()
}

// dependent is an object whose ownerReferences name an owner.
type dependent struct {
	ref  ObjectRef
	meta metav1.Object
	pod  *corev1.Pod
}

// dependentsOf lists the namespace's pods, ReplicaSets, Jobs and claims owned by uid.
func (e *env) dependentsOf(ctx context.Context, uid types.UID) []dependent {
	var out []dependent
	if pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects); err == nil {
		for _, p := range pods {
			if tools.IsOwnedBy(p, uid) {
				out = append(out, dependent{ref: e.ref("Pod", p.Name), meta: p, pod: p})
			}
		}
	}
	if rss, err := listOnce[*appsv1.ReplicaSet](ctx, e, "ReplicaSet", scanMaxObjects); err == nil {
		for _, rs := range rss {
			if tools.IsOwnedBy(rs, uid) {
				out = append(out, dependent{ref: e.ref("ReplicaSet", rs.Name), meta: rs})
			}
		}
	}
	if jobs, err := listOnce[*batchv1.Job](ctx, e, "Job", scanMaxObjects); err == nil {
		for _, j := range jobs {
			if tools.IsOwnedBy(j, uid) {
				out = append(out, dependent{ref: e.ref("Job", j.Name), meta: j})
			}
		}
	}
	if pvcs, err := listOnce[*corev1.PersistentVolumeClaim](ctx, e, "PersistentVolumeClaim", scanMaxObjects); err == nil {
		for _, c := range pvcs {
			if tools.IsOwnedBy(c, uid) {
				out = append(out, dependent{ref: e.ref("PersistentVolumeClaim", c.Name), meta: c})
			}
		}
	}
	return out
}

// hold is what keeps a deletion from finishing.
type hold struct {
	culprit ObjectRef   // the object to act on
	via     []ObjectRef // the dependents between the deleting object and the culprit
	why     string      // "Pod x is Terminating, held by finalizer f (for 5m)"
	fins    []string
}

// blockingDependent walks a foreground deletion down to the dependent that cannot go.
func (e *env) blockingDependent(ctx context.Context, owner metav1.Object, depth int) (hold, bool) {
	if depth >= maxDependentDepth {
		return hold{}, false
	}
	for _, d := range e.dependentsOf(ctx, owner.GetUID()) {
		if d.meta.GetDeletionTimestamp() == nil {
			continue // the garbage collector has yet to delete it
		}
		kind := d.ref.Kind + " " + d.ref.Name
		if fs := controllerFinalizers(d.meta); len(fs) > 0 {
			if d.ref.Kind == "PersistentVolumeClaim" && len(fs) == 1 && fs[0] == finPVCProtection {
				if h, ok := e.claimInUse(ctx, d.ref.Name); ok {
					h.via = append([]ObjectRef{d.ref}, h.via...)
					return h, true
				}
			}
			return hold{culprit: d.ref, fins: fs, why: fmt.Sprintf("%s is Terminating (deletion asked %s ago), held by finalizer %s, which only the controller that added it removes", kind, e.deletingFor(d.meta), strings.Join(fs, ", "))}, true
		}
		if hasFinalizer(d.meta, finForeground) {
			if h, ok := e.blockingDependent(ctx, d.meta, depth+1); ok {
				h.via = append([]ObjectRef{d.ref}, h.via...)
				return h, true
			}
		}
		if d.pod != nil && d.pod.Spec.NodeName != "" {
			if n, err := getAs[*corev1.Node](ctx, e, "Node", d.pod.Spec.NodeName); err == nil {
				if h := tools.NodeHealth(n); h.Ready != "True" {
					return hold{culprit: e.ref("Node", n.Name), via: []ObjectRef{d.ref}, why: fmt.Sprintf("%s is Terminating (deletion asked %s ago) on node %s, which is not Ready (%s), so the kubelet never confirms its containers stopped", kind, e.deletingFor(d.meta), n.Name, orDefault(h.ReadyReason, "Ready="+h.Ready))}, true
				}
			}
		}
	}
	return hold{}, false
}

// claimInUse finds the pods that still use a claim kubernetes.io/pvc-protection keeps.
func (e *env) claimInUse(ctx context.Context, claim string) (hold, bool) {
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return hold{}, false
	}
	var users []ObjectRef
	var first *corev1.Pod
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || !podUsesClaim(p, claim) {
			continue
		}
		if first == nil {
			first = p
		}
		users = append(users, e.ref("Pod", p.Name))
	}
	if first == nil {
		return hold{}, false
	}
	wl := e.workloadOf(ctx, first)
	why := fmt.Sprintf("finalizer %s keeps it until no pod uses it, and pod %s", finPVCProtection, first.Name)
	if wl.Kind != "Pod" {
		why += " of " + wl.Kind + " " + wl.Name
	}
	why += " still mounts it"
	if len(users) > 1 {
		why += fmt.Sprintf(" (%d pods in all)", len(users))
	}
	return hold{culprit: wl, via: clipRefs(users, 3), why: why, fins: []string{finPVCProtection}}, true
}

func podUsesClaim(p *corev1.Pod, claim string) bool {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim || v.Ephemeral != nil && p.Name+"-"+v.Name == claim {
			return true
		}
	}
	return false
}

func clipRefs(rs []ObjectRef, n int) []ObjectRef {
	if len(rs) > n {
		return rs[:n]
	}
	return rs
}

// deletionHeld reports an object being deleted and what holds it; true when it did, so the
// caller's other checks (a deleting workload is short of pods on purpose) are skipped.
func (e *env) deletionHeld(ctx context.Context, ref ObjectRef) bool {
	obj, err := e.get(ctx, ref.Kind, ref.Name)
	if err != nil {
		return false
	}
	m := metaOfObj(obj)
	if m == nil || m.GetDeletionTimestamp() == nil {
		return false
	}
	r := e.ref(ref.Kind, m.GetName())
	what := fmt.Sprintf("%s %s is being deleted (asked %s ago, finalizers: %s)", r.Kind, r.Name, e.deletingFor(m), orDefault(strings.Join(m.GetFinalizers(), ", "), "none"))
	ev := e.objEvidence(r, what)
	facts := map[string]string{"resource": kubectlResource(r), "finalizers": strings.Join(m.GetFinalizers(), ","), "deleting": r.Kind + "/" + r.Name}
	var h hold
	ok := false
	switch {
	case hasFinalizer(m, finForeground):
		if h, ok = e.blockingDependent(ctx, m, 0); ok {
			what += " with foreground propagation: the garbage collector's finalizer " + finForeground + " waits for its dependents"
			for _, v := range h.via {
				if !namesObject(h.why, v) {
					what += ", through " + v.Kind + " " + v.Name + " (deleted in the foreground too)"
				}
			}
			what += ", and " + h.why
		}
	case r.Kind == "PersistentVolumeClaim" && hasFinalizer(m, finPVCProtection):
		if h, ok = e.claimInUse(ctx, r.Name); ok {
			what += ": " + h.why
		}
	case r.Kind == "PersistentVolume" && hasFinalizer(m, finPVProtection):
		if pv, isPV := obj.(*corev1.PersistentVolume); isPV && pv.Spec.ClaimRef != nil {
			if _, err := e.get(ctx, "PersistentVolumeClaim", pv.Spec.ClaimRef.Name); err == nil && pv.Spec.ClaimRef.Namespace == e.s.Namespace {
				c := e.ref("PersistentVolumeClaim", pv.Spec.ClaimRef.Name)
				h, ok = hold{culprit: c, fins: []string{finPVProtection}, why: "finalizer " + finPVProtection + " keeps it while claim " + c.Name + " is bound to it"}, true
				what += ": " + h.why
			}
		}
	}
	if ok {
		facts["finalizer"] = strings.Join(h.fins, ",")
		if h.culprit.Kind != "Node" && len(h.fins) > 0 {
			facts["resource"] = kubectlResource(h.culprit)
		}
		e.find(Finding{Rule: "deletion-blocked", Object: r, Culprit: h.culprit, Affected: append([]ObjectRef{r}, h.via...), Evidence: []string{ev}, Facts: facts,
			Summary: what + "."})
		return true
	}
	fs := controllerFinalizers(m)
	// Kubernetes' own controllers remove their finalizers within moments; an operator's
	// finalizer on the object asked about is worth naming at once.
	recent := e.now.Sub(deletionRequested(m)) < heldAfter
	if len(fs) == 0 || recent && (e.hop > 0 || builtinFinalizers(fs)) {
		return false
	}
	facts["finalizer"] = strings.Join(fs, ",")
	e.find(Finding{Rule: "pod-stuck-terminating", Object: r, Culprit: r, Evidence: []string{ev}, Facts: facts,
		Summary: fmt.Sprintf("%s %s is Terminating: deletion was asked %s ago, and finalizer %s holds it; only the controller that added it removes it (if that controller is gone, nothing will).", r.Kind, r.Name, e.deletingFor(m), strings.Join(fs, ", "))})
	return true
}

// heldByFinalizer reports a Terminating pod that a controller's finalizer holds once the
// kubelet is done with it (its grace period long over, or its containers stopped), or that
// a deleting owner waits for; it names the finalizer, how long, and what waits on the pod.
func (pc *podCheck) heldByFinalizer(ctx context.Context) bool {
	p, e := pc.pod, pc.e
	fs := controllerFinalizers(p)
	if len(fs) == 0 {
		return false
	}
	past := e.now.Sub(p.DeletionTimestamp.Time)
	var waits []string
	affected := []ObjectRef{}
	ownerWaits := false
	if or := controllerOf(p); or != nil {
		owner := e.ref(or.Kind, or.Name)
		if o, err := e.get(ctx, or.Kind, or.Name); err == nil {
			if m := metaOfObj(o); m != nil && m.GetDeletionTimestamp() != nil && hasFinalizer(m, finForeground) {
				waits = append(waits, fmt.Sprintf("%s %s, deleted with foreground propagation, waits for it", or.Kind, or.Name))
				affected = append(affected, owner)
				ownerWaits = true
			}
		}
		if or.Kind == "StatefulSet" {
			if i := strings.LastIndexByte(p.Name, '-'); i > 0 && p.Name[:i] == or.Name {
				waits = append(waits, fmt.Sprintf("StatefulSet %s cannot create its ordinal %s again (pod %s) until this one is gone", or.Name, p.Name[i+1:], p.Name))
				affected = append(affected, owner)
			}
		}
	}
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil || len(waits) >= 4 {
			continue
		}
		if c, err := getAs[*corev1.PersistentVolumeClaim](ctx, e, "PersistentVolumeClaim", v.PersistentVolumeClaim.ClaimName); err == nil && c.DeletionTimestamp != nil && hasFinalizer(c, finPVCProtection) {
			waits = append(waits, fmt.Sprintf("PersistentVolumeClaim %s, Terminating under %s, waits for it", c.Name, finPVCProtection))
			affected = append(affected, e.ref("PersistentVolumeClaim", c.Name))
		}
	}
	// The kubelet may still be stopping it: only a deletion long past its grace period, a pod
	// whose containers all ended a while ago, or an owner waiting on it counts as held.
	if past < heldAfter && !ownerWaits && !(podStopped(p) && past > 15*time.Second) {
		return false
	}
	summary := fmt.Sprintf("Pod %s is Terminating: deletion was asked %s ago, and finalizer %s holds it; only the controller that added it removes it (if that controller is gone, nothing will).", p.Name, e.deletingFor(p), strings.Join(fs, ", "))
	if len(waits) > 0 {
		summary += " " + strings.Join(waits, "; ") + "."
	}
	e.find(Finding{Rule: "pod-stuck-terminating", Object: pc.ref, Culprit: pc.ref, Affected: affected, Evidence: []string{pc.statusEv}, Summary: summary,
		Facts: map[string]string{"finalizers": strings.Join(p.Finalizers, ","), "finalizer": strings.Join(fs, ","), "resource": "pod/" + p.Name}})
	return true
}

// podStopped reports a pod whose containers have all ended (the kubelet is done with it).
func podStopped(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	if len(p.Status.ContainerStatuses) == 0 {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated == nil {
			return false
		}
	}
	return true
}

// builtinFinalizers reports finalizers that Kubernetes' own controllers remove.
func builtinFinalizers(fs []string) bool {
	for _, f := range fs {
		if !strings.Contains(f, "kubernetes.io/") {
			return false
		}
	}
	return true
}
