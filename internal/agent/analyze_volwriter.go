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
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A container that waits for a file another container of its pod writes into a shared
// volume (a Vault agent's rendered secrets, git-sync's checkout, a config renderer) fails with
// "file did not appear", and the reason is in the writer's log: the writer is read and its
// error followed with the same mechanisms as any container's.

// volumeWriter follows a missing file under a shared emptyDir to the other containers that
// mount it.
func (pc *podCheck) volumeWriter(ctx context.Context, d *depCheck) bool {
	e := pc.e
	if e.inWriter || len(d.clue.Paths) == 0 {
		return false
	}
	vols := map[string]*corev1.Volume{}
	for i := range pc.pod.Spec.Volumes {
		vols[pc.pod.Spec.Volumes[i].Name] = &pc.pod.Spec.Volumes[i]
	}
	shared := ""
	for _, path := range d.clue.Paths {
		for _, m := range d.spec.VolumeMounts {
			mp := strings.TrimRight(m.MountPath, "/")
			if v := vols[m.Name]; v != nil && v.EmptyDir != nil && (path == mp || strings.HasPrefix(path, mp+"/")) {
				shared = m.Name
			}
		}
	}
	if shared == "" {
		return false
	}
	statuses := map[string]corev1.ContainerStatus{}
	for _, s := range append(append([]corev1.ContainerStatus{}, pc.pod.Status.InitContainerStatuses...), pc.pod.Status.ContainerStatuses...) {
		statuses[s.Name] = s
	}
	for _, c := range append(append([]corev1.Container{}, pc.pod.Spec.InitContainers...), pc.pod.Spec.Containers...) {
		if c.Name == d.cs.Name || !mountsVolume(c, shared) {
			continue
		}
		lr := e.logs(ctx, pc.pod.Name, c.Name, false)
		clue := ExtractClues(textLines(lr))
		if !clue.IsError() {
			continue
		}
		dd := &depCheck{pc: pc, cs: statuses[c.Name], spec: c, clue: clue, evIDs: d.evIDs,
			symptom: fmt.Sprintf("writes volume %s, which container %s waits on (%s), and fails", shared, d.cs.Name, quoteClue(d.clue))}
		e.inWriter = true
		ok := pc.followClue(ctx, dd)
		e.inWriter = false
		if ok {
			return true
		}
	}
	return pc.writerNotAsked(ctx, d, shared, statuses)
}

// writerNotAsked handles a file missing from a shared volume whose writer reported no error:
// an init container that exited 0 (or a running sidecar) wrote what its settings asked for,
// and the setting that lists what it produces shares the missing file's distinctive words
// without naming it (GEOIPUPDATE_EDITION_IDS = "GeoLite2-ASN GeoLite2-Country" for a missing
// GeoLite2-City.mmdb): that setting is where the file is added.
func (pc *podCheck) writerNotAsked(ctx context.Context, d *depCheck, shared string, statuses map[string]corev1.ContainerStatus) bool {
	e := pc.e
	missing := ""
	for _, p := range d.clue.Paths {
		if ext := path.Ext(p); ext != "" && len(p) > len(ext)+1 {
			missing = p
			break
		}
	}
	if missing == "" {
		return false
	}
	stem := strings.TrimSuffix(path.Base(missing), path.Ext(missing))
	var distinct []string
	for _, w := range nameWords(stem) {
		if len(w) >= 4 {
			distinct = append(distinct, w)
		}
	}
	if len(distinct) == 0 || len(nameWords(stem)) < 2 {
		return false // one word alone ("config") says nothing of a family of products
	}
	wl := e.workloadOf(ctx, pc.pod)
	for _, c := range append(append([]corev1.Container{}, pc.pod.Spec.InitContainers...), pc.pod.Spec.Containers...) {
		st, ok := statuses[c.Name]
		if c.Name == d.cs.Name || !mountsVolume(c, shared) || !ok {
			continue
		}
		done := st.State.Terminated != nil && st.State.Terminated.ExitCode == 0 || st.State.Running != nil && !isInitContainer(pc.pod, c.Name)
		if !done {
			continue
		}
		for _, s := range e.configSettings(ctx, pc.pod, c, wl) {
			low := strings.ToLower(s.value)
			if s.secret || low == "" || strings.Contains(low, strings.ToLower(stem)) {
				continue
			}
			words := map[string]bool{}
			for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !isLetter(byte(r)) && !isDigit(byte(r)) }) {
				words[w] = true
			}
			common := 0
			for _, w := range distinct {
				if words[w] {
					common++
				}
			}
			if common == 0 || !strings.ContainsAny(s.value, " ,;") {
				continue // a list of products, sharing the file's family words
			}
			kind := "init container"
			if !isInitContainer(pc.pod, c.Name) {
				kind = "container"
			}
			d.evIDs = append(d.evIDs, e.objEvidence(s.ref, s.where+": "+s.value))
			d.report(ctx, "config-file-missing", 0, s.ref, fmt.Sprintf("%s: the file %s is missing from volume %s, which %s %s fills; that writer finished without an error, so it wrote what its settings ask for: %s = %s (%s) lists no %s. Add %s to %s there, then restart %s %s.",
				d.opening(), missing, shared, kind, c.Name, s.name, clipString(s.value, 120), s.where, stem, stem, s.name, wl.Kind, wl.Name),
				nil, []ObjectRef{s.ref, wl}, map[string]string{"path": missing, "key": s.name, "sourceResource": kubectlResource(s.ref)})
			return true
		}
	}
	return false
}

func mountsVolume(c corev1.Container, name string) bool {
	for _, m := range c.VolumeMounts {
		if m.Name == name {
			return true
		}
	}
	return false
}
