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

	corev1 "k8s.io/api/core/v1"
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
		if _, exists, known := idx.lookup(ctx, "StorageClass", *sc); known && !exists && !e.staticClass(ctx, *sc) {
			out = append(out, dangling{user: u, rule: "pvc-storageclass-missing", missing: e.ref("StorageClass", *sc), what: "volumeClaimTemplate " + t.Name,
				facts: map[string]string{"storageClass": *sc, "claim": t.Name}})
		}
	}
	return out
}

// staticClass reports whether PersistentVolumes carry the class name: a name no StorageClass
// holds still binds claims to pre-created volumes of that name ("manual" in the docs), so it is
// no dangling reference. A Pending claim of such a class is explained by the volume that
// almost serves it (explainNearMiss), not here.
func (e *env) staticClass(ctx context.Context, class string) bool {
	pvs, err := listOnce[*corev1.PersistentVolume](ctx, e, "PersistentVolume", maxPVList)
	if err != nil {
		return false
	}
	for _, pv := range pvs {
		if pv.Spec.StorageClassName == class {
			return true
		}
	}
	return false
}

// maxPVList bounds the PersistentVolumes a task reads, once: a Pending claim's checks (a
// volume that serves it, the one that almost does, a static class) share the list.
const maxPVList = 500
