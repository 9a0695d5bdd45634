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
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A missing Ingress TLS Secret that cert-manager is asked to write: the issuer the Ingress
// names is said, and the issuer a sibling Ingress with a working Secret names instead; an
// Ingress without cert-manager annotations gets neither.
func TestMissingTLSSecretNamesItsIssuer(t *testing.T) {
	ingress := func(name, host, secret string, ann map[string]string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: ann}, Spec: networkingv1.IngressSpec{
			TLS:            []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: secret}},
			DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "docs", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
	}
	tlsSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "wiki-tls", Namespace: ns}, Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": []byte("x"), "tls.key": []byte("y")}}
	for _, tc := range []struct {
		name      string
		objs      []runtime.Object
		want, not []string
	}{
		{"a namespaced issuer, a sibling names another", []runtime.Object{
			ingress("docs", "docs.example.org", "docs-tls", map[string]string{"cert-manager.io/issuer": "acme-staging"}),
			ingress("wiki", "wiki.example.org", "wiki-tls", map[string]string{"cert-manager.io/issuer": "acme-prod"}), tlsSecret},
			[]string{"cert-manager.io/issuer: acme-staging", "Ingress wiki", "acme-prod", "kubectl get issuer"}, nil},
		{"a cluster issuer and no sibling", []runtime.Object{
			ingress("docs", "docs.example.org", "docs-tls", map[string]string{"cert-manager.io/cluster-issuer": "zerossl"})},
			[]string{"cert-manager.io/cluster-issuer: zerossl", "kubectl get clusterissuer"}, []string{"instead"}},
		{"no cert-manager annotation", []runtime.Object{ingress("docs", "docs.example.org", "docs-tls", nil)},
			[]string{"docs-tls, which does not exist"}, []string{"cert-manager", "issuer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(app("docs", 1, nil, nil), svcAt("docs", "10.96.2.9", map[string]string{"app": "docs"}, 80), fx.Node("node-1"))
			e := agent.NewRuleEngine(fake.NewClientset(append(objs, tc.objs...)...))
			e.Now = func() time.Time { return fx.Now }
			c := drive(t, e, agent.Session{ID: "t", Problem: "docs.example.org shows the default certificate", Namespace: ns, Target: &agent.Target{Kind: "Ingress", Name: "docs"}})
			rc := c.RootCause
			if rc.Rule != "ingress-tls-secret-missing" || rc.Culprit.Name != "docs-tls" {
				t.Fatalf("got %s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
			}
			for _, w := range tc.want {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, rc.Summary)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(rc.Summary, w) {
					t.Errorf("summary has %q: %s", w, rc.Summary)
				}
			}
		})
	}
}
