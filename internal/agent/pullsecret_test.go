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

package agent_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A pull secret created with `kubectl create secret generic --from-file=.dockerconfigjson`
// is of type Opaque: the kubelet reads no credentials from it, whatever it holds.
func TestPullSecretOfTheWrongType(t *testing.T) {
	objs := func(typed bool) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("pricing", 1, func(s *corev1.PodSpec) {
				s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred-pricing"}}
			}, func(p *corev1.Pod) {
				fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.private.example/pricing:2.4": failed to authorize: 401 Unauthorized`)
			})
			s := fx.Secret(ns, "regcred-pricing", corev1.DockerConfigJsonKey)
			if typed {
				s = fx.PullSecret(ns, "regcred-pricing")
			}
			return append(o, s, fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "Opaque pull secret", problem: "pricing cannot pull its image", objs: objs(false),
			rule: "image-pull-auth", culprit: "Secret/regcred-pricing", affected: []string{"Deployment/pricing"},
			terms: []string{"Opaque", "kubernetes.io/dockerconfigjson", "regcred-pricing"}},
	})
	e := engine(objs(true)()...)
	rc := drive(t, e, sessionFor("pricing cannot pull its image")).RootCause
	if rc.Rule != "image-pull-auth" || strings.Contains(rc.Summary, "of type") {
		t.Errorf("a correctly typed pull secret was blamed for its type: %s %s", rc.Rule, rc.Summary)
	}
}
