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

// An error that names a file the container reads from a mounted ConfigMap ("rule evaluation
// failed" file=/etc/app/rules/x.yaml, "invalid value in /config/app.toml") is about what
// that file says: the ConfigMap key behind the path is where the fix goes, even when the
// file parses and nothing else in the cluster is broken.

// configFileNamed finds the ConfigMap key mounted at a path the clue names.
func (pc *podCheck) configFileNamed(ctx context.Context, d *depCheck) (ref ObjectRef, key, path string) {
	for i, p := range d.clue.Paths {
		if i >= 3 {
			break
		}
		m, vol := mountFor(d.spec, pc.pod, p)
		if m == nil || vol == nil || vol.ConfigMap == nil && vol.Projected == nil {
			continue
		}
		file := strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(m.MountPath, "/")), "/")
		if m.SubPath != "" {
			file = m.SubPath
		}
		if file == "" || strings.Contains(file, "/") {
			continue // the mount itself, or a directory inside it: no one key
		}
		if vol.Projected != nil {
			if pf := pc.projectedSource(ctx, vol.Projected, file); pf.found && pf.kind == "ConfigMap" {
				return pc.e.ref("ConfigMap", pf.name), pf.key, p
			}
			continue
		}
		k := file
		for _, it := range vol.ConfigMap.Items {
			if it.Path == file {
				k = it.Key
			}
		}
		cm, err := getAs[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", vol.ConfigMap.Name)
		if err != nil {
			continue
		}
		if _, ok := cm.Data[k]; ok {
			return pc.e.ref("ConfigMap", cm.Name), k, p
		}
	}
	return ObjectRef{}, "", ""
}

// reportNamedConfigFile reports a running workload's repeated error as one about the
// ConfigMap key mounted at the file it names.
func (pc *podCheck) reportNamedConfigFile(ctx context.Context, d *depCheck) bool {
	ref, key, p := pc.configFileNamed(ctx, d)
	if ref.IsZero() {
		return false
	}
	d.report(ctx, "app-error-logged", 0, ref, fmt.Sprintf("%s; the error is about %s, key %s of ConfigMap %s mounted into the container: the application rejects what that file says, so fix the key in the ConfigMap.",
		d.opening(), p, key, ref.Name), nil, []ObjectRef{ref}, map[string]string{"repeats": fmt.Sprint(d.clue.Repeats), "path": p, "key": key, "sourceResource": kubectlResource(ref)})
	return true
}
