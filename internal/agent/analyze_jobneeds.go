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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A Job that runs out of its activeDeadlineSeconds before any pod failed leaves no failed pod
// to read: the Job controller deletes its active pods. When they never started, the reason is
// usually in what the pod template needs from the namespace: a claim that never binds, a
// ConfigMap or Secret volume that does not exist. Those objects outlive the pods.

// jobTemplateBlockers lists what the Job's pod template mounts that was not there to mount
// (at most 3) and says why in a clause.
func jobTemplateBlockers(ctx context.Context, e *env, j *batchv1.Job) ([]ObjectRef, string) {
	var refs []ObjectRef
	var why []string
	for _, v := range j.Spec.Template.Spec.Volumes {
		if len(refs) == 3 {
			break
		}
		switch {
		case v.PersistentVolumeClaim != nil:
			name := v.PersistentVolumeClaim.ClaimName
			c, err := getAs[*corev1.PersistentVolumeClaim](ctx, e, "PersistentVolumeClaim", name)
			switch {
			case tools.IsNotFound(err):
				why = append(why, fmt.Sprintf("PersistentVolumeClaim %s (volume %s) does not exist", name, v.Name))
			case err != nil || c.Status.Phase == corev1.ClaimBound:
				continue
			default:
				why = append(why, fmt.Sprintf("PersistentVolumeClaim %s (volume %s) is %s, not Bound", name, v.Name, orDefault(string(c.Status.Phase), "Pending")))
			}
			refs = append(refs, e.ref("PersistentVolumeClaim", name))
		case v.ConfigMap != nil && (v.ConfigMap.Optional == nil || !*v.ConfigMap.Optional):
			if _, err := getAs[*corev1.ConfigMap](ctx, e, "ConfigMap", v.ConfigMap.Name); tools.IsNotFound(err) {
				why = append(why, fmt.Sprintf("ConfigMap %s (volume %s) does not exist", v.ConfigMap.Name, v.Name))
				refs = append(refs, e.ref("ConfigMap", v.ConfigMap.Name))
			}
		case v.Secret != nil && (v.Secret.Optional == nil || !*v.Secret.Optional):
			if _, err := getAs[*corev1.Secret](ctx, e, "Secret", v.Secret.SecretName); tools.IsNotFound(err) {
				why = append(why, fmt.Sprintf("Secret %s (volume %s) does not exist", v.Secret.SecretName, v.Name))
				refs = append(refs, e.ref("Secret", v.Secret.SecretName))
			}
		}
	}
	if len(refs) == 0 {
		return nil, ""
	}
	return refs, " No pod of it failed: its pods could not start, because " + strings.Join(why, "; ") + ", so the deadline ran out while they waited"
}
