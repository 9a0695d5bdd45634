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
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// "Permission denied" or "read-only file system" on a path the application writes: the path
// is matched to the container's volumeMounts, and the pod spec says why it is not writable
// (a readOnly mount, a ConfigMap or Secret volume, a read-only root file system, or a user
// that does not own the volume's files).

// mountNotWritable reports the spec setting that makes a path in the error line read-only.
func (pc *podCheck) mountNotWritable(ctx context.Context, d *depCheck) bool {
	wl := pc.e.workloadOf(ctx, pc.pod)
	low := strings.ToLower(d.clue.Line)
	readOnlyFS := strings.Contains(low, "read-only file system") || strings.Contains(low, "erofs")
	for i, p := range d.clue.Paths {
		if i >= 3 {
			break
		}
		why, where := pc.notWritableBecause(d.spec, p, readOnlyFS)
		if why == "" {
			continue
		}
		facts := map[string]string{"path": p, "sourceResource": kubectlResource(wl), "where": where}
		d.report(ctx, "mount-not-writable", 0, wl, fmt.Sprintf("%s: %s %s; %s in %s %s.", d.opening(), p, why, where, wl.Kind, wl.Name), nil, nil, facts)
		return true
	}
	return false
}

// notWritableBecause explains why path p is not writable for container c, and what to change.
func (pc *podCheck) notWritableBecause(c corev1.Container, p string, readOnlyFS bool) (string, string) {
	m, vol := mountFor(c, pc.pod, p)
	if m == nil {
		if readOnlyFS && c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem {
			return "is on the container's root file system, which securityContext.readOnlyRootFilesystem makes read-only",
				fmt.Sprintf("mount a writable volume (an emptyDir) at its directory in container %s", c.Name)
		}
		return "", ""
	}
	switch {
	case m.ReadOnly:
		return fmt.Sprintf("is on volume %s, mounted at %s with readOnly: true", m.Name, m.MountPath),
			fmt.Sprintf("remove readOnly from that volumeMount of container %s (or write elsewhere)", c.Name)
	case vol.ConfigMap != nil || vol.Secret != nil || vol.DownwardAPI != nil || vol.Projected != nil:
		return fmt.Sprintf("is on volume %s (%s) at %s, which the kubelet always mounts read-only", m.Name, volumeKind(vol), m.MountPath),
			fmt.Sprintf("give container %s an emptyDir for the files it writes", c.Name)
	case readOnlyFS:
		return "", ""
	}
	user := runAsUser(c, pc.pod)
	if user != "" && (pc.pod.Spec.SecurityContext == nil || pc.pod.Spec.SecurityContext.FSGroup == nil) && vol.EmptyDir == nil {
		// An emptyDir is created world-writable; claims and host paths keep their owner.
		return fmt.Sprintf("is on volume %s at %s, and the container runs as user %s with no fsGroup, so the volume's files are not writable by it", m.Name, m.MountPath, user),
			"set securityContext.fsGroup (or the volume's ownership) to match"
	}
	return "", ""
}

// readOnlyScratch reports, without the application's words, an emptyDir the container mounts
// read-only while no container of the pod mounts it writable: nothing can ever put a file in
// it, so whatever the application writes there fails with "read-only file system". An empty
// read-only directory is sometimes used to hide part of an image, so this is only said of a
// container that fails quietly or whose logs cannot be read (caller's choice), capped low.
func (pc *podCheck) readOnlyScratch(ctx context.Context, d *depCheck) bool {
	writable := map[string]bool{}
	for _, c := range append(append([]corev1.Container(nil), pc.pod.Spec.InitContainers...), pc.pod.Spec.Containers...) {
		for _, m := range c.VolumeMounts {
			if !m.ReadOnly {
				writable[m.Name] = true
			}
		}
	}
	for _, m := range d.spec.VolumeMounts {
		v := volumeNamed(pc.pod, m.Name)
		if !m.ReadOnly || writable[m.Name] || v == nil || v.EmptyDir == nil {
			continue
		}
		wl := pc.e.workloadOf(ctx, pc.pod)
		dd := *d
		if dd.conf == 0 || dd.conf > readOnlyScratchConfidence {
			dd.conf = readOnlyScratchConfidence
		}
		facts := map[string]string{"path": m.MountPath, "sourceResource": kubectlResource(wl),
			"where": fmt.Sprintf("remove readOnly from the volumeMount %s of container %s", m.Name, d.spec.Name)}
		dd.report(ctx, "mount-not-writable", 0, wl, fmt.Sprintf("%s: it mounts emptyDir volume %s at %s with readOnly: true, and no container of the pod mounts that volume writable, so the directory stays empty and every write under %s fails with \u201cread-only file system\u201d; %s in %s %s.",
			d.opening(), m.Name, m.MountPath, m.MountPath, facts["where"], wl.Kind, wl.Name), nil, nil, facts)
		return true
	}
	return false
}

// readOnlyScratchConfidence caps a read-only emptyDir blamed on the spec alone.
const readOnlyScratchConfidence = 60

func volumeNamed(p *corev1.Pod, name string) *corev1.Volume {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == name {
			return &p.Spec.Volumes[i]
		}
	}
	return nil
}

func volumeKind(v *corev1.Volume) string {
	switch {
	case v.ConfigMap != nil:
		return "ConfigMap " + v.ConfigMap.Name
	case v.Secret != nil:
		return "Secret " + v.Secret.SecretName
	case v.DownwardAPI != nil:
		return "downwardAPI"
	}
	return "projected"
}

// runAsUser is the user a container runs as when the spec sets one.
func runAsUser(c corev1.Container, p *corev1.Pod) string {
	if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
		return fmt.Sprint(*c.SecurityContext.RunAsUser)
	}
	if p.Spec.SecurityContext != nil && p.Spec.SecurityContext.RunAsUser != nil {
		return fmt.Sprint(*p.Spec.SecurityContext.RunAsUser)
	}
	return ""
}

// keyTooOpen is a program refusing a key or certificate file whose mode lets others read it:
// OpenSSH ("Permissions 0644 for '/root/.ssh/id_rsa' are too open", "Load key "…": bad
// permissions") and PostgreSQL ("private key file "…" has group or world access").
var keyTooOpen = regexp.MustCompile(`(?i)permissions (?:0?[0-7]{3,4}) for '([^']{1,256})' are too open|load key "([^"]{1,256})": bad permissions|private key file "([^"]{1,256})" has group or world access`)

// keyFileTooOpen reports a key file, mounted from a Secret or ConfigMap, that its program
// ignores because the volume's mode (defaultMode, or the item's mode) lets others read it.
func (pc *podCheck) keyFileTooOpen(ctx context.Context, d *depCheck) bool {
	text := append([]string{d.clue.Line}, pc.lines[d.cs.Name]...)
	if t := lastTermination(d.cs); t != nil {
		text = append(text, strings.Split(clipString(t.Message, 4000), "\n")...)
	}
	var file, said string
	for _, l := range text {
		if m := keyTooOpen.FindStringSubmatch(clipBytes(l, maxClueLineLen)); m != nil {
			file, said = m[1]+m[2]+m[3], strings.TrimSpace(m[0])
			break
		}
	}
	if file == "" {
		return false
	}
	mnt, vol := mountFor(d.spec, pc.pod, file)
	if mnt == nil || vol == nil {
		return false
	}
	var src ObjectRef
	var mode *int32
	key := strings.TrimPrefix(strings.TrimPrefix(file, strings.TrimSuffix(mnt.MountPath, "/")), "/")
	if mnt.SubPath != "" {
		key = mnt.SubPath
	}
	switch {
	case vol.Secret != nil:
		src, mode = pc.e.ref("Secret", vol.Secret.SecretName), vol.Secret.DefaultMode
		for _, it := range vol.Secret.Items {
			if it.Path == key && it.Mode != nil {
				mode = it.Mode
			}
		}
	case vol.ConfigMap != nil:
		src, mode = pc.e.ref("ConfigMap", vol.ConfigMap.Name), vol.ConfigMap.DefaultMode
	default:
		return false
	}
	m := int32(0o644) // the API server's default for both
	if mode != nil {
		m = *mode
	}
	if m&0o077 == 0 {
		return false // only the owner may read it: not this
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"path": file, "sourceResource": kubectlResource(wl), "volume": vol.Name, "mode": fmt.Sprintf("%04o", m)}
	d.report(ctx, "key-file-mode-too-open", 0, wl, fmt.Sprintf("%s: %q: %s is mounted from %s %s by volume %s with defaultMode %04o (decimal %d), which lets group and others read it, so the program ignores the key. Set defaultMode (or the item's mode) to 0400 (decimal 256) in %s %s, and a securityContext fsGroup/runAsUser that owns it.",
		d.opening(), tools.Sanitize(said, 200, true), file, src.Kind, src.Name, vol.Name, m, m, wl.Kind, wl.Name), nil, []ObjectRef{src}, facts)
	return true
}
