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

// hiddenAccountPullSecrets reports the imagePullSecrets of the pod's ServiceAccount that the
// pod does not carry because it lists its own: the ServiceAccount admission adds the
// account's only to a pod that names none, so a template that adds one (for a sidecar's
// registry) silently drops the account's. It returns the account and the secrets dropped.
func (pc *podCheck) hiddenAccountPullSecrets(ctx context.Context) (string, []string) {
	own := pc.pod.Spec.ImagePullSecrets
	if len(own) == 0 {
		return "", nil
	}
	name := orDefault(pc.pod.Spec.ServiceAccountName, "default")
	sa, err := getAs[*corev1.ServiceAccount](ctx, pc.e, "ServiceAccount", name)
	if err != nil {
		return "", nil
	}
	var dropped []string
	for _, s := range sa.ImagePullSecrets {
		found := false
		for _, o := range own {
			if o.Name == s.Name {
				found = true
				break
			}
		}
		if found {
			return "", nil // the account's secrets are there: the list was merged or copied
		}
		dropped = append(dropped, s.Name)
	}
	return name, dropped
}

// hiddenPullSecretsNote is the sentence that says so, or "" (with the account's ref).
func (pc *podCheck) hiddenPullSecretsNote(ctx context.Context) (string, ObjectRef) {
	sa, dropped := pc.hiddenAccountPullSecrets(ctx)
	if len(dropped) == 0 {
		return "", ObjectRef{}
	}
	var own []string
	for _, s := range pc.pod.Spec.ImagePullSecrets {
		own = append(own, s.Name)
	}
	return fmt.Sprintf(" ServiceAccount %s has imagePullSecrets %s, but the ServiceAccount admission adds them only to pods that list none of their own, and this pod's template lists %s: the account's credentials are not used. Add %s to the template's imagePullSecrets.",
		sa, strings.Join(dropped, ", "), strings.Join(own, ", "), strings.Join(dropped, ", ")), pc.e.ref("ServiceAccount", sa)
}
