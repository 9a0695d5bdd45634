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

// untypedPullSecret is the first pull secret of the pod that exists but is of a type the
// kubelet does not read credentials from (an Opaque Secret holding a .dockerconfigjson key),
// with its type.
func (pc *podCheck) untypedPullSecret(ctx context.Context) (string, string) {
	for _, ref := range pc.pod.Spec.ImagePullSecrets {
		s, err := getAs[*corev1.Secret](ctx, pc.e, "Secret", ref.Name)
		if err != nil {
			continue
		}
		if s.Type != corev1.SecretTypeDockerConfigJson && s.Type != corev1.SecretTypeDockercfg {
			t := string(s.Type)
			if t == "" {
				t = string(corev1.SecretTypeOpaque)
			}
			return s.Name, t
		}
	}
	return "", ""
}

func firstPullSecret(p *corev1.Pod) string {
	if len(p.Spec.ImagePullSecrets) > 0 {
		return p.Spec.ImagePullSecrets[0].Name
	}
	return "regcred"
}
