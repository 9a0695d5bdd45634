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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A claim that binds statically (a class without a provisioner, a class name no StorageClass
// carries, storageClassName "", or a spec.volumeName) waits for a PersistentVolume the PV
// controller deems a match. The volume an administrator made for it usually exists and misses
// on one point: it is Released and still holds the deleted claim in its claimRef, it is
// smaller than the request, it offers other access modes or another volumeMode, its labels
// miss the claim's selector. Naming that volume and the point is the explanation.

// pvMiss is one volume that could have served the claim and why it does not.
type pvMiss struct {
	pv *corev1.PersistentVolume
	// reasons say, in words, each point on which the volume fails the claim.
	reasons []string
	// held is set when the volume is reserved for another (or a deleted) claim: the fix is on
	// the volume (clear its claimRef), not on the claim.
	held bool
	// modesOnly is set when the access modes are the only mismatch.
	modesOnly bool
}

// pvNearMisses lists the volumes of the claim's class (and the one it names in volumeName)
// that do not bind it, closest first.
func pvNearMisses(pvc *corev1.PersistentVolumeClaim, class string, pvs []*corev1.PersistentVolume) []pvMiss {
	var out []pvMiss
	for _, pv := range pvs {
		named := pvc.Spec.VolumeName != "" && pv.Name == pvc.Spec.VolumeName
		if !named && pv.Spec.StorageClassName != class {
			continue
		}
		if !named && pvc.Spec.VolumeName != "" {
			continue // a pre-bound claim binds only the volume it names
		}
		if !named && pv.Status.Phase == corev1.VolumeBound && pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID != "" {
			continue // serving another live claim: no near miss
		}
		if !named && pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.Namespace != "" && pv.Spec.ClaimRef.Namespace != pvc.Namespace {
			continue // reserved for a claim of another namespace: someone else's volume, whatever its phase
		}
		m := pvMiss{pv: pv}
		if r := pv.Spec.ClaimRef; r != nil && (r.Name != pvc.Name || r.Namespace != pvc.Namespace || (r.UID != "" && r.UID != pvc.UID)) {
			m.held = true
			who := r.Namespace + "/" + r.Name
			switch {
			case pv.Status.Phase == corev1.VolumeReleased && r.Name == pvc.Name && r.Namespace == pvc.Namespace:
				m.reasons = append(m.reasons, fmt.Sprintf("is Released: its claimRef still holds the deleted claim %s (uid %s), not the recreated one, so with persistentVolumeReclaimPolicy %s it is not offered to any new claim until spec.claimRef is cleared", who, r.UID, pv.Spec.PersistentVolumeReclaimPolicy))
			case pv.Status.Phase == corev1.VolumeReleased:
				m.reasons = append(m.reasons, fmt.Sprintf("is Released: its claimRef still holds the deleted claim %s, so with persistentVolumeReclaimPolicy %s it is not offered to another claim until spec.claimRef is cleared", who, pv.Spec.PersistentVolumeReclaimPolicy))
			case pv.Status.Phase == corev1.VolumeFailed:
				// Reclaiming failed (a Delete policy on a volume no provisioner can delete, a
				// Recycle that failed): the volume is offered to no claim until someone acts.
				why := ""
				if msg := strings.TrimSpace(pv.Status.Reason + ": " + pv.Status.Message); msg != ":" {
					why = " (" + tools.Sanitize(strings.Trim(msg, ": "), 160, true) + ")"
				}
				m.reasons = append(m.reasons, fmt.Sprintf("is Failed: reclaiming it for the deleted claim %s with persistentVolumeReclaimPolicy %s failed%s, so it is offered to no claim until it is deleted or its claimRef is cleared", who, pv.Spec.PersistentVolumeReclaimPolicy, why))
			default:
				m.reasons = append(m.reasons, fmt.Sprintf("is reserved for claim %s by its claimRef (phase %s)", who, orDefault(string(pv.Status.Phase), "unknown")))
			}
		}
		if pv.Spec.StorageClassName != class {
			m.reasons = append(m.reasons, fmt.Sprintf("has storageClassName %q where the claim asks %q", pv.Spec.StorageClassName, class))
		}
		want, have := pvc.Spec.Resources.Requests[corev1.ResourceStorage], pv.Spec.Capacity[corev1.ResourceStorage]
		if have.Cmp(want) < 0 {
			m.reasons = append(m.reasons, fmt.Sprintf("offers %s where the claim requests %s", have.String(), want.String()))
		}
		modesBad := !modesCovered(pv.Spec.AccessModes, pvc.Spec.AccessModes)
		if modesBad {
			m.reasons = append(m.reasons, fmt.Sprintf("offers access modes %s where the claim asks %s", accessModes(pv.Spec.AccessModes), accessModes(pvc.Spec.AccessModes)))
		}
		if vm, cm := volumeModeOf(pv.Spec.VolumeMode), volumeModeOf(pvc.Spec.VolumeMode); vm != cm {
			m.reasons = append(m.reasons, fmt.Sprintf("has volumeMode %s where the claim asks %s", vm, cm))
		}
		if s := pvc.Spec.Selector; s != nil {
			if sel, err := metav1.LabelSelectorAsSelector(s); err == nil && !sel.Matches(labels.Set(pv.Labels)) {
				m.reasons = append(m.reasons, fmt.Sprintf("has labels %s that the claim's selector %s does not match", tools.LabelsString(pv.Labels), sel.String()))
			}
		}
		if len(m.reasons) == 0 {
			continue // it fits: binding is only slow or waits for a consumer
		}
		m.modesOnly = modesBad && len(m.reasons) == 1
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ni := out[i].pv.Name == pvc.Spec.VolumeName
		nj := out[j].pv.Name == pvc.Spec.VolumeName
		if ni != nj {
			return ni
		}
		if len(out[i].reasons) != len(out[j].reasons) {
			return len(out[i].reasons) < len(out[j].reasons)
		}
		if out[i].held != out[j].held {
			return !out[i].held // a free volume that misses on one point before one held for another claim
		}
		return out[i].pv.Name < out[j].pv.Name
	})
	return out
}

func volumeModeOf(m *corev1.PersistentVolumeMode) corev1.PersistentVolumeMode {
	if m == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *m
}

// explainNearMiss records the finding for the closest volume that misses the claim; false
// when no volume is a near miss (or the volumes cannot be read).
func explainNearMiss(ctx context.Context, e *env, pvc *corev1.PersistentVolumeClaim, class string, cref ObjectRef, evIDs []string, facts map[string]string) bool {
	pvs, err := listOnce[*corev1.PersistentVolume](ctx, e, "PersistentVolume", maxPVList)
	if err != nil {
		return false
	}
	misses := pvNearMisses(pvc, class, pvs)
	if len(misses) == 0 {
		return false
	}
	m := misses[0]
	pref := e.ref("PersistentVolume", m.pv.Name)
	evIDs = append(evIDs, e.objEvidence(pref, "PersistentVolume "+m.pv.Name+": "+tools.Summarize(m.pv, e.now).Status))
	facts["volume"] = m.pv.Name
	facts["volumeSize"] = func() string { q := m.pv.Spec.Capacity[corev1.ResourceStorage]; return q.String() }()
	why := strings.Join(m.reasons, "; it ")
	others := ""
	if len(misses) > 1 {
		others = fmt.Sprintf(" %d other volume(s) of the class miss it too.", len(misses)-1)
	}
	how := fmt.Sprintf("of class %q", class)
	if m.pv.Name == pvc.Spec.VolumeName {
		how = "that it names in spec.volumeName"
	}
	summary := fmt.Sprintf("PersistentVolumeClaim %s (%s, %s) stays Pending: PersistentVolume %s, %s, %s.%s", pvc.Name, facts["size"], facts["accessModes"], m.pv.Name, how, why, others)
	f := Finding{Rule: "pvc-no-matching-pv", Object: cref, Culprit: cref, Affected: []ObjectRef{cref, pref}, Evidence: evIDs, Facts: facts, Summary: summary}
	switch {
	case m.held:
		f.Culprit = pref
	case m.modesOnly:
		f.Rule = "pvc-access-mode-unsupported"
	}
	if vm := volumeModeOf(m.pv.Spec.VolumeMode); !m.held && vm != volumeModeOf(pvc.Spec.VolumeMode) {
		if ref, where, ok := provisionerSetting(ctx, e, class, "volumeMode", string(vm)); ok {
			f.Culprit, f.Affected = ref, append(f.Affected, ref)
			f.Summary += fmt.Sprintf(" The class's volumes are made by a provisioner configured in %s, which sets volumeMode: %s for class %s: set it to %s there (volumes already made keep their mode and must be released and recreated), or ask for volumeMode: %s in the claim.",
				where, vm, class, volumeModeOf(pvc.Spec.VolumeMode), vm)
			f.Evidence = append(f.Evidence, e.objEvidence(ref, where+" sets volumeMode: "+string(vm)+" for class "+class))
		}
	}
	e.find(f)
	return true
}

// provisionerSetting finds the ConfigMap of the namespace that configures how the volumes of
// class are made: one of its keys names the class and sets field to value ("volumeMode:
// Block" in a static provisioner's storageClassMap).
func provisionerSetting(ctx context.Context, e *env, class, field, value string) (ObjectRef, string, bool) {
	if class == "" {
		return ObjectRef{}, "", false
	}
	cms, err := listOnce[*corev1.ConfigMap](ctx, e, "ConfigMap", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	set := regexp.MustCompile(`(?im)^\s*"?` + regexp.QuoteMeta(field) + `"?\s*[:=]\s*"?` + regexp.QuoteMeta(value) + `\b`)
	for _, c := range cms {
		for _, k := range sortedKeys(c.Data) {
			v := clipBytes(c.Data[k], maxFileBytes)
			if strings.Contains(v, class) && set.MatchString(v) {
				return e.ref("ConfigMap", c.Name), fmt.Sprintf("ConfigMap %s key %s", c.Name, k), true
			}
		}
	}
	return ObjectRef{}, "", false
}
