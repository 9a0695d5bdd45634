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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const w9aSrcSolverPolicy = "https://github.com/cert-manager/cert-manager/issues/6860 (HTTP-01 propagation check failed behind a namespace NetworkPolicy that admits only cert-manager's pods to the solver on 8089)"

// w9aSolverToken is the ACME HTTP-01 token of the pending challenge.
const w9aSolverToken = "CJq38hxGh4yT0vQm2bR7sLk9EwZp1aXn6dUfJc3oVi8"

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
		{
			// The shop namespace got a default-deny ingress policy and an allow rule for
			// cert-manager's own pods on 8089; the HTTP-01 solver is reached through the
			// ingress controller, which no policy admits to it, so the self check gets 504.
			Name: "acme-solver-blocked-by-namespace-policy", Covers: "shop.example.com's certificate stays pending (TLS Secret shop-example-com-tls missing); cert-manager logs 'propagation check failed ... wrong status code '504''; ingress-nginx logs upstream timeouts to the solver pod on 8089; the NetworkPolicy allow-cert-manager admits only cert-manager pods to port 8089, not the ingress controller",
			Source: w9aSrcSolverPolicy, Class: ClassProvider, Hops: 3,
			Problem: "the Let's Encrypt certificate for shop.example.com has been pending for an hour since we added network policies to the namespace; the site still serves the fake certificate",
			Target:  target("Ingress", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "allow-cert-manager"}, Terms: []string{"8089", "504"}},
			Setup: func(ctx context.Context, e *Env) error {
				shop := w8cLabels("app.kubernetes.io/name", "storefront", "app.kubernetes.io/part-of", "shop")
				cm := w8cLabels("app.kubernetes.io/name", "cert-manager", "app.kubernetes.io/instance", "cert-manager", "app.kubernetes.io/component", "controller")
				solver := w8cLabels("acme.cert-manager.io/http-domain", "1190718029", "acme.cert-manager.io/http-token", "1072305411", "acme.cert-manager.io/http01-solver", "true")
				nginx := w8cLabels("app.kubernetes.io/name", "ingress-nginx", "app.kubernetes.io/component", "controller")
				var class string
				return steps(
					func() (err error) {
						class, err = e.w9aIngressNginx(ctx, "nginx-storefront", "v1.11.2", "w9a-ingress-nginx-acme-timeout", map[string]string{"ssl-redirect": "true"})
						return err
					},
					func() error {
						d := w8bDeployment("cert-manager", "quay.io/jetstack/cert-manager-controller:v1.15.3", 1, cm, running("w9a-cert-manager-propagation-504"), "http-metrics", 9402)
						w8cArgs(&d.Spec.Template, "--v=2", "--cluster-resource-namespace=$(POD_NAMESPACE)", "--leader-election-namespace=$(POD_NAMESPACE)")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("storefront", "registry.example/shop/storefront:8.4.0", 2, shop, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("storefront", shop, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w9aIngress("storefront", class, "shop.example.com", "/", "storefront", "http",
							map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt-production"}, "shop-example-com-tls"))
					},
					func() error {
						t := template("cm-acme-http-solver", "quay.io/jetstack/cert-manager-acmesolver:v1.15.3", nil)
						t.Labels = solver
						port(&t, "http", 8089)
						w8cArgs(&t, "--listen-port=8089", "--domain=shop.example.com", "--token="+w9aSolverToken, "--key="+w9aSolverToken+".kJ3v0qP8")
						p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "cm-acme-http-solver-7x2kq", Labels: solver,
							Annotations: map[string]string{"sidecar.istio.io/inject": "false"}}, Spec: t.Spec}
						_, err := e.Client.CoreV1().Pods(e.Namespace).Create(ctx, p, metav1.CreateOptions{})
						return wrap("Pod", "cm-acme-http-solver", err)
					},
					func() error {
						s := w8bService("cm-acme-http-solver-nrzmt", solver, "http", 8089)
						s.Spec.Type = corev1.ServiceTypeNodePort
						return e.createService(ctx, s)
					},
					func() error {
						i := w9aIngress("cm-acme-http-solver-gzvjr", class, "shop.example.com", "/.well-known/acme-challenge/"+w9aSolverToken, "cm-acme-http-solver-nrzmt", "http",
							map[string]string{"nginx.ingress.kubernetes.io/whitelist-source-range": "0.0.0.0/0,::/0"}, "")
						i.Spec.Rules[0].HTTP.Paths[0].PathType = ptr.To(networkingv1.PathTypeImplementationSpecific)
						i.Labels = solver
						return e.createIngress(ctx, i)
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny-ingress"},
							Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}})
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "allow-ingress-nginx-to-storefront"},
							Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: shop},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: nginx}}},
									Ports: w8cPorts("TCP", 8080)}}}})
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "allow-cert-manager"},
							Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{
									MatchLabels: map[string]string{"app.kubernetes.io/instance": "cert-manager"}}}},
									Ports: w8cPorts("TCP", 8089, "TCP", 80, "TCP", 443)}}}})
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "allow-to-ingress-nginx"},
							Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: nginx},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: w8cPorts("TCP", 80, "TCP", 443)}}}})
					},
				)
			},
			Wait: all(readyReplicas("storefront", 2), readyReplicas("cert-manager", 1), readyReplicas("ingress-nginx-controller", 2),
				podsWith(w8cLabels("acme.cert-manager.io/http01-solver", "true"), runningReady)),
		},
	}
}
