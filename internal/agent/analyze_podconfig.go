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

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Configuration a pod needs before its containers can start: ConfigMaps, Secrets, volumes.
// configError resolves CreateContainerConfigError / FailedMount config problems against the API.
func (pc *podCheck) configError(ctx context.Context, container, msg string) error {
	refs, err := pc.e.resolveConfig(ctx, &pc.pod.Spec)
	if err != nil {
		return err
	}
	var evIDs []string
	if msg != "" {
		evIDs = append(evIDs, pc.e.evidence(fmt.Sprintf("Container %s of pod %s: %s", container, pc.pod.Name, msg), Source{Kind: SourceObject, Object: &pc.ref}, ""))
	}
	parsed, hasParsed := ParseConfigError(msg)
	for _, r := range refs {
		if r.Optional || !r.Checked {
			continue
		}
		if hasParsed && (r.Kind != parsed.Kind || r.Name != parsed.Name) {
			continue
		}
		if !r.Exists || len(r.MissingKeys) > 0 {
			pc.configFinding(ctx, container, r, evIDs)
			return nil
		}
	}
	if hasParsed {
		// The kubelet named it but the reference check could not confirm (cap reached): trust the kubelet.
		r := tools.ConfigRef{Kind: parsed.Kind, Name: parsed.Name, Checked: true, Exists: parsed.Key != ""}
		if parsed.Key != "" {
			r.MissingKeys = []string{parsed.Key}
		}
		pc.configFinding(ctx, container, r, evIDs)
		return nil
	}
	for _, r := range refs {
		if !r.Optional && r.Checked && (!r.Exists || len(r.MissingKeys) > 0) {
			pc.configFinding(ctx, container, r, evIDs)
			return nil
		}
	}
	if r, ok := pc.subPathKeyMissing(ctx); ok {
		pc.configFinding(ctx, container, r, evIDs)
		return nil
	}
	if msg != "" {
		pc.find(ctx, "create-container-error", container, fmt.Sprintf("Container %s of pod %s has a configuration error: %s", container, pc.pod.Name, tools.Sanitize(msg, 300, true)),
			ObjectRef{}, evIDs, map[string]string{"message": tools.Sanitize(msg, 200, true)})
	}
	return nil
}

func (e *env) resolveConfig(ctx context.Context, spec *corev1.PodSpec) ([]tools.ConfigRef, error) {
	refs := tools.PodConfigRefs(spec)
	out := make([]tools.ConfigRef, 0, len(refs))
	for i, r := range refs {
		if i >= 15 {
			break
		}
		obj, err := e.get(ctx, r.Kind, r.Name)
		r.Checked = true
		switch {
		case tools.IsNotFound(err):
		case err != nil:
			if err == errTaskBudget {
				return out, nil
			}
			r.Checked = false
		default:
			have := objectKeys(obj)
			r.Exists, r.KeysPresent = true, have
			for _, k := range r.Keys {
				if !containsStr(have, k) {
					r.MissingKeys = append(r.MissingKeys, k)
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func (pc *podCheck) configFinding(ctx context.Context, container string, r tools.ConfigRef, evIDs []string) {
	culprit := pc.e.ref(r.Kind, r.Name)
	wl := pc.e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"keys": orDefault(strings.Join(r.Keys, ","), "all keys"), "usedBy": strings.Join(r.UsedBy, "; ")}
	var rule, summary string
	var creator ObjectRef
	pod, blocked := pc.owned(wl), pc.blockedBy(ctx, container)
	if !r.Exists {
		rule = strings.ToLower(r.Kind) + "-missing"
		summary = fmt.Sprintf("%s %s does not exist, but %s needs it for %s; %s.", r.Kind, r.Name, pod, orDefault(strings.Join(r.UsedBy, "; "), "its configuration"), blocked)
		// A near namesake makes a typo in the reference the likelier fix.
		if near := closestName(r.Name, pc.namesOf(ctx, r.Kind)); near != "" {
			summary += fmt.Sprintf(" %s %s exists: if the reference is a typo, fix it in %s %s instead of creating %s.", r.Kind, near, wl.Kind, wl.Name, r.Name)
			facts["closest"] = near
		}
		if note, jref := pc.e.creatorJobNote(ctx, r.Kind, r.Name); note != "" {
			summary += note
			creator = jref
		}
	} else {
		rule = strings.ToLower(r.Kind) + "-key-missing"
		facts["missingKeys"] = strings.Join(r.MissingKeys, ",")
		facts["firstMissingKey"] = r.MissingKeys[0]
		summary = fmt.Sprintf("%s %s exists but has no key %s, which %s references (%s); present keys: %s; %s.", r.Kind, r.Name, strings.Join(r.MissingKeys, ","), pod, strings.Join(r.UsedBy, "; "), orDefault(strings.Join(r.KeysPresent, ","), "none"), blocked)
	}
	ev := pc.e.objEvidence(culprit, summary)
	f := Finding{Rule: rule, Object: pc.ref, Culprit: culprit, Summary: summary, Evidence: append(append([]string{pc.statusEv}, evIDs...), ev),
		Facts: pc.facts(ctx, container, facts), Affected: mergeRefs([]ObjectRef{pc.ref}, []ObjectRef{wl})}
	if !creator.IsZero() {
		f.Affected = mergeRefs(f.Affected, []ObjectRef{creator})
	}
	pc.e.find(f)
}

// mounts explains a pod stuck creating containers from FailedMount / sandbox events.
func (pc *podCheck) mounts(ctx context.Context, container string) error {
	for _, g := range pc.events(ctx) {
		switch g.Reason {
		case "FailedMount", "FailedAttachVolume":
			if _, ok := ParseConfigError(g.Message); ok {
				return pc.configError(ctx, container, g.Message)
			}
			ev := pc.e.eventEvidence(pc.ref, g)
			// Messages this parser does not know ("references non-existent secret key: K")
			// still fail on a reference: one that really misses its object or key is named.
			if r, ok := pc.brokenReference(ctx); ok {
				pc.configFinding(ctx, container, r, []string{ev})
				return nil
			}
			if pc.csiDriverAbsent(ctx, container, g.Message, []string{ev}) {
				return nil
			}
			pc.find(ctx, "volume-mount-failed", container, fmt.Sprintf("Pod %s is stuck creating containers: %s (x%d): %s", pc.pod.Name, g.Reason, g.Count, g.Message),
				ObjectRef{}, []string{ev}, map[string]string{"message": tools.Sanitize(g.Message, 200, true)})
			return nil
		case "FailedCreatePodSandBox":
			ev := pc.e.eventEvidence(pc.ref, g)
			pc.find(ctx, "create-container-error", container, fmt.Sprintf("Pod %s is stuck in ContainerCreating: FailedCreatePodSandBox (x%d) on node %s, the container runtime or the network (CNI) plugin there cannot set up the pod's sandbox: %s", pc.pod.Name, g.Count, pc.pod.Spec.NodeName, g.Message),
				ObjectRef{}, []string{ev}, map[string]string{"message": tools.Sanitize(g.Message, 200, true)})
			return nil
		}
	}
	// No event: the references themselves may still be missing (events expire).
	refs, err := pc.e.resolveConfig(ctx, &pc.pod.Spec)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if !r.Optional && r.Checked && !r.Exists {
			pc.configFinding(ctx, container, r, nil)
			return nil
		}
	}
	return nil
}

// brokenReference is the first required ConfigMap or Secret reference of the pod whose
// object or key is really missing.
func (pc *podCheck) brokenReference(ctx context.Context) (tools.ConfigRef, bool) {
	refs, err := pc.e.resolveConfig(ctx, &pc.pod.Spec)
	if err != nil {
		return tools.ConfigRef{}, false
	}
	for _, r := range refs {
		if !r.Optional && r.Checked && (!r.Exists || len(r.MissingKeys) > 0) {
			return r, true
		}
	}
	return tools.ConfigRef{}, false
}

// subPathKeyMissing finds a subPath mount of a whole ConfigMap or Secret volume whose key
// the object does not have: the kubelet cannot prepare the file ("failed to prepare subPath").
func (pc *podCheck) subPathKeyMissing(ctx context.Context) (tools.ConfigRef, bool) {
	vols := map[string]corev1.Volume{}
	for _, v := range pc.pod.Spec.Volumes {
		vols[v.Name] = v
	}
	for _, c := range append(append([]corev1.Container(nil), pc.pod.Spec.InitContainers...), pc.pod.Spec.Containers...) {
		for _, m := range c.VolumeMounts {
			v, ok := vols[m.Name]
			if m.SubPath == "" || !ok {
				continue
			}
			key, _, _ := strings.Cut(m.SubPath, "/")
			var r tools.ConfigRef
			switch {
			case v.ConfigMap != nil && len(v.ConfigMap.Items) == 0 && (v.ConfigMap.Optional == nil || !*v.ConfigMap.Optional):
				r = tools.ConfigRef{Kind: "ConfigMap", Name: v.ConfigMap.Name}
			case v.Secret != nil && len(v.Secret.Items) == 0 && (v.Secret.Optional == nil || !*v.Secret.Optional):
				r = tools.ConfigRef{Kind: "Secret", Name: v.Secret.SecretName}
			default:
				continue
			}
			obj, err := pc.e.get(ctx, r.Kind, r.Name)
			if err != nil {
				continue // a missing object is reported by the reference check
			}
			have := objectKeys(obj)
			if containsStr(have, key) {
				continue
			}
			r.Checked, r.Exists, r.Keys, r.KeysPresent, r.MissingKeys = true, true, []string{key}, have, []string{key}
			r.UsedBy = []string{fmt.Sprintf("subPath %s of volume %s mounted at %s in container %s", m.SubPath, m.Name, m.MountPath, c.Name)}
			return r, true
		}
	}
	return tools.ConfigRef{}, false
}

// owned names the pod with the workload a user edits: "pod web-7d9-x of Deployment web".
func (pc *podCheck) owned(wl ObjectRef) string {
	if wl.IsZero() || wl.Kind == "Pod" {
		return "pod " + pc.pod.Name
	}
	return "pod " + pc.pod.Name + " of " + wl.Kind + " " + wl.Name
}

// blockedBy says, in the kubelet's words, what a missing configuration does to the
// container: the waiting reason it reports, or the FailedMount events of a volume.
func (pc *podCheck) blockedBy(ctx context.Context, container string) string {
	for _, cs := range allStatuses(pc.pod) {
		if cs.Name == container && cs.State.Waiting != nil && cs.State.Waiting.Reason == "CreateContainerConfigError" {
			return "the container cannot be created (CreateContainerConfigError)"
		}
	}
	if g := tools.EventsMention(pc.events(ctx), "FailedMount"); g != nil {
		return fmt.Sprintf("the kubelet cannot mount the volume (FailedMount, x%d), so the pod stays in ContainerCreating", g.Count)
	}
	return "the container cannot be created"
}

// namesOf lists the names of the namespace's ConfigMaps or Secrets (names only: a Secret's
// values are never read into a finding).
func (pc *podCheck) namesOf(ctx context.Context, kind string) []string {
	var names []string
	switch kind {
	case "ConfigMap":
		if cms, err := listOnce[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", scanMaxObjects); err == nil {
			for _, c := range cms {
				names = append(names, c.Name)
			}
		}
	case "Secret":
		if ss, err := listOnce[*corev1.Secret](ctx, pc.e, "Secret", scanMaxObjects); err == nil {
			for _, s := range ss {
				names = append(names, s.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}
