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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Wave 9c, second half: runbooks the corpus had not used (KubePersistentVolumeErrors,
// KubeHpaReplicasMismatch, KubeStateMetricsWatchErrors) and two more application issues (an
// nginx upstream left on a renamed Service, a Spring profile name that matches no config file).

const (
	w9cSrcPVErrors   = "runbooks/kubernetes/KubePersistentVolumeErrors.md"
	w9cSrcHPAReplica = "runbooks/kubernetes/KubeHpaReplicasMismatch.md"
	w9cSrcKSMWatch   = "runbooks/kube-state-metrics/KubeStateMetricsWatchErrors.md"
	w9cSrcNginxHost  = "https://github.com/wazuh/wazuh-kubernetes/issues/99 (nginx CrashLoopBackOff: [emerg] host not found in upstream \"kibana\" in /etc/nginx/conf.d/default.conf)"
	w9cSrcSpringProf = "https://github.com/apolloconfig/apollo/issues/2711 (Failed to configure a DataSource: 'url' attribute is not specified; 'please check whether the configuration file is loaded, e.g. is the spring profile right?')"
)

const w9cEdgeConf = `# managed by storefront/deploy, see README
upstream storefront_web {
    server storefront-web:80;
}
upstream catalog {
    server catalog-api:8080;
    keepalive 16;
}
server {
    listen 8080;
    location /api/catalog/ { proxy_pass http://catalog/; }
    location / { proxy_pass http://storefront_web; }
}
`

func wave9cMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// The team deleted the old claim and reinstalled; the hostPath PV with reclaim policy
			// Delete could not be deleted and went Failed, so the new claim finds no volume.
			Name: "reports-db-pv-failed-after-reinstall", Covers: "a Django API is not ready (connection refused to reports-db); the postgres pod is Pending: no available persistent volume to bind, because the only local-ssd PV is Failed (VolumeFailedDelete: reclaim policy Delete on a hostPath volume) and still claimed by the deleted claim",
			Source: w9cSrcPVErrors, Class: ClassRanking, Hops: 3,
			Problem: "reports-api is down since we reinstalled reports-db this morning",
			Target:  target("Deployment", "reports-api"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolume", Name: "reports-db-pgdata", Cluster: true}, Terms: []string{"Failed", "reclaim"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := w8cLabels("app.kubernetes.io/name", "reports-api", "app.kubernetes.io/part-of", "reports")
				ui := w8cLabels("app.kubernetes.io/name", "reports-ui", "app.kubernetes.io/part-of", "reports")
				db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "reports-db", "app.kubernetes.io/part-of", "reports")
				return steps(
					func() error { return e.w9cLocalClass(ctx, "local-ssd") },
					func() error {
						return e.w9cOrphanedPV(ctx, "reports-db-pgdata", "local-ssd", "pgdata-reports-db-0", "50Gi", "/mnt/disks/ssd0/reports-db")
					},
					func() error { return e.createService(ctx, w8bService("reports-db", db, "tcp-postgresql", 5432)) },
					func() error {
						return e.createConfigMap(ctx, "reports-api-env", map[string]string{"DJANGO_SETTINGS_MODULE": "reports.settings.prod", "DATABASE_HOST": "reports-db", "DATABASE_NAME": "reports"})
					},
					func() error {
						d := w8bDeployment("reports-api", "registry.acme.io/reports/api:2026.11.3", 2, api,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w9c-reports-api-db-refused"), "http", 8000)
						envFromConfigMap(&d.Spec.Template, "reports-api-env")
						w8bReadiness(&d.Spec.Template, "/ready", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("reports-api", api, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("reports-ui", "registry.acme.io/reports/ui:2026.11.3", 1, ui, nil, "http", 8080))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "reports-db", "app.kubernetes.io/part-of", "reports")
				if e.State["reinstalled"] == "" {
					if err := w9cPVPhase("reports-db-pgdata", corev1.VolumeFailed)(ctx, e); err != nil {
						return err
					}
					st := w8bStatefulSet("reports-db", "postgres:16.4", "reports-db", 1, db, nil, "tcp-postgresql", 5432)
					st.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
						ObjectMeta: metav1.ObjectMeta{Name: "pgdata"},
						Spec: corev1.PersistentVolumeClaimSpec{
							AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
							StorageClassName: ptr.To(e.ClusterName("local-ssd")),
							Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("50Gi")}},
						},
					}}
					c := &st.Spec.Template.Spec.Containers[0]
					c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "pgdata", MountPath: "/var/lib/postgresql/data"})
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					e.State["reinstalled"] = "yes"
				}
				return all(podsWith(db, unschedulable("persistent volumes to bind")),
					podsWith(w8cLabels("app.kubernetes.io/name", "reports-api", "app.kubernetes.io/part-of", "reports"), runningNotReady))(ctx, e)
			},
		},
		{
			// The platform team's namespace baseline (max 1Gi per container) arrived after
			// pricing-api's two pods; the HPA's minimum of 4 needs new pods, which admission rejects.
			Name: "pricing-hpa-blocked-by-new-limitrange", Covers: "an HPA wants 4 replicas, the Deployment stays at 2 with ReplicaFailure FailedCreate: 'maximum memory usage per Container is 1Gi, but limit is 1536Mi' from a LimitRange added after the running pods",
			Source: w9cSrcHPAReplica, Class: ClassRanking, Hops: 2,
			Problem: "pricing-api HPA says 4 desired but only 2 pods exist",
			Target:  target("HorizontalPodAutoscaler", "pricing-api"),
			Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "namespace-baseline"}, Terms: []string{"maximum memory", "1Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				p := w8bLabels("pricing-api", "pricing", "app.kubernetes.io/component", "api")
				q := w8bLabels("quote-cache", "pricing", "app.kubernetes.io/component", "cache")
				return steps(
					func() error {
						d := w8bDeployment("pricing-api", "registry.acme.io/pricing/api:9.1.0", 2, p, nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "250m", "1Gi", "", "1536Mi")
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=70")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("pricing-api", p, "http", 80)) },
					func() error {
						d := w8bDeployment("quote-cache", "memcached:1.6.29-alpine", 1, q, nil, "memcache", 11211)
						w8cRequests(&d.Spec.Template, "100m", "256Mi", "", "512Mi")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["baseline"] == "" {
					if err := readyReplicas("pricing-api", 2)(ctx, e); err != nil {
						return err
					}
					if err := e.w9cMemoryMaxLimitRange(ctx, "namespace-baseline", "1Gi", "512Mi", "256Mi"); err != nil {
						return err
					}
					if err := e.createHPA(ctx, "pricing-api", "pricing-api", 4, 12); err != nil {
						return err
					}
					e.State["baseline"] = "yes"
				}
				return deploymentCondition("pricing-api", appsv1.DeploymentReplicaFailure, "FailedCreate")(ctx, e)
			},
		},
		{
			// A namespace-wide egress baseline allows DNS and 443 only; the API server's endpoint
			// is not on 443 behind the Service's DNAT, so kube-state-metrics times out and exits.
			Name: "ksm-egress-baseline-blocks-apiserver", Covers: "kube-state-metrics crash-loops: 'Failed to create client ... dial tcp 10.96.0.1:443: i/o timeout'; the namespace's egress NetworkPolicy allows DNS and TCP 443 only, not the API server's endpoint port after the Service translation",
			Source: w9cSrcKSMWatch, Class: ClassProvider, Hops: 2,
			Problem: "all kube_* metrics are gone from Prometheus since the security baseline was applied to monitoring",
			Target:  target("Deployment", "kube-state-metrics"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "egress-baseline"}, Terms: []string{"i/o timeout", "egress"}},
			Setup: func(ctx context.Context, e *Env) error {
				ksm := w8cLabels("app.kubernetes.io/name", "kube-state-metrics", "app.kubernetes.io/instance", "kube-prometheus-stack")
				graf := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "kube-prometheus-stack")
				return steps(
					func() error { return e.createServiceAccount(ctx, "kube-state-metrics") },
					func() error {
						d := w8bDeployment("kube-state-metrics", "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.13.0", 1, ksm, crash("1",
							`E1127 15:40:41.403377       1 utils.go:72] "Failed to create client" err="error while trying to communicate with apiserver: Get \"https://10.96.0.1:443/version\": dial tcp 10.96.0.1:443: i/o timeout"
I1127 15:40:41.403412       1 wrapper.go:98] "Exiting"`, "w9c-ksm-apiserver-timeout"), "http", 8080)
						d.Spec.Template.Spec.ServiceAccountName = "kube-state-metrics"
						w8cArgs(&d.Spec.Template, "--port=8080", "--telemetry-port=8081")
						w9cFallbackToLogs(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("kube-state-metrics", ksm, "http", 8080)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("grafana", "docker.io/grafana/grafana:11.2.0", 1, graf, nil, "grafana", 3000))
					},
					func() error { return e.createService(ctx, w8bService("grafana", graf, "grafana", 80)) },
					func() error {
						np := w8cEgressPolicy("egress-baseline", map[string]string{},
							networkingv1.NetworkPolicyEgressRule{Ports: w8cPorts("UDP", 53, "TCP", 53)},
							networkingv1.NetworkPolicyEgressRule{Ports: w8cPorts("TCP", 443)})
						np.Labels = map[string]string{"security.acme.io/baseline": "v3", "app.kubernetes.io/managed-by": "kyverno-generate"}
						return e.createNetworkPolicy(ctx, np)
					},
				)
			},
			Wait: podsWith(w8cLabels("app.kubernetes.io/name", "kube-state-metrics", "app.kubernetes.io/instance", "kube-prometheus-stack"), crashLooping(2)),
		},
		{
			// The catalog chart 2.0 renamed its Service from catalog-api to catalog; the edge
			// nginx config still names catalog-api, which nginx resolves at start and cannot.
			Name: "edge-nginx-upstream-service-renamed", Covers: "the edge nginx crash-loops: '[emerg] host not found in upstream \"catalog-api:8080\" in /etc/nginx/conf.d/default.conf:6'; the ConfigMap's upstream names catalog-api, the Service is now called catalog",
			Source: w9cSrcNginxHost, Class: ClassClue, Hops: 2,
			Problem: "storefront-edge is in CrashLoopBackOff after the catalog upgrade",
			Target:  target("Deployment", "storefront-edge"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "storefront-edge-conf"}, Terms: []string{"host not found", "catalog-api"}},
			Setup: func(ctx context.Context, e *Env) error {
				edge := w8cLabels("app", "storefront-edge", "release", "storefront")
				web := w8cLabels("app", "storefront-web", "release", "storefront")
				cat := w8cLabels("app.kubernetes.io/name", "catalog", "app.kubernetes.io/instance", "catalog", "helm.sh/chart", "catalog-2.0.1")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "storefront-edge-conf", map[string]string{"default.conf": w9cEdgeConf})
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("storefront-web", "registry.acme.io/shop/storefront-web:8.3.1", 2, web, nil, "http", 3000))
					},
					func() error { return e.createService(ctx, w8bService("storefront-web", web, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("catalog", "registry.acme.io/shop/catalog:2.0.1", 2, cat, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("catalog", cat, "http", 8080)) },
					func() error {
						d := w8bDeployment("storefront-edge", "nginxinc/nginx-unprivileged:1.27-alpine", 2, edge, crash("1", "", "w9c-storefront-nginx-host-not-found"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "storefront-edge-conf", "/etc/nginx/conf.d")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("storefront-edge", edge, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("catalog", 2), podsWith(w8cLabels("app", "storefront-edge", "release", "storefront"), crashLooping(2))),
		},
		{
			// The config file is application-production.yml; the new release's Deployment sets
			// SPRING_PROFILES_ACTIVE=prod (the worker still says production), so no datasource.
			Name: "billing-spring-profile-matches-no-file", Covers: "a Spring Boot service exits with 'Failed to configure a DataSource: url attribute is not specified ... (the profiles \"prod\" are currently active)'; the Deployment sets SPRING_PROFILES_ACTIVE=prod, the mounted ConfigMap holds application-production.yml",
			Source: w9cSrcSpringProf, Class: ClassReference, Hops: 1,
			Problem: "billing-service 7.4.0 fails to start; billing-worker on the same config is fine",
			Target:  target("Deployment", "billing-service"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "billing-service"}, Also: []Ref{{Kind: "ConfigMap", Name: "billing-service-config"}},
				Terms: []string{"SPRING_PROFILES_ACTIVE", "application-production.yml"}},
			Setup: func(ctx context.Context, e *Env) error {
				svc := w8cLabels("app", "billing-service", "domain", "billing", "version", "7.4.0")
				wk := w8cLabels("app", "billing-worker", "domain", "billing", "version", "7.3.2")
				db := w8cLabels("app", "billing-db", "domain", "billing")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "billing-service-config", map[string]string{"application-production.yml": `spring:
  datasource:
    url: jdbc:postgresql://billing-db:5432/billing
    username: billing
  jpa:
    open-in-view: false
management:
  endpoint.health.probes.enabled: true
`})
					},
					func() error {
						if err := e.createStatefulSet(ctx, w8bStatefulSet("billing-db", "postgres:16.4", "billing-db", 1, db, nil, "postgres", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("billing-db", db, "postgres", 5432))
					},
					func() error {
						d := w8bDeployment("billing-worker", "registry.acme.io/billing/billing-service:7.3.2", 1, wk, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "production,worker", "SPRING_CONFIG_ADDITIONAL_LOCATION", "optional:file:/workspace/config/")
						mountConfigMap(&d.Spec.Template, "billing-service-config", "/workspace/config")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("billing-service", "registry.acme.io/billing/billing-service:7.4.0", 2, svc, crash("1",
							`Description:

Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.

Reason: Failed to determine a suitable driver class

Action:

Consider the following:
	If you want an embedded database (H2, HSQL or Derby), please put it on the classpath.
	If you have database settings to be loaded from a particular profile you may need to activate it (the profiles "prod" are currently active).`, "w9c-billing-spring-profile"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "SPRING_CONFIG_ADDITIONAL_LOCATION", "optional:file:/workspace/config/")
						mountConfigMap(&d.Spec.Template, "billing-service-config", "/workspace/config")
						w9cFallbackToLogs(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("billing-service", svc, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("billing-worker", 1), podsWith(w8cLabels("app", "billing-service", "domain", "billing", "version", "7.4.0"), crashLooping(2))),
		},
	}
}
