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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const w9bSrcQuotaScopes = "k8s-docs/concepts/policy/resource-quotas.md"

func wave9bFourthScenarios() []*Scenario {
	return []*Scenario{
		{
			// The rotation put the api.example.com certificate into partners-tls; the
			// Ingress for partners.example.com serves it and every client's verification fails.
			Name: "partners-ingress-tls-cert-wrong-host", Covers: "the synthetic check of partners.example.com fails with 'x509: certificate is valid for api.example.com, not partners.example.com': the Secret partners-tls the Ingress partners serves holds a certificate issued for api.example.com",
			Source: w9bSrcIngress, Class: ClassClue, Hops: 2,
			Problem: "our synthetic check for partners.example.com fails since last night's certificate rotation, and partners report TLS errors",
			Target:  target("Deployment", "synthetic-checks"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "partners-tls"}, Terms: []string{"partners.example.com"}},
			Setup: func(ctx context.Context, e *Env) error {
				partner := w8cLabels("app.kubernetes.io/name", "partner-api", "app.kubernetes.io/part-of", "partners", "team", "integrations")
				shop := w8cLabels("app.kubernetes.io/name", "shop-web", "app.kubernetes.io/part-of", "shop", "team", "integrations")
				probe := w8cLabels("app.kubernetes.io/name", "synthetic-checks", "app.kubernetes.io/part-of", "observability", "team", "integrations")
				tlsIngress := func(name, host, secret, svc string) error {
					ing := w8cHostIngress(name, host, svc, 80)
					ing.Annotations = map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt-prod", "nginx.ingress.kubernetes.io/ssl-redirect": "true"}
					ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: secret}}
					if err := e.createIngress(ctx, ing); err != nil {
						return err
					}
					// What the ingress controller writes once it serves the Ingress.
					got, err := e.Client.NetworkingV1().Ingresses(e.Namespace).Get(ctx, name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					got.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.20"}}
					_, err = e.Client.NetworkingV1().Ingresses(e.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{})
					return wrap("Ingress status", name, err)
				}
				return steps(
					func() error { return e.w9bTLSSecret(ctx, "partners-tls", "api.example.com") },
					func() error { return e.w9bTLSSecret(ctx, "shop-tls", "shop.example.com") },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("partner-api", "registry.example/integrations/partner-api:1.33.0", 2, partner, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("partner-api", partner, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("shop-web", "registry.example/shop/web:12.4.1", 2, shop, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("shop-web", shop, "http", 80)) },
					func() error { return tlsIngress("partners", "partners.example.com", "partners-tls", "partner-api") },
					func() error { return tlsIngress("shop", "shop.example.com", "shop-tls", "shop-web") },
					func() error {
						return e.createConfigMap(ctx, "synthetic-checks", map[string]string{"blackbox.yml": "modules:\n  http_2xx:\n    prober: http\n    timeout: 5s\n" +
							"    http:\n      preferred_ip_protocol: ip4\n      fail_if_not_ssl: true\n"})
					},
					func() error {
						d := w8bDeployment("synthetic-checks", "quay.io/prometheus/blackbox-exporter:v0.25.0", 1, probe, running("w9b-blackbox-partners-x509"), "http", 9115)
						w8cArgs(&d.Spec.Template, "--config.file=/etc/blackbox/blackbox.yml")
						mountConfigMap(&d.Spec.Template, "synthetic-checks", "/etc/blackbox")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("partner-api", 2), readyReplicas("shop-web", 2), readyReplicas("synthetic-checks", 1)),
		},
		{
			// The platform's namespace template has a BestEffort-scoped quota of zero pods; the
			// release's migration Job sets no resources, so none of its pods is admitted.
			Name: "orders-migrate-job-besteffort-quota", Covers: "the orders 5.3 release hangs on its migration: Job orders-db-migrate has no pod, its FailedCreate says 'exceeded quota: no-besteffort-pods, requested: pods=1, used: pods=0, limited: pods=0': the quota's BestEffort scope forbids pods without requests, and the Job's container sets none",
			Source: w9bSrcQuotaScopes, Class: ClassMechanism, Hops: 1,
			Problem: "the orders 5.3 release is stuck waiting for orders-db-migrate, which never started a pod",
			Target:  target("Job", "orders-db-migrate"),
			Want:    Want{Culprit: Ref{Kind: "ResourceQuota", Name: "no-besteffort-pods"}, Also: []Ref{{Kind: "Job", Name: "orders-db-migrate"}}, Terms: []string{"BestEffort"}},
			Setup: func(ctx context.Context, e *Env) error {
				orders := w8cLabels("app.kubernetes.io/name", "orders-api", "app.kubernetes.io/instance", "orders", "app.kubernetes.io/version", "5.2.7")
				return steps(
					func() error {
						_, err := e.Client.CoreV1().ResourceQuotas(e.Namespace).Create(ctx, &corev1.ResourceQuota{
							ObjectMeta: metav1.ObjectMeta{Name: "no-besteffort-pods", Labels: w8cLabels("platform.example.com/template", "team-namespace-v3")},
							Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")},
								Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}},
						}, metav1.CreateOptions{})
						return wrap("ResourceQuota", "no-besteffort-pods", err)
					},
					func() error {
						return e.createQuota(ctx, "team-objects", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("40"), "count/jobs.batch": resource.MustParse("20")})
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:5.2.7", 2, orders, nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "250m", "512Mi", "", "512Mi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("orders-api", orders, "http", 80)) },
					func() error {
						j := job("orders-db-migrate", 2, nil)
						j.Annotations = map[string]string{"helm.sh/hook": "pre-upgrade", "helm.sh/hook-weight": "-5", "helm.sh/hook-delete-policy": "before-hook-creation"}
						j.Spec.Template.Labels = w8cLabels("app.kubernetes.io/name", "orders-db-migrate", "app.kubernetes.io/instance", "orders")
						j.Spec.Template.Spec.Containers[0].Image = "registry.example/orders/orders-api:5.3.0"
						j.Spec.Template.Spec.Containers[0].Args = []string{"migrate", "--to=latest"}
						j.Spec.ActiveDeadlineSeconds = ptr.To[int64](1800)
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: all(readyReplicas("orders-api", 2), objectEvent("Job", "orders-db-migrate", "FailedCreate", "no-besteffort-pods")),
		},
	}
}
