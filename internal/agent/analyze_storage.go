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

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kubage/kubage/internal/tools"
)

func init() {
	analyzers["pvc"] = analyzePVC
	analyzers["config"] = analyzeConfig
}

func analyzePVC(ctx context.Context, e *env, ref ObjectRef) error {
	pvc, err := getAs[*corev1.PersistentVolumeClaim](ctx, e, "PersistentVolumeClaim", ref.Name)
	if err != nil {
		return e.missingTarget(ObjectRef{Kind: "PersistentVolumeClaim", Name: ref.Name}, err)
	}
	cref := e.ref("PersistentVolumeClaim", pvc.Name)
	evIDs := []string{e.objEvidence(cref, "PersistentVolumeClaim "+pvc.Name+": "+tools.Summarize(pvc, e.now).Status)}
	defer e.claimOwners(ctx, pvc, len(e.res.Findings))
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	facts := map[string]string{"claim": pvc.Name, "size": size.String(), "accessModes": accessModes(pvc.Spec.AccessModes), "class": ptrOr(pvc.Spec.StorageClassName, "")}
	switch pvc.Status.Phase {
	case corev1.ClaimLost:
		facts["volume"] = pvc.Spec.VolumeName
		e.find(Finding{Rule: "pvc-lost", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s is Lost: its volume %s is gone.", pvc.Name, pvc.Spec.VolumeName)})
		return nil
	case corev1.ClaimBound:
		if pvc.Spec.VolumeName != "" {
			if _, err := e.get(ctx, "PersistentVolume", pvc.Spec.VolumeName); tools.IsNotFound(err) {
				facts["volume"] = pvc.Spec.VolumeName
				e.find(Finding{Rule: "pvc-lost", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
					Summary: fmt.Sprintf("PersistentVolumeClaim %s is bound to PersistentVolume %s, which no longer exists.", pvc.Name, pvc.Spec.VolumeName)})
			}
		}
		return nil
	}
	evs := e.events(ctx, "PersistentVolumeClaim", pvc.Name)
	for _, g := range evs {
		if g.Type == corev1.EventTypeWarning || g.Reason == "ExternalProvisioning" {
			evIDs = append(evIDs, e.eventEvidence(cref, g))
			if len(evIDs) > 4 {
				break
			}
		}
	}
	// ProvisioningFailed messages name access-mode problems directly.
	if g := tools.EventsMention(evs, "ProvisioningFailed"); g != nil {
		low := strings.ToLower(g.Message)
		if strings.Contains(low, "access mode") || strings.Contains(low, "accessmode") {
			e.find(Finding{Rule: "pvc-access-mode-unsupported", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("PersistentVolumeClaim %s asks for access mode %s, which its storage does not support: %s", pvc.Name, facts["accessModes"], g.Message)})
			return nil
		}
	}
	className := ptrOr(pvc.Spec.StorageClassName, "")
	// A claim that names its volume binds that one or none.
	if pvc.Spec.VolumeName != "" && explainNearMiss(ctx, e, pvc, className, cref, evIDs, facts) {
		return nil
	}
	if pvc.Spec.StorageClassName == nil {
		scs, _, err := listAs[*storagev1.StorageClass](ctx, e, "StorageClass", tools.ListOptions{Max: 100})
		if err != nil {
			return err
		}
		def := ""
		for _, sc := range scs {
			if tools.IsDefaultStorageClass(sc) {
				def = sc.Name
			}
		}
		if def == "" {
			if ok, err := pvAvailable(ctx, e, pvc, ""); err != nil || ok {
				return err
			}
			e.find(Finding{Rule: "pvc-no-default-storageclass", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("PersistentVolumeClaim %s names no StorageClass and the cluster has no default StorageClass (or matching volume), so nothing will provision it.", pvc.Name)})
			return nil
		}
		className = def
	}
	if className == "" {
		if ok, err := pvAvailable(ctx, e, pvc, ""); err != nil || ok {
			return err
		}
		if explainNearMiss(ctx, e, pvc, "", cref, evIDs, facts) {
			return nil
		}
		e.find(Finding{Rule: "pvc-no-matching-pv", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s has storageClassName \"\" (static binding only) and no Available PersistentVolume matches %s %s.", pvc.Name, facts["size"], facts["accessModes"])})
		return nil
	}
	facts["class"] = className
	sc, err := getAs[*storagev1.StorageClass](ctx, e, "StorageClass", className)
	scRef := e.ref("StorageClass", className)
	if tools.IsNotFound(err) {
		// A class name no StorageClass carries still binds statically to volumes of that
		// name ("manual" in the docs): when such volumes exist, the one that misses explains it.
		if explainNearMiss(ctx, e, pvc, className, cref, evIDs, facts) {
			return nil
		}
		e.find(Finding{Rule: "pvc-storageclass-missing", Object: cref, Culprit: scRef, Affected: []ObjectRef{cref}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s is Pending because its StorageClass %s does not exist.", pvc.Name, className)})
		return nil
	}
	if err != nil {
		return err
	}
	evIDs = append(evIDs, e.objEvidence(scRef, "StorageClass "+sc.Name+": "+tools.Summarize(sc, e.now).Status))
	facts["provisioner"] = sc.Provisioner
	// A no-provisioner class never provisions: the PV controller's "no volume plugin matched"
	// ProvisioningFailed is noise, the question is which pre-created volume could match.
	if sc.Provisioner == "kubernetes.io/no-provisioner" {
		if explainNearMiss(ctx, e, pvc, className, cref, evIDs, facts) {
			return nil
		}
		return staticClaim(ctx, e, pvc, className, cref, evIDs, facts)
	}
	if g := tools.EventsMention(evs, "ProvisioningFailed"); g != nil {
		facts["message"] = g.Message
		e.find(Finding{Rule: "pvc-provisioning-failed", Object: cref, Culprit: scRef, Affected: []ObjectRef{cref}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s is Pending: provisioner %s of StorageClass %s fails to create its volume (ProvisioningFailed): %s", pvc.Name, sc.Provisioner, sc.Name, g.Message)})
		return nil
	}
	if e.topologyUnmatched(ctx, sc, pvc, cref, scRef, evIDs, facts) {
		return nil
	}
	waitForConsumer := sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	if waitForConsumer && e.nodeNameBypass(ctx, pvc, sc, cref, scRef, evIDs, facts) {
		return nil
	}
	if waitForConsumer && tools.EventsMention(evs, "WaitForFirstConsumer") != nil && tools.EventsMention(evs, "ExternalProvisioning") == nil {
		e.evidence(fmt.Sprintf("PersistentVolumeClaim %s waits for a pod to use it before provisioning (WaitForFirstConsumer); this alone is normal", pvc.Name), Source{Kind: SourceObject, Object: &cref}, "")
		return nil
	}
	if isInTreeProvisioner(sc.Provisioner) {
		return nil
	}
	if _, err := e.get(ctx, "CSIDriver", sc.Provisioner); tools.IsNotFound(err) {
		e.find(Finding{Rule: "pvc-no-provisioner", Object: cref, Culprit: scRef, Affected: []ObjectRef{cref}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s is Pending: StorageClass %s uses provisioner %s, but no such CSI driver is registered in the cluster, so no volume is ever created.", pvc.Name, sc.Name, sc.Provisioner)})
		return nil
	} else if err != nil {
		return err
	}
	if g := tools.EventsMention(evs, "ExternalProvisioning"); g != nil && g.Count > 10 {
		facts["message"] = g.Message
		e.find(Finding{Rule: "pvc-provisioning-failed", Confidence: 55, Object: cref, Culprit: scRef, Affected: []ObjectRef{cref}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s has waited long for provisioner %s (x%d): %s", pvc.Name, sc.Provisioner, g.Count, g.Message)})
	}
	return nil
}

func isInTreeProvisioner(p string) bool {
	return strings.HasPrefix(p, "kubernetes.io/") && p != "kubernetes.io/no-provisioner"
}

// pvAvailable reports whether an Available PV could satisfy the claim (class, size, modes).
func pvAvailable(ctx context.Context, e *env, pvc *corev1.PersistentVolumeClaim, class string) (bool, error) {
	pvs, err := listOnce[*corev1.PersistentVolume](ctx, e, "PersistentVolume", maxPVList)
	if err != nil {
		return false, err
	}
	for _, pv := range pvs {
		// An Available volume whose claimRef names another claim is pre-bound to that claim.
		if r := pv.Spec.ClaimRef; r != nil && (r.Name != pvc.Name || r.Namespace != pvc.Namespace) {
			continue
		}
		if pv.Status.Phase == corev1.VolumeAvailable && pv.Spec.StorageClassName == class && pvFits(pv, pvc) {
			return true, nil
		}
	}
	return false, nil
}

func pvFits(pv *corev1.PersistentVolume, pvc *corev1.PersistentVolumeClaim) bool {
	want := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	have := pv.Spec.Capacity[corev1.ResourceStorage]
	return have.Cmp(want) >= 0 && modesCovered(pv.Spec.AccessModes, pvc.Spec.AccessModes) && volumeModeOf(pv.Spec.VolumeMode) == volumeModeOf(pvc.Spec.VolumeMode)
}

func modesCovered(have, want []corev1.PersistentVolumeAccessMode) bool {
	for _, w := range want {
		ok := false
		for _, h := range have {
			if h == w {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// staticClaim explains a pending claim of a no-provisioner class.
func staticClaim(ctx context.Context, e *env, pvc *corev1.PersistentVolumeClaim, class string, cref ObjectRef, evIDs []string, facts map[string]string) error {
	pvs, err := listOnce[*corev1.PersistentVolume](ctx, e, "PersistentVolume", maxPVList)
	if err != nil {
		return err
	}
	var sameClass, sizeOK []*corev1.PersistentVolume
	for _, pv := range pvs {
		if pv.Spec.StorageClassName != class || pv.Status.Phase != corev1.VolumeAvailable {
			continue
		}
		sameClass = append(sameClass, pv)
		want := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
		have := pv.Spec.Capacity[corev1.ResourceStorage]
		if have.Cmp(want) >= 0 {
			sizeOK = append(sizeOK, pv)
		}
	}
	for _, pv := range sizeOK {
		if modesCovered(pv.Spec.AccessModes, pvc.Spec.AccessModes) {
			return nil // a volume fits; binding may simply wait for a consumer
		}
	}
	if len(sizeOK) > 0 {
		e.find(Finding{Rule: "pvc-access-mode-unsupported", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s asks for access mode %s, but the %d available volume(s) of class %s offer only %s.", pvc.Name, facts["accessModes"], len(sizeOK), class, accessModes(sizeOK[0].Spec.AccessModes))})
		return nil
	}
	e.find(Finding{Rule: "pvc-no-matching-pv", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
		Summary: fmt.Sprintf("PersistentVolumeClaim %s uses StorageClass %s, which has no provisioner (kubernetes.io/no-provisioner), and none of the %d available volume(s) of that class is big enough (%s).", pvc.Name, class, len(sameClass), facts["size"])})
	return nil
}

func accessModes(m []corev1.PersistentVolumeAccessMode) string {
	parts := make([]string, 0, len(m))
	for _, a := range m {
		parts = append(parts, string(a))
	}
	return strings.Join(parts, ",")
}

func ptrOr(p *string, d string) string {
	if p == nil {
		return d
	}
	return *p
}

// analyzeConfig handles a ConfigMap or Secret target: does it exist, and which pods
// reference it or keys it lacks.
func analyzeConfig(ctx context.Context, e *env, ref ObjectRef) error {
	target := e.ref(ref.Kind, ref.Name)
	_, getErr := e.get(ctx, ref.Kind, ref.Name)
	if getErr != nil && !tools.IsNotFound(getErr) {
		return getErr
	}
	pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{Max: 1000})
	if err != nil {
		return err
	}
	var users []*corev1.Pod
	for _, p := range pods {
		for _, r := range tools.PodConfigRefs(&p.Spec) {
			if r.Kind == ref.Kind && r.Name == ref.Name && !r.Optional {
				users = append(users, p)
				break
			}
		}
	}
	if len(users) == 0 {
		if getErr != nil {
			return e.missingTarget(ref, getErr)
		}
		e.objEvidence(target, fmt.Sprintf("%s %s exists and no pod requires it", ref.Kind, ref.Name))
		return nil
	}
	// The first pod that is not healthy is analyzed fully; it carries the config finding.
	for _, p := range users {
		if !isReady(p) {
			_, err := e.checkPod(ctx, p)
			return err
		}
	}
	e.objEvidence(target, fmt.Sprintf("%s %s is used by %d pod(s), all ready", ref.Kind, ref.Name, len(users)))
	return nil
}

// claimOwners adds, to the findings recorded since n, the workload of the pod that owns the
// claim: a generic ephemeral volume's claim belongs to its pod, and the claim template that
// names the class lives in that workload's pod template, the place to fix.
func (e *env) claimOwners(ctx context.Context, pvc *corev1.PersistentVolumeClaim, n int) {
	or := controllerOf(pvc)
	if or == nil || or.Kind != "Pod" || len(e.res.Findings) == n {
		return
	}
	p, err := getAs[*corev1.Pod](ctx, e, "Pod", or.Name)
	if err != nil {
		return
	}
	refs := []ObjectRef{e.ref("Pod", p.Name), e.workloadOf(ctx, p)}
	for i := n; i < len(e.res.Findings); i++ {
		e.res.Findings[i].Affected = mergeRefs(e.res.Findings[i].Affected, refs)
	}
}
