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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// An error quoting a URL the client built from one of its settings (an issuer, a base URL
// with a path) names that setting, not a similar-sounding setting of another server it calls.
func TestURLBuiltFromASetting(t *testing.T) {
	objs := app("oauth2-proxy", 1, func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "oauth2-proxy"}}}}
		s.Containers[0].Args = []string{"--upstream=http://grafana:3000", "--http-address=0.0.0.0:4180"}
	}, crashing)
	objs = append(objs, app("grafana", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Env = []corev1.EnvVar{{Name: "GF_AUTH_PROXY_ENABLED", Value: "true"}}
	}, nil)...)
	objs = append(objs, app("keycloak", 1, nil, nil)...)
	objs = append(objs, svcAt("grafana", "10.96.0.30", map[string]string{"app": "grafana"}, 3000), svcAt("keycloak", "10.96.0.31", map[string]string{"app": "keycloak"}, 8080),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "oauth2-proxy", Namespace: ns}, Data: map[string]string{"OAUTH2_PROXY_PROVIDER": "keycloak-oidc", "OAUTH2_PROXY_OIDC_ISSUER_URL": "http://keycloak:8080/auth/realms/ops", "OAUTH2_PROXY_CLIENT_ID": "grafana"}},
		fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"oauth2-proxy-": "[2026/11/29 06:00:00] [main.go:54] invalid configuration:\n[2026/11/29 06:00:00] [main.go:60] ERROR: Failed to initialise OAuth2 Proxy: error initialising provider: could not create provider data: error building OIDC ProviderVerifier: could not get verifier builder: error while discovery OIDC configuration: unexpected status \"404\": {\"error\":\"Could not find resource for full path: http://keycloak:8080/auth/realms/ops/.well-known/openid-configuration\"}\n"}.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "grafana login is broken", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "oauth2-proxy"}}).RootCause
	if rc.Culprit.Kind != "ConfigMap" || rc.Culprit.Name != "oauth2-proxy" || !strings.Contains(rc.Summary, "OAUTH2_PROXY_OIDC_ISSUER_URL") || strings.Contains(rc.Summary, "GF_AUTH_PROXY") {
		t.Errorf("got %s on %v: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}
