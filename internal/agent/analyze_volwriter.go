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
