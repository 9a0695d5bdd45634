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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// The ServiceAccount admission adds the account's imagePullSecrets only to pods that list
// none of their own: a template that adds a pull secret (for a new sidecar's registry) loses
// the account's, and the registry the account's secret was for refuses the pull.
func TestPodPullSecretsReplaceTheAccounts(t *testing.T) {
	objs := func(own bool) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("exporter", 1, func(s *corev1.PodSpec) {
				s.ServiceAccountName = "ledger"
				if own {
					s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "dockerhub-mirror"}}
				} else {
					s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "harbor-robot"}}
				}
			}, func(p *corev1.Pod) {
				fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.private.example/ledger/exporter:1.4.0": unexpected status from HEAD request: 401 Unauthorized`)
			})
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ledger"}, ImagePullSecrets: []corev1.LocalObjectReference{{Name: "harbor-robot"}}}
			return append(o, sa, fx.PullSecret(ns, "harbor-robot"), fx.PullSecret(ns, "dockerhub-mirror"), fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "the template's own pull secret hides the account's", problem: "exporter cannot pull its image", objs: objs(true),
			rule: "image-pull-auth", culprit: "Deployment/exporter", affected: []string{"ServiceAccount/ledger"},
			terms: []string{"harbor-robot", "dockerhub-mirror", "ServiceAccount ledger"}},
	})
	// The account's secret is in the pod's list: nothing was hidden.
	rc := drive(t, engine(objs(false)()...), sessionFor("exporter cannot pull its image")).RootCause
	if strings.Contains(rc.Summary, "only to pods") {
		t.Errorf("a pod that lists the account's secret was said to lose it: %s", rc.Summary)
	}
}
