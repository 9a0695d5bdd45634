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
	rbacv1 "k8s.io/api/rbac/v1"
)

// Wave 9a: broken clusters written by an outside hand from public GitHub issues of widely
// deployed charts and operators (Loki/promtail, external-dns, Velero, cert-manager,
// ingress-nginx, Argo CD, Patroni, Redis, PostgreSQL with WAL-G), each named in Source by URL.
// The team runs the chart in its own namespace with the chart's labels and neighbours; the
// clue is mostly in the software's own log format. The expected answer is what an SRE
// reading the issue would name, fixed before the engine ran.

const (
	w9aSrcLokiRateLimit  = "https://github.com/grafana/helm-charts/issues/610 (promtail: 429 Too Many Requests, Ingestion rate limit exceeded (limit: 4194304 bytes/sec), the loki chart's limits_config)"
	w9aSrcExternalDNS    = "https://github.com/kubernetes-sigs/external-dns/issues/2407 (external-dns exits 'failed to sync *v1.Ingress: context deadline exceeded' when its ClusterRole cannot list ingresses in networking.k8s.io; vmware-tanzu/community-edition#2741)"
	w9aSrcVeleroCreds    = "https://github.com/velero-io/velero/issues/3741 (velero crash-loops: backup storage location invalid, NoCredentialProviders: no valid providers in chain; the credentials file /credentials/cloud)"
	w9aSrcCertManager    = "https://github.com/cert-manager/cert-manager/issues/283 (ingress-shim: re-queuing item due to error processing: clusterissuer \"letsencrypt-prod\" not found)"
	w9aSrcBigHeader      = "https://github.com/kubernetes/ingress-nginx/pull/7946 (502: upstream sent too big header while reading response header from upstream; proxy-buffer-size)"
	w9aSrcSnippetRisk    = "https://github.com/kubernetes/ingress-nginx/issues/12635 (after ingress-nginx 1.12 an Ingress with configuration-snippet is not synced: annotation group ConfigurationSnippet contains risky annotation; annotations-risk-level)"
	w9aLokiConfig        = "auth_enabled: false\nserver:\n  http_listen_port: 3100\n  grpc_listen_port: 9095\ncommon:\n  path_prefix: /var/loki\n  replication_factor: 1\n  storage:\n    filesystem:\n      chunks_directory: /var/loki/chunks\n      rules_directory: /var/loki/rules\nschema_config:\n  configs:\n    - from: \"2024-04-01\"\n      store: tsdb\n      object_store: filesystem\n      schema: v13\n      index: {prefix: index_, period: 24h}\nlimits_config:\n  ingestion_rate_mb: 4\n  ingestion_burst_size_mb: 6\n  max_global_streams_per_user: 5000\n  reject_old_samples: true\n  reject_old_samples_max_age: 168h\n  retention_period: 744h\n"
	w9aPromtailConfig    = "server:\n  http_listen_port: 3101\nclients:\n  - url: http://loki:3100/loki/api/v1/push\n    batchsize: 1048576\npositions:\n  filename: /run/promtail/positions.yaml\nscrape_configs:\n  - job_name: kubernetes-pods\n    kubernetes_sd_configs: [{role: pod}]\n    pipeline_stages: [{cri: {}}]\n"
	w9aVeleroCredentials = "[default]\naws_access_key_id=AKIAWJ5Q3EXAMPLE7QX2\naws_secret_access_key=q8Yd3vR1tNcEXAMPLEKEYm2Lp0sXbW9zK4hJ7uTa\n"
)

func wave9aScenarios() []*Scenario {
	return append(append(wave9aPlatformScenarios(), wave9aEdgeScenarios()...), wave9aDataScenarios()...)
}

func wave9aPlatformScenarios() []*Scenario {
	return []*Scenario{
		{
			// Black Friday traffic multiplied the log volume; the single-binary Loki keeps
			// the chart's 4 MB/s ingestion limit, so every promtail batch is refused with 429
			// and retried until it is dropped. Every pod is Running and Ready.
			Name: "promtail-loki-ingestion-rate-limited", Covers: "promtail pods are Ready but log 'error sending batch, will retry' status=429 'Ingestion rate limit exceeded (limit: 4194304 bytes/sec)'; Loki's ConfigMap sets limits_config.ingestion_rate_mb: 4",
			Source: w9aSrcLokiRateLimit, Class: ClassClue, Hops: 2,
			Problem: "Grafana shows gaps of several minutes in every namespace's logs since the sale traffic started; all promtail pods are Running",
			Target:  target("DaemonSet", "promtail"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "loki"}, Terms: []string{"Ingestion rate limit", "ingestion_rate_mb"}},
			Setup: func(ctx context.Context, e *Env) error {
				loki := w8cLabels("app.kubernetes.io/name", "loki", "app.kubernetes.io/instance", "loki", "app.kubernetes.io/component", "single-binary")
				promtail := w8cLabels("app.kubernetes.io/name", "promtail", "app.kubernetes.io/instance", "promtail")
				grafana := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "grafana")
				return steps(
					func() error { return e.createConfigMap(ctx, "loki", map[string]string{"config.yaml": w9aLokiConfig}) },
					func() error {
						st := w8bStatefulSet("loki", "docker.io/grafana/loki:3.0.0", "loki-headless", 1, loki, running("w9a-loki-rate-limited"), "http-metrics", 3100)
						w8cArgs(&st.Spec.Template, "-config.file=/etc/loki/config/config.yaml", "-target=all")
						mountConfigMap(&st.Spec.Template, "loki", "/etc/loki/config")
						w8cReadiness(&st.Spec.Template, "/ready", "http-metrics")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("loki-headless", loki, "http-metrics", 3100)) },
					func() error { return e.createService(ctx, w8bService("loki", loki, "http-metrics", 3100)) },
					func() error {
						return e.createSecret(ctx, "promtail", map[string]string{"promtail.yaml": w9aPromtailConfig})
					},
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("promtail", "docker.io/grafana/promtail:3.0.0", promtail, func(t *corev1.PodTemplateSpec) {
							t.Annotations = running("w9a-promtail-429")
							port(t, "http-metrics", 3101)
							w8cArgs(t, "-config.file=/etc/promtail/promtail.yaml")
							mountSecret(t, "promtail", "/etc/promtail")
							w8cReadiness(t, "/ready", "http-metrics")
						}))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("grafana", "docker.io/grafana/grafana:11.1.0", 1, grafana, nil, "grafana", 3000))
					},
					func() error { return e.createService(ctx, w8bService("grafana", grafana, "grafana", 80)) },
				)
			},
			Wait: all(w8cStatefulSetReady("loki", 1),
				podsWith(w8cLabels("app.kubernetes.io/name", "promtail", "app.kubernetes.io/instance", "promtail"), runningReady)),
		},
		{
			// external-dns was bumped from 0.7 to 0.14, which watches networking.k8s.io/v1
			// Ingresses; the hand-kept ClusterRole still grants ingresses in "extensions"
			// only, so the informer never syncs and the process exits after a minute.
			Name: "external-dns-role-extensions-ingresses", Covers: "external-dns crash-loops with only 'failed to sync *v1.Ingress: context deadline exceeded' in its log; its ClusterRole grants ingresses in the extensions API group, not networking.k8s.io",
			Source: w9aSrcExternalDNS, Class: ClassClue, Hops: 2,
			Problem: "external-dns keeps restarting since we upgraded it to 0.14 and the new checkout.shop.example.com Ingress got no DNS record",
			Target:  target("Deployment", "external-dns"),
			Want:    Want{Culprit: Ref{Kind: "ClusterRole", Name: "external-dns", Cluster: true}, Terms: []string{"ingresses", "networking.k8s.io"}},
			Setup: func(ctx context.Context, e *Env) error {
				dns := w8cLabels("app.kubernetes.io/name", "external-dns", "app.kubernetes.io/instance", "external-dns")
				shop := w8cLabels("app.kubernetes.io/name", "storefront", "app.kubernetes.io/part-of", "shop")
				read := []string{"get", "watch", "list"}
				return steps(
					func() error { return e.createServiceAccount(ctx, "external-dns") },
					func() error {
						return e.createScopedClusterRole(ctx, "external-dns",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: read},
							rbacv1.PolicyRule{APIGroups: []string{"extensions"}, Resources: []string{"ingresses"}, Verbs: read},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch"}})
					},
					func() error {
						return e.w9aClusterRoleBinding(ctx, "external-dns-viewer", "external-dns", "external-dns")
					},
					func() error {
						d := w8bDeployment("external-dns", "registry.k8s.io/external-dns/external-dns:v0.14.2", 1, dns,
							crash("1", "", "w9a-external-dns-sync-timeout"), "http", 7979)
						d.Spec.Template.Spec.ServiceAccountName = "external-dns"
						w8cArgs(&d.Spec.Template, "--source=service", "--source=ingress", "--domain-filter=shop.example.com", "--provider=aws",
							"--policy=upsert-only", "--aws-zone-type=public", "--registry=txt", "--txt-owner-id=prod-eu1", "--interval=1m")
						w8bEnv(&d.Spec.Template, "AWS_DEFAULT_REGION", "eu-west-1")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("storefront", "registry.example/shop/storefront:8.3.1", 2, shop, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("storefront", shop, "http", 80)) },
					func() error {
						i := w9aIngress("checkout", "alb", "checkout.shop.example.com", "/", "storefront", "http",
							map[string]string{"alb.ingress.kubernetes.io/scheme": "internet-facing"}, "")
						i.Spec.IngressClassName = nil
						return e.createIngress(ctx, i)
					},
				)
			},
			Wait: podsWith(w8cLabels("app.kubernetes.io/name", "external-dns", "app.kubernetes.io/instance", "external-dns"), crashLooping(2)),
		},
		{
			// The S3 credentials moved into a hand-made Secret created with
			// --from-file=credentials-velero: its key is credentials-velero, so the mounted
			// /credentials/cloud the AWS plugin reads does not exist.
			Name: "velero-credentials-secret-key-name", Covers: "velero crash-loops: 'some backup storage locations are invalid ... NoCredentialProviders: no valid providers in chain'; AWS_SHARED_CREDENTIALS_FILE is /credentials/cloud but the Secret cloud-credentials holds the key credentials-velero",
			Source: w9aSrcVeleroCreds, Class: ClassClue, Hops: 1,
			Problem: "velero crash-loops since we replaced the chart-managed credentials with our own Secret; last night's backups did not run",
			Target:  target("Deployment", "velero"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "cloud-credentials"}, Terms: []string{"credentials-velero", "/credentials/cloud"}},
			Setup: func(ctx context.Context, e *Env) error {
				server := w8cLabels("app.kubernetes.io/name", "velero", "app.kubernetes.io/instance", "velero", "component", "velero")
				agent := w8cLabels("app.kubernetes.io/name", "velero", "app.kubernetes.io/instance", "velero", "name", "node-agent")
				return steps(
					func() error { return e.createServiceAccount(ctx, "velero-server") },
					func() error {
						return e.createSecret(ctx, "cloud-credentials", map[string]string{"credentials-velero": w9aVeleroCredentials})
					},
					func() error {
						d := w8bDeployment("velero", "velero/velero:v1.11.1", 1, server, crash("1", "", "w9a-velero-no-credentials"), "http-monitoring", 8085)
						d.Spec.Template.Spec.ServiceAccountName = "velero-server"
						d.Spec.Template.Spec.Containers[0].Name = "velero"
						w8cArgs(&d.Spec.Template, "server", "--uploader-type=kopia", "--default-volumes-to-fs-backup=false")
						d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "VELERO_NAMESPACE", ValueFrom: &corev1.EnvVarSource{
							FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}
						w8bEnv(&d.Spec.Template, "VELERO_SCRATCH_DIR", "/scratch", "LD_LIBRARY_PATH", "/plugins", "AWS_SHARED_CREDENTIALS_FILE", "/credentials/cloud")
						mountSecret(&d.Spec.Template, "cloud-credentials", "/credentials")
						w9aEmptyDir(&d.Spec.Template, "plugins", "/plugins")
						w9aEmptyDir(&d.Spec.Template, "scratch", "/scratch")
						d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "velero-plugin-for-aws", Image: "velero/velero-plugin-for-aws:v1.7.1",
							VolumeMounts: []corev1.VolumeMount{{Name: "plugins", MountPath: "/target"}}}}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("velero", server, "http-monitoring", 8085)) },
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("node-agent", "velero/velero:v1.11.1", agent, func(t *corev1.PodTemplateSpec) {
							w8cArgs(t, "node-agent", "server")
							t.Spec.ServiceAccountName = "velero-server"
							port(t, "http-monitoring", 8085)
						}))
					},
				)
			},
			Wait: podsWith(w8cLabels("app.kubernetes.io/name", "velero", "component", "velero"), crashLooping(2)),
		},
		{
			// The shop moved to the new cluster with its old Ingress: its annotation names
			// the ClusterIssuer letsencrypt-prod, this cluster's is letsencrypt-production.
			// No certificate is issued, the TLS Secret never appears, nginx serves its fake one.
			Name: "storefront-ingress-issuer-renamed", Covers: "shop.example.com serves the ingress controller's fake certificate: the TLS Secret shop-example-com-tls does not exist; cert-manager logs 'clusterissuer.cert-manager.io \"letsencrypt-prod\" not found' (this cluster's issuer is letsencrypt-production, as the status Ingress uses)",
			Source: w9aSrcCertManager, Class: ClassClue, Hops: 2,
			Problem: "https://shop.example.com shows 'Kubernetes Ingress Controller Fake Certificate' since the move to the new cluster; status.example.com has a valid certificate",
			Target:  target("Ingress", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "storefront"}, Terms: []string{"letsencrypt-prod", "shop-example-com-tls"}},
			Setup: func(ctx context.Context, e *Env) error {
				cm := func(component string) map[string]string {
					return w8cLabels("app.kubernetes.io/name", component, "app.kubernetes.io/instance", "cert-manager", "app.kubernetes.io/component", component)
				}
				shop := w8cLabels("app.kubernetes.io/name", "storefront", "app.kubernetes.io/part-of", "shop")
				status := w8cLabels("app.kubernetes.io/name", "status-page", "app.kubernetes.io/part-of", "shop")
				var class string
				return steps(
					func() (err error) {
						class, err = e.w9aIngressNginx(ctx, "nginx-shop", "v1.11.2", "w9a-ingress-nginx-shop", map[string]string{"ssl-redirect": "true", "hsts": "true"})
						return err
					},
					func() error {
						d := w8bDeployment("cert-manager", "quay.io/jetstack/cert-manager-controller:v1.15.3", 1, cm("cert-manager"), running("w9a-cert-manager-issuer-not-found"), "http-metrics", 9402)
						w8cArgs(&d.Spec.Template, "--v=2", "--cluster-resource-namespace=$(POD_NAMESPACE)", "--leader-election-namespace=$(POD_NAMESPACE)",
							"--acme-http01-solver-image=quay.io/jetstack/cert-manager-acmesolver:v1.15.3", "--max-concurrent-challenges=60")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("cert-manager-webhook", "quay.io/jetstack/cert-manager-webhook:v1.15.3", 1, cm("webhook"), nil, "https", 10250))
					},
					func() error {
						return e.createService(ctx, w8bService("cert-manager-webhook", cm("webhook"), "https", 443))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("cert-manager-cainjector", "quay.io/jetstack/cert-manager-cainjector:v1.15.3", 1, cm("cainjector"), nil, "", 0))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("storefront", "registry.example/shop/storefront:8.3.1", 2, shop, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("storefront", shop, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("status-page", "registry.example/shop/status-page:1.4.0", 1, status, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("status-page", status, "http", 80)) },
					func() error { return e.w9aTLSSecret(ctx, "status-example-com-tls", "status.example.com") },
					func() error {
						return e.createIngress(ctx, w9aIngress("status-page", class, "status.example.com", "/", "status-page", "http",
							map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt-production"}, "status-example-com-tls"))
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("storefront", class, "shop.example.com", "/", "storefront", "http",
							map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt-prod", "nginx.ingress.kubernetes.io/proxy-body-size": "16m"}, "shop-example-com-tls"))
					},
				)
			},
			Wait: all(readyReplicas("storefront", 2), readyReplicas("cert-manager", 1), readyReplicas("ingress-nginx-controller", 2)),
		},
	}
}
