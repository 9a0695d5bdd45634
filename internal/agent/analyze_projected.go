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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A projected volume merges several ConfigMaps and Secrets into one directory: a file in it
// comes from whichever source provides that name (its key, or an item's path). Secrets are
// read for their key names only.

// projectedFile is what a projected volume shows at file.
type projectedFile struct {
	found      bool     // some source provides the file
	kind, name string   // the source that provides it, or the first source when none does
	key        string   // the key behind the file when found
	files      []string // every file the volume shows
}

// projectedSource resolves file in projected volume v.
func (pc *podCheck) projectedSource(ctx context.Context, v *corev1.ProjectedVolumeSource, file string) projectedFile {
	var out projectedFile
	near := false
	for _, s := range v.Sources {
		var kind, name string
		var keys []string
		var items []corev1.KeyToPath
		switch {
		case s.ConfigMap != nil:
			kind, name, items = "ConfigMap", s.ConfigMap.Name, s.ConfigMap.Items
			c, err := getAs[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", name)
			if err != nil {
				continue
			}
			keys = append(sortedKeys(c.Data), sortedKeys(c.BinaryData)...)
		case s.Secret != nil:
			kind, name, items = "Secret", s.Secret.Name, s.Secret.Items
			sec, err := getAs[*corev1.Secret](ctx, pc.e, "Secret", name)
			if err != nil {
				continue
			}
			keys = tools.SecretKeys(sec)
		default:
			continue
		}
		// With no source providing the file, the one holding a key like it is the likelier
		// fault, else the first.
		if !out.found && (out.name == "" || !near && len(similarKeys(file, keys)) > 0) {
			out.kind, out.name = kind, name
			near = len(similarKeys(file, keys)) > 0
		}
		shown := map[string]string{} // file → key
		if len(items) > 0 {
			for _, it := range items {
				if containsStr(keys, it.Key) {
					shown[it.Path] = it.Key
				}
			}
		} else {
			for _, k := range keys {
				shown[k] = k
			}
		}
		for f, k := range shown {
			out.files = append(out.files, f)
			if f == file || strings.HasPrefix(f, file+"/") {
				out.found, out.kind, out.name, out.key = true, kind, name, k
			}
		}
	}
	sort.Strings(out.files)
	return out
}
