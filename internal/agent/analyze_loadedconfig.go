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

	"github.com/kubage/kubage/internal/tools"
)

// Applications say which configuration file they load ("Loaded your LOCAL configuration at
// [/app/pythonpath/superset_config.py]", "loading config from /etc/app/app.yaml", "please
// use settings.py to override it"). When the error is about a setting no env entry gives,
// and the log names a file the container mounts from a ConfigMap or Secret, that key is
// where the setting belongs: the application reads it there. Secret values stay unread;
// only the key's name is matched.

// maxLoadedLines bounds the log lines searched for the file an application loads.
const maxLoadedLines = 200

// loadedFile is a mounted ConfigMap or Secret key a container's log names.
type loadedFile struct {
	ref  ObjectRef
	key  string
	path string // where the container reads it
}

// loadedConfigFile finds the first mounted ConfigMap or Secret key the container's log
// names, by its path or by its bare file name.
func (pc *podCheck) loadedConfigFile(ctx context.Context, d *depCheck) *loadedFile {
	lines := pc.logTail(d.cs.Name)
	mounted := pc.mountedKeys(ctx, d.spec)
	if len(mounted) == 0 {
		return nil
	}
	for _, l := range lines {
		l = clipBytes(l, maxClueLineLen)
		for _, m := range pathRe.FindAllStringSubmatch(l, 4) {
			for _, f := range mounted {
				if f.path == m[1] {
					return &f
				}
			}
		}
		// A bare file name counts when it is one (it has an extension): "config" is a word.
		for _, f := range mounted {
			if base := path.Base(f.path); strings.Contains(strings.Trim(base, "."), ".") && hasToken(l, base) {
				return &f
			}
		}
	}
	return nil
}

// mountedKeys lists the keys of the ConfigMaps and Secrets container c mounts as whole
// volumes or single files, each with the path the container reads it at.
func (pc *podCheck) mountedKeys(ctx context.Context, c corev1.Container) []loadedFile {
	var out []loadedFile
	for _, m := range c.VolumeMounts {
		var vol *corev1.Volume
		for i := range pc.pod.Spec.Volumes {
			if pc.pod.Spec.Volumes[i].Name == m.Name {
				vol = &pc.pod.Spec.Volumes[i]
			}
		}
		if vol == nil {
			continue
		}
		var ref ObjectRef
		var keys []string
		var items []corev1.KeyToPath
		switch {
		case vol.ConfigMap != nil:
			cm, err := getAs[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", vol.ConfigMap.Name)
			if err != nil {
				continue
			}
			ref, keys, items = pc.e.ref("ConfigMap", cm.Name), sortedKeys(cm.Data), vol.ConfigMap.Items
		case vol.Secret != nil:
			s, err := getAs[*corev1.Secret](ctx, pc.e, "Secret", vol.Secret.SecretName)
			if err != nil {
				continue
			}
			ref, keys, items = pc.e.ref("Secret", s.Name), tools.SecretKeys(s), vol.Secret.Items
		default:
			continue
		}
		for _, k := range keys {
			file := k
			if len(items) > 0 {
				file = ""
				for _, it := range items {
					if it.Key == k {
						file = it.Path
					}
				}
			}
			switch {
			case file == "":
				continue
			case m.SubPath != "" && m.SubPath != file:
				continue
			case m.SubPath != "":
				out = append(out, loadedFile{ref: ref, key: k, path: m.MountPath})
			default:
				out = append(out, loadedFile{ref: ref, key: k, path: strings.TrimSuffix(m.MountPath, "/") + "/" + file})
			}
			if len(out) >= maxSourceObjects*8 {
				return out
			}
		}
	}
	return out
}

// settingInLoadedFile reports a setting no env entry gives as belonging in the mounted file
// the application's log says it loads.
func (pc *podCheck) settingInLoadedFile(ctx context.Context, d *depCheck, key string, facts map[string]string) bool {
	f := pc.loadedConfigFile(ctx, d)
	if f == nil {
		return false
	}
	facts["sourceResource"], facts["path"] = kubectlResource(f.ref), f.path
	d.evIDs = append(d.evIDs, pc.e.objEvidence(f.ref, fmt.Sprintf("%s %s key %s is mounted at %s", f.ref.Kind, f.ref.Name, f.key, f.path)))
	d.report(ctx, "config-value-missing", 0, f.ref, fmt.Sprintf("%s: the setting %s is in none of its env entries; the application reads its configuration from %s, key %s of %s %s (its log names the file), so set %s there and restart the pods.",
		d.opening(), key, f.path, f.key, f.ref.Kind, f.ref.Name, key), nil, []ObjectRef{f.ref}, facts)
	return true
}

// storageLine is the last line of a server's log that says why it cannot write its data (no
// space left, permission denied, a read-only file system), or "".
func (e *env) storageLine(ctx context.Context, p *corev1.Pod, container string) string {
	lines := lastN(textLines(e.logs(ctx, p.Name, container, false)), maxLoadedLines)
	for i := len(lines) - 1; i >= 0; i-- {
		if _, class := ScoreLine(lines[i]); class == ErrDisk || class == ErrPermission {
			return tools.Sanitize(quoteWindow(lines[i], class), maxClueLine, true)
		}
	}
	return ""
}

// logTail is the last maxLoadedLines lines of the container's log the pod check read.
func (pc *podCheck) logTail(container string) []string {
	return lastN(pc.lines[container], maxLoadedLines)
}

func lastN(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}
