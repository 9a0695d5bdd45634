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
)

// statefulSetRefs checks the StorageClasses a StatefulSet's claim templates name (the
// governing Service is checked by the StatefulSet analyzer).
func (e *env) statefulSetRefs(ctx context.Context, idx *refIndex, u *templateUser) []dangling {
	var out []dangling
	for _, t := range u.sts.Spec.VolumeClaimTemplates {
		sc := t.Spec.StorageClassName
		if sc == nil || *sc == "" {
			continue
		}
		if _, exists, known := idx.lookup(ctx, "StorageClass", *sc); known && !exists {
			out = append(out, dangling{user: u, rule: "pvc-storageclass-missing", missing: e.ref("StorageClass", *sc), what: "volumeClaimTemplate " + t.Name,
				facts: map[string]string{"storageClass": *sc, "claim": t.Name}})
		}
	}
	return out
}
