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
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// fullVolumeUnnamed handles "no space left on device" whose path names no mount: a path
// relative to the application's data or working directory ("pg_wal/xlogtemp.29"), or no path
// at all. The relative path is resolved against the container's workingDir and against the
// absolute directories its env names (PGDATA=/var/lib/postgresql/data/pgdata); failing that,
// the container's only writable persistent volume is the one that filled up. Read-only
// mounts, ConfigMaps, Secrets and projected volumes cannot be filled by the application.
func (pc *podCheck) fullVolumeUnnamed(ctx context.Context, d *depCheck) bool {
	if d.clue.Class != ErrDisk {
		return false
	}
	type cand struct {
		m   *corev1.VolumeMount
		vol *corev1.Volume
		why string
	}
	var writable []cand
	for i := range d.spec.VolumeMounts {
		m := &d.spec.VolumeMounts[i]
		if m.ReadOnly {
			continue
		}
		for j := range pc.pod.Spec.Volumes {
			v := &pc.pod.Spec.Volumes[j]
			if v.Name == m.Name && (v.PersistentVolumeClaim != nil || v.EmptyDir != nil || v.Ephemeral != nil) {
				writable = append(writable, cand{m: m, vol: v})
			}
		}
	}
	if len(writable) == 0 {
		return false
	}
	// Directories the relative paths may be relative to.
	type base struct{ dir, from string }
	var dirs []base
	for _, ev := range d.spec.Env {
		if strings.HasPrefix(ev.Value, "/") && !strings.ContainsAny(ev.Value, " :,;") {
			dirs = append(dirs, base{path.Clean(ev.Value), "env " + ev.Name + "=" + ev.Value})
		}
	}
	if strings.HasPrefix(d.spec.WorkingDir, "/") {
		dirs = append(dirs, base{path.Clean(d.spec.WorkingDir), "workingDir " + d.spec.WorkingDir})
	}
	var pick *cand
	for _, m := range quotedRelPath.FindAllStringSubmatch(d.clue.Line, 3) {
		p := m[1]
		for _, dir := range dirs {
			full := path.Join(dir.dir, p)
			if m, vol := mountFor(d.spec, pc.pod, full); m != nil && !m.ReadOnly {
				for i := range writable {
					if writable[i].m.Name == m.Name && vol != nil {
						c := writable[i]
						c.why = fmt.Sprintf("%s, relative to %s, lies on the volume mounted at %s", p, dir.from, m.MountPath)
						pick = &c
						break
					}
				}
			}
			if pick != nil {
				break
			}
		}
		if pick != nil {
			break
		}
	}
	if pick == nil {
		var claims []cand
		for _, c := range writable {
			if c.vol.PersistentVolumeClaim != nil || c.vol.Ephemeral != nil {
				claims = append(claims, c)
			}
		}
		switch {
		case len(claims) == 1:
			pick = &claims[0]
		case len(claims) == 0 && len(writable) == 1:
			pick = &writable[0]
		default:
			return false // several candidates and nothing to choose between them
		}
		pick.why = fmt.Sprintf("the error names no mounted path, and %s is the only writable %s volume of container %s", pick.m.MountPath, storageKind(pick.vol), d.spec.Name)
	}
	return pc.reportFull(ctx, d, pick.m, pick.vol, pick.why)
}

// quotedRelPath is a quoted relative file path ("pg_wal/xlogtemp.29", './binlog.000042'):
// servers name files relative to their data or working directory. Absolute paths are the
// clue's Paths, judged by missingFiles.
var quotedRelPath = regexp.MustCompile("[\"'\x60](\\.{0,2}/?[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,100}(?:/[A-Za-z0-9._@-]{1,100}){0,8})[\"'\x60]")

// storageKind says whether a writable volume outlives its pod.
func storageKind(v *corev1.Volume) string {
	if v.EmptyDir != nil {
		return "emptyDir"
	}
	return "persistent"
}

// reportFull reports the volume behind mount m as full; why says how the mount was found.
func (pc *podCheck) reportFull(ctx context.Context, d *depCheck, m *corev1.VolumeMount, vol *corev1.Volume, why string) bool {
	e := pc.e
	facts := map[string]string{"path": m.MountPath}
	if why != "" {
		why = " (" + why + ")"
	}
	switch {
	case vol.PersistentVolumeClaim != nil, vol.Ephemeral != nil:
		claim := pc.pod.Name + "-" + vol.Name // generic ephemeral volumes: <pod>-<volume>
		if vol.PersistentVolumeClaim != nil {
			claim = vol.PersistentVolumeClaim.ClaimName
		}
		ref := e.ref("PersistentVolumeClaim", claim)
		size := "?"
		if c, err := getAs[*corev1.PersistentVolumeClaim](ctx, e, "PersistentVolumeClaim", ref.Name); err == nil {
			if q, ok := c.Status.Capacity[corev1.ResourceStorage]; ok {
				size = q.String()
			} else if q, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
				size = q.String()
			}
		}
		facts["claim"], facts["size"], facts["sourceResource"] = ref.Name, size, kubectlResource(ref)
		cause, extra := pc.walArchiveCause(ctx, d)
		if cause != "" {
			cause += "."
		}
		d.report(ctx, "volume-full", 0, ref, fmt.Sprintf("%s: the file system at %s is PersistentVolumeClaim %s (%s), and it is full%s.%s Expand the claim (if its StorageClass allows volume expansion) or free space on it.",
			d.opening(), m.MountPath, ref.Name, size, why, cause), nil, append([]ObjectRef{ref}, extra...), facts)
		return true
	case vol.EmptyDir != nil:
		limit := "no sizeLimit"
		if vol.EmptyDir.SizeLimit != nil {
			limit = "sizeLimit " + vol.EmptyDir.SizeLimit.String()
		}
		wl := e.workloadOf(ctx, pc.pod)
		facts["size"], facts["sourceResource"] = limit, kubectlResource(wl)
		d.report(ctx, "volume-full", 0, wl, fmt.Sprintf("%s: %s is emptyDir volume %s (%s) and it is full%s.", d.opening(), m.MountPath, vol.Name, limit, why), nil, nil, facts)
		return true
	}
	return false
}
