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

package scenarios

import (
	"context"
)

// Wave 9a, edge file: teams that run their own ingress-nginx controller, where every
// backend is healthy and the only clue is in the controller's own log.

func wave9aEdgeScenarios() []*Scenario {
	return []*Scenario{
		{
			// oauth2-proxy's callback sets session cookies larger than nginx's default 4k
			// proxy buffer: the controller answers 502. The keycloak Ingress already carries
			// the buffer annotation, the oauth2-proxy Ingress does not.
			Name: "oauth2-proxy-callback-big-header", Covers: "grafana.example.com login ends in 502 after SSO; oauth2-proxy, keycloak and grafana are Ready; the ingress-nginx controller's error log says 'upstream sent too big header while reading response header from upstream' for /oauth2/callback; the oauth2-proxy Ingress has no proxy-buffer-size annotation (the keycloak one has 128k)",
			Source: w9aSrcBigHeader, Class: ClassClue, Hops: 1,
			Problem: "signing in to grafana.example.com ends on a 502 Bad Gateway right after the Keycloak login page; every pod is Ready",
			Target:  target("Ingress", "oauth2-proxy"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "oauth2-proxy"}, Terms: []string{"too big header", "proxy-buffer-size"}},
			Setup: func(ctx context.Context, e *Env) error {
				kc := w8cLabels("app.kubernetes.io/name", "keycloak", "app.kubernetes.io/instance", "keycloak")
				op := w8cLabels("app.kubernetes.io/name", "oauth2-proxy", "app.kubernetes.io/instance", "oauth2-proxy")
				gf := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "grafana")
				var class string
				return steps(
					func() (err error) {
						class, err = e.w9aIngressNginx(ctx, "nginx-identity", "v1.11.2", "w9a-ingress-nginx-big-header", map[string]string{
							"use-forwarded-headers": "true", "proxy-body-size": "8m",
							"log-format-escape-json": "true",
							"log-format-upstream":    `{"time":"$time_iso8601","remote_addr":"$remote_addr","host":"$host","request":"$request","status":$status,"bytes_sent":$bytes_sent,"request_time":$request_time,"upstream_addr":"$upstream_addr","upstream_status":"$upstream_status","req_id":"$req_id"}`,
						})
						return err
					},
					func() error {
						st := w8bStatefulSet("keycloak", "quay.io/keycloak/keycloak:25.0.6", "keycloak-headless", 2, kc, nil, "http", 8080)
						w8cArgs(&st.Spec.Template, "start", "--optimized", "--hostname=https://sso.example.com", "--proxy-headers=xforwarded", "--http-enabled=true")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("keycloak-headless", kc, "http", 8080)) },
					func() error { return e.createService(ctx, w8bService("keycloak-http", kc, "http", 80)) },
					func() error {
						d := w8bDeployment("grafana", "docker.io/grafana/grafana:11.2.2", 1, gf, nil, "grafana", 3000)
						w8bEnv(&d.Spec.Template, "GF_AUTH_PROXY_ENABLED", "true", "GF_AUTH_PROXY_HEADER_NAME", "X-Auth-Request-Email", "GF_SERVER_ROOT_URL", "https://grafana.example.com")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("grafana", gf, "grafana", 3000)) },
					func() error {
						return e.createSecret(ctx, "oauth2-proxy", map[string]string{"client-id": "grafana", "client-secret": "9JrV2kq7XcPwE4tN", "cookie-secret": "r5Jm0VbQ8sLw2XcN7yPa4TgKd1HfUeZo"})
					},
					func() error {
						d := w8bDeployment("oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0", 2, op, nil, "http", 4180)
						w8cArgs(&d.Spec.Template, "--provider=keycloak-oidc", "--oidc-issuer-url=https://sso.example.com/realms/ops",
							"--upstream=http://grafana:3000", "--http-address=0.0.0.0:4180", "--email-domain=*", "--pass-access-token=true",
							"--set-xauthrequest=true", "--cookie-refresh=1h", "--reverse-proxy=true")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_CLIENT_ID", "oauth2-proxy", "client-id")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_CLIENT_SECRET", "oauth2-proxy", "client-secret")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_COOKIE_SECRET", "oauth2-proxy", "cookie-secret")
						w8bReadiness(&d.Spec.Template, "/ready", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("oauth2-proxy", op, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w9aIngress("keycloak", class, "sso.example.com", "/", "keycloak-http", "http",
							map[string]string{"nginx.ingress.kubernetes.io/proxy-buffer-size": "128k", "nginx.ingress.kubernetes.io/proxy-buffers-number": "4"}, ""))
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("oauth2-proxy", class, "grafana.example.com", "/", "oauth2-proxy", "http",
							map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "120"}, ""))
					},
				)
			},
			Wait: all(readyReplicas("oauth2-proxy", 2), readyReplicas("ingress-nginx-controller", 2), w8cStatefulSetReady("keycloak", 2)),
		},
		{
			// The controller went from 1.11 to 1.12.1, whose default annotations-risk-level
			// (High) refuses Critical annotations such as configuration-snippet even with
			// allow-snippet-annotations "true": the legacy Ingress is left out of nginx.conf.
			Name: "legacy-ingress-snippet-risk-level", Covers: "www.example.com/legacy answers 404 after ingress-nginx was upgraded to v1.12.1; the controller logs 'annotation group ConfigurationSnippet contains risky annotation based on ingress configuration'; the legacy Ingress uses configuration-snippet and the controller ConfigMap sets allow-snippet-annotations but not annotations-risk-level: Critical",
			Source: w9aSrcSnippetRisk, Class: ClassClue, Hops: 2,
			Problem: "www.example.com/legacy/ returns 404 since ingress-nginx was upgraded to 1.12.1 this morning; the landing page on the same host still works",
			Target:  target("Ingress", "legacy-web"),
			Want: Want{Culprit: Ref{Kind: "Ingress", Name: "legacy-web"}, Also: []Ref{{Kind: "ConfigMap", Name: "ingress-nginx-controller"}},
				Terms: []string{"configuration-snippet", "annotations-risk-level"}},
			Setup: func(ctx context.Context, e *Env) error {
				landing := w8cLabels("app", "landing", "team", "web", "tier", "frontend")
				legacy := w8cLabels("app", "legacy-web", "team", "web", "tier", "frontend")
				var class string
				return steps(
					func() (err error) {
						class, err = e.w9aIngressNginx(ctx, "nginx-web", "v1.12.1", "w9a-ingress-nginx-risky-snippet", map[string]string{
							"allow-snippet-annotations": "true", "use-gzip": "true", "enable-real-ip": "true"})
						return err
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("landing", "registry.example/web/landing:2024.11.21", 2, landing, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("landing", landing, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("legacy-web", "registry.example/web/legacy-php:7.4-apache-31", 2, legacy, nil, "http", 80))
					},
					func() error { return e.createService(ctx, w8bService("legacy-web", legacy, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w9aIngress("landing", class, "www.example.com", "/", "landing", "http",
							map[string]string{"nginx.ingress.kubernetes.io/ssl-redirect": "true"}, ""))
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("legacy-web", class, "www.example.com", "/legacy", "legacy-web", "http",
							map[string]string{
								"nginx.ingress.kubernetes.io/configuration-snippet": "more_set_headers \"X-Frame-Options: SAMEORIGIN\";\nrewrite ^/legacy/(.*)$ /$1 break;\n",
								"nginx.ingress.kubernetes.io/ssl-redirect":          "true",
							}, ""))
					},
				)
			},
			Wait: all(readyReplicas("legacy-web", 2), readyReplicas("landing", 2), readyReplicas("ingress-nginx-controller", 2)),
		},
	}
}
