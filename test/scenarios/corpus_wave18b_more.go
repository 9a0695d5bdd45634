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

	rbacv1 "k8s.io/api/rbac/v1"
)

// Wave 18b, second half: Thanos, external-dns, the ingress controller's own start-up and the
// database backups the platform runs for the product teams.

func wave18bMoreScenarios() []*Scenario {
	promApps := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "prometheus-apps")
	promInfra := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "prometheus-infra")
	controller := w8cLabels("app.kubernetes.io/name", "ingress-nginx", "app.kubernetes.io/component", "controller")
	ordersDB := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "orders-postgresql", "app.kubernetes.io/component", "primary")
	catalogDB := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "catalog-postgresql", "app.kubernetes.io/component", "primary")
	ordersBackup := w8bLabels("orders-db-backup", "backups")
	return []*Scenario{
		{
			// The monitoring team split Prometheus in two. The application instance's Thanos
			// sidecar came from a values file for a Prometheus that listened on 9091; it never
			// gets Prometheus's external labels, stays unready, and the headless Service
			// thanos-query discovers stores through lists no address: application panels go empty.
			Name: "app-dashboards-empty-after-prom-split", Covers: "Grafana's application panels show No data while node panels work: thanos-query (Ready) has only prometheus-infra as a store; every prometheus-apps pod is 1/2 ready because its thanos-sidecar container fails readiness and logs 'failed to fetch initial external labels. Is Prometheus running? Retrying ... dial tcp [::1]:9091: connect: connection refused': StatefulSet prometheus-apps runs the sidecar with --prometheus.url=http://localhost:9091 while its Prometheus listens on 9090",
			Source: w18bSrcThanosSidecar, Class: ClassRanking, Hops: 3,
			Problem: "since the monitoring split the checkout and orders dashboards in Grafana show 'No data'; the node and cluster dashboards still work",
			Target:  target("Deployment", "grafana"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "prometheus-apps"}, Terms: []string{"9091"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w8bSecretBytes(ctx, "thanos-objstore", map[string]string{"objstore.yml": "type: S3\nconfig:\n  bucket: acme-thanos-prod-eu1\n  endpoint: s3.eu-west-1.amazonaws.com\n  region: eu-west-1\n"})
					},
					func() error {
						return e.w10aConfigMap(ctx, "prometheus-apps-config", promApps, w18bPromConfig("prometheus-apps", "checkout-api", "orders-api"))
					},
					func() error {
						return e.w10aConfigMap(ctx, "prometheus-infra-config", promInfra, w18bPromConfig("prometheus-infra", "node-exporter", "kube-state-metrics"))
					},
					func() error {
						return e.w18bPrometheus(ctx, "prometheus-apps", "http://localhost:9091", 2, promApps,
							w10aOn("thanos-sidecar", "readiness-fail", "w18b-thanos-sidecar-apps", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503"))
					},
					func() error {
						return e.w18bPrometheus(ctx, "prometheus-infra", "http://localhost:9090", 1, promInfra, nil)
					},
					func() error {
						d := w8bDeployment("thanos-query", "quay.io/thanos/thanos:v0.36.1", 1, w8cLabels("app.kubernetes.io/name", "thanos-query"), running("w18b-thanos-query"), "http", 10902)
						w10aMain(&d.Spec.Template, "thanos-query", "query", "--http-address=0.0.0.0:10902", "--grpc-address=0.0.0.0:10901",
							"--query.replica-label=prometheus_replica", "--endpoint=dnssrv+_grpc._tcp.prometheus-apps", "--endpoint=dnssrv+_grpc._tcp.prometheus-infra")
						return e.w11bServe(ctx, d, 9090)
					},
					func() error {
						return e.w10aConfigMap(ctx, "grafana-datasources", w8cLabels("grafana_datasource", "1"), map[string]string{"datasources.yaml": "apiVersion: 1\ndatasources:\n- name: Thanos\n  type: prometheus\n  access: proxy\n  url: http://thanos-query:9090\n  isDefault: true\n  jsonData:\n    timeInterval: 30s\n"})
					},
					func() error {
						d := w8bDeployment("grafana", "grafana/grafana:11.2.2", 1, w8cLabels("app.kubernetes.io/name", "grafana"), nil, "http", 3000)
						mountConfigMap(&d.Spec.Template, "grafana-datasources", "/etc/grafana/provisioning/datasources")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(w10aStatefulSetPods(promApps, 2, runningNotReady), w11aStatefulSetReady("prometheus-infra", 1), readyReplicas("thanos-query", 1), readyReplicas("grafana", 1)),
		},
		{
			// external-dns only changes records whose TXT registry entry names its own owner id.
			// The green cluster's values set txtOwnerId prod-eu1-green while every existing record
			// was written by the blue cluster as prod-eu1: checkout's record is skipped forever and
			// keeps pointing at the old load balancer; a brand-new hostname is created fine.
			Name: "checkout-dns-still-on-blue-cluster", Covers: "outside the catalogue: checkout.shop.example.com still resolves to the blue cluster's load balancer after cut-over; the Running external-dns logs 'Skipping endpoint checkout.shop.example.com ... because owner id does not match, found: \"prod-eu1\", required: \"prod-eu1-green\"' every minute while it creates returns.shop.example.com; the Deployment external-dns runs with --txt-owner-id=prod-eu1-green",
			Source: w18bSrcExternalDNS, Class: ClassOutside, Hops: 1,
			Problem: "we cut traffic over to this new cluster an hour ago, but checkout.shop.example.com still resolves to the old load balancer even though the Ingress here shows the new address; returns.shop.example.com, added today, resolves fine",
			Target:  target("Ingress", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "external-dns"}, Terms: []string{"txt-owner-id"}},
			Setup: func(ctx context.Context, e *Env) error {
				dns := w8cLabels("app.kubernetes.io/name", "external-dns", "app.kubernetes.io/instance", "external-dns")
				lb := "k8s-green-ingressn-4f2a9c1d7b-91c3e0a5d2f84b67.elb.eu-west-1.amazonaws.com"
				read := []string{"get", "watch", "list"}
				return steps(
					func() error { return e.createServiceAccount(ctx, "external-dns") },
					func() error {
						return e.createScopedClusterRole(ctx, "external-dns",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: read},
							rbacv1.PolicyRule{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: read},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch"}})
					},
					func() error {
						return e.w9aClusterRoleBinding(ctx, "external-dns-viewer", "external-dns", "external-dns")
					},
					func() error {
						d := w8bDeployment("external-dns", "registry.k8s.io/external-dns/external-dns:v0.15.0", 1, dns, running("w18b-external-dns-green"), "http", 7979)
						d.Spec.Template.Spec.ServiceAccountName = "external-dns"
						w8cArgs(&d.Spec.Template, "--source=service", "--source=ingress", "--domain-filter=shop.example.com", "--provider=aws",
							"--policy=upsert-only", "--aws-zone-type=public", "--registry=txt", "--txt-owner-id=prod-eu1-green", "--interval=1m", "--log-level=debug")
						w8bEnv(&d.Spec.Template, "AWS_DEFAULT_REGION", "eu-west-1")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createIngressClassNamed(ctx, "nginx", "k8s.io/ingress-nginx") },
					func() error {
						d := w11bApp("ingress-nginx-controller", "controller", "registry.k8s.io/ingress-nginx/controller:v1.11.3", 2, controller, nil, "http", 80)
						w10aPort(&d.Spec.Template, "https", 443)
						w10aMain(&d.Spec.Template, "controller", "/nginx-ingress-controller", "--publish-service=$(POD_NAMESPACE)/ingress-nginx-controller",
							"--election-id=ingress-nginx-leader", "--controller-class=k8s.io/ingress-nginx", "--ingress-class="+e.ClusterName("nginx"))
						w10bFieldEnv(&d.Spec.Template, "POD_NAMESPACE", "metadata.namespace")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("storefront", "registry.example/shop/storefront:8.3.1", 2, w8bLabels("storefront", "shop"), nil, "http", 8080), 80)
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("returns-api", "registry.example/shop/returns-api:1.0.2", 1, w8bLabels("returns-api", "shop"), nil, "http", 8080), 80)
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("checkout", e.ClusterName("nginx"), "checkout.shop.example.com", "/", "storefront", "http", nil, ""))
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("returns", e.ClusterName("nginx"), "returns.shop.example.com", "/", "returns-api", "http", nil, ""))
					},
					func() error { return e.w18bIngressAddress(ctx, "checkout", lb) },
					func() error { return e.w18bIngressAddress(ctx, "returns", lb) },
				)
			},
			Wait: all(readyReplicas("external-dns", 1), readyReplicas("storefront", 2), readyReplicas("returns-api", 1), readyReplicas("ingress-nginx-controller", 2)),
		},
		{
			// ingress-nginx checks its --default-backend-service at start-up and exits
			// (klog.Fatal) when the Service is not found. The new values hard-code the
			// ingress-nginx namespace while the release now lives elsewhere: the controller
			// crash-loops and every Ingress it serves is down, though error-pages exists here.
			Name: "all-sites-down-after-ingress-reinstall", Covers: "shop.example.com and every other host are down: the ingress-nginx-controller pods crash-loop (exit 255) on 'No service with name error-pages found in namespace ingress-nginx: services \"error-pages\" not found'; the Deployment passes --default-backend-service=ingress-nginx/error-pages while the release and its Service error-pages live in this namespace",
			Source: w18bSrcDefaultBackend, Class: ClassReference, Hops: 2,
			Problem: "shop.example.com and every other site behind our ingress have been down since the ingress controller was reinstalled with the new chart values this morning",
			Target:  target("Ingress", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ingress-nginx-controller"}, Terms: []string{"default-backend-service"}},
			Setup: func(ctx context.Context, e *Env) error {
				pages := w8cLabels("app.kubernetes.io/name", "error-pages", "app.kubernetes.io/part-of", "ingress-nginx")
				return steps(
					func() error { return e.createIngressClassNamed(ctx, "nginx", "k8s.io/ingress-nginx") },
					func() error {
						return e.w10aConfigMap(ctx, "ingress-nginx-controller", controller, map[string]string{"custom-http-errors": "502,503,504", "use-forwarded-headers": "true", "proxy-body-size": "16m"})
					},
					func() error {
						d := w11bApp("ingress-nginx-controller", "controller", "registry.k8s.io/ingress-nginx/controller:v1.11.3", 2, controller,
							crash("255", `No service with name error-pages found in namespace ingress-nginx: services "error-pages" not found`, "w18b-ingress-nginx-default-backend"), "http", 80)
						w10aPort(&d.Spec.Template, "https", 443)
						w10aMain(&d.Spec.Template, "controller", "/nginx-ingress-controller", "--publish-service=$(POD_NAMESPACE)/ingress-nginx-controller",
							"--election-id=ingress-nginx-leader", "--controller-class=k8s.io/ingress-nginx", "--ingress-class="+e.ClusterName("nginx"),
							"--configmap=$(POD_NAMESPACE)/ingress-nginx-controller", "--default-backend-service=ingress-nginx/error-pages")
						w10bFieldEnv(&d.Spec.Template, "POD_NAME", "metadata.name", "POD_NAMESPACE", "metadata.namespace")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w10aServicePort(w8bService("ingress-nginx-controller", controller, "http", 80), "https", 443))
					},
					func() error {
						d := w8bDeployment("error-pages", "registry.k8s.io/ingress-nginx/custom-error-pages:v1.0.2", 1, pages, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "ERROR_FILES_PATH", "/www", "DEBUG", "false")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("storefront", "registry.example/shop/storefront:8.3.1", 2, w8bLabels("storefront", "shop"), nil, "http", 8080), 80)
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("account-web", "registry.example/shop/account-web:3.2.0", 1, w8bLabels("account-web", "shop"), nil, "http", 3000), 80)
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("storefront", e.ClusterName("nginx"), "shop.example.com", "/", "storefront", "http", nil, ""))
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("account-web", e.ClusterName("nginx"), "account.shop.example.com", "/", "account-web", "http", nil, ""))
					},
				)
			},
			Wait: all(podsWith(controller, crashLooping(2)), readyReplicas("error-pages", 1), readyReplicas("storefront", 2), readyReplicas("account-web", 1)),
		},
		{
			// The nightly restic backup mounts the database's ReadWriteOnce volume, so it must run
			// on the database's node: a required pod affinity on the database pod's labels. The
			// Postgres chart migration renamed those labels (app=pg-orders became the
			// app.kubernetes.io set); the affinity matches no pod and every run stays Pending.
			Name: "orders-db-backup-missing-two-nights", Covers: "no orders database snapshot for two nights: the run orders-db-backup-29543070 of CronJob orders-db-backup is Pending ('didn't match pod affinity rules') because the job template requires a node running a pod labelled app=pg-orders, a label the orders-postgresql pods lost in the chart migration; catalog-db-backup, whose affinity names app.kubernetes.io/instance=catalog-postgresql, completed",
			Source: w18bSrcBackupAffinity, Class: ClassReference, Hops: 2,
			Problem: "the orders database backup hasn't produced a snapshot for two nights; the catalog database backup, which works the same way, is fine",
			Target:  target("CronJob", "orders-db-backup"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "orders-db-backup"}, Terms: []string{"pg-orders"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := func(name string, lbl map[string]string) error {
					st := w8bStatefulSet(name, "docker.io/bitnami/postgresql:16.4.0", name+"-hl", 1, lbl, nil, "tcp-postgresql", 5432)
					w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "app", "POSTGRESQL_PORT_NUMBER", "5432")
					if err := e.w10aClaimedStatefulSet(ctx, st, "data", "20Gi", "/bitnami/postgresql"); err != nil {
						return err
					}
					if err := e.createService(ctx, w8bHeadless(name+"-hl", lbl, "tcp-postgresql", 5432)); err != nil {
						return err
					}
					return e.createService(ctx, w8bService(name, lbl, "tcp-postgresql", 5432))
				}
				backup := func(name, instance string, lbl, affinity map[string]string) error {
					cj := w11aCronJob(name, "docker.io/restic/restic:0.17.3", "30 2 * * *", false, lbl,
						"backup", "/data", "--host", instance, "--tag", "nightly", "--exclude", "/data/data/pg_wal")
					t := &cj.Spec.JobTemplate.Spec.Template
					w8bEnv(t, "RESTIC_REPOSITORY", "s3:s3.eu-west-1.amazonaws.com/acme-db-backups/"+instance, "AWS_DEFAULT_REGION", "eu-west-1")
					envKeyFromSecret(t, "RESTIC_PASSWORD", "restic-repository", "password")
					envFromSecret(t, "restic-s3-credentials")
					w18bClaimMount(t, "data", "data-"+instance+"-0", "/data")
					w18bCoLocated(t, affinity)
					return e.w18bCronJobRun(ctx, cj, name+"-29543070")
				}
				return steps(
					func() error {
						return e.createSecret(ctx, "restic-repository", map[string]string{"password": "c0rrect-h0rse-battery"})
					},
					func() error {
						return e.createSecret(ctx, "restic-s3-credentials", map[string]string{"AWS_ACCESS_KEY_ID": "AKIAEXAMPLEBACKUP01", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
					},
					func() error { return db("orders-postgresql", ordersDB) },
					func() error { return db("catalog-postgresql", catalogDB) },
					func() error {
						return backup("orders-db-backup", "orders-postgresql", ordersBackup, map[string]string{"app": "pg-orders"})
					},
					func() error {
						return backup("catalog-db-backup", "catalog-postgresql", w8bLabels("catalog-db-backup", "backups"), map[string]string{"app.kubernetes.io/instance": "catalog-postgresql"})
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:4.2.1", 1, w8bLabels("orders-api", "orders"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:postgresql://orders-postgresql:5432/app")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(ordersBackup, unschedulable("pod affinity")), w11aAnyJobComplete, w11aStatefulSetReady("orders-postgresql", 1), readyReplicas("orders-api", 1)),
		},
	}
}
