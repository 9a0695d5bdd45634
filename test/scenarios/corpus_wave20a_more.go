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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// w20aKongConfig is the DB-less declarative configuration of the edge gateway: the second
// service's plugin name carries a doubled t.
const w20aKongConfig = `_format_version: "3.0"
_transform: true
services:
- name: orders
  url: http://orders-api:8080
  connect_timeout: 3000
  routes:
  - name: orders
    paths:
    - /v1/orders
    strip_path: false
- name: catalog
  url: http://catalog-api:8080
  plugins:
  - name: rate-limitting
    config:
      minute: 600
      policy: local
  routes:
  - name: catalog
    paths:
    - /v1/catalog
    strip_path: false
plugins:
- name: correlation-id
  config:
    header_name: X-Request-ID
    generator: uuid#counter
`

// w20aCuratorConfig are Curator's client configuration and its two action files.
var w20aCuratorConfig = map[string]string{
	"config.yml": "client:\n  hosts:\n    - logs-es\n  port: 9200\n  timeout: 120\nlogging:\n  loglevel: INFO\n  logformat: json\n",
	"action_file.yml": "actions:\n  1:\n    action: delete_indices\n    description: delete logstash- indices older than 14 days\n    options:\n      ignore_empty_list: true\n    filters:\n    - filtertype: pattern\n      kind: prefix\n      value: logstash-\n" +
		"    - filtertype: age\n      source: name\n      direction: older\n      timestring: '%Y.%m.%d'\n      unit: days\n      unit_count: 14\n",
	"snapshot.yml": "actions:\n  1:\n    action: snapshot\n    options:\n      repository: s3-logs\n      name: logs-%Y.%m.%d\n      wait_for_completion: true\n    filters:\n    - filtertype: pattern\n      kind: prefix\n      value: logstash-\n",
}

func wave20aMoreScenarios() []*Scenario {
	kong := w8cLabels("app.kubernetes.io/name", "kong", "app.kubernetes.io/instance", "edge", "app.kubernetes.io/component", "app")
	bff := w8bLabels("mobile-bff", "mobile")
	search := w8bLabels("search-api", "search", "app.kubernetes.io/version", "7.3.1")
	suggest := w8bLabels("suggest-api", "search", "app.kubernetes.io/version", "7.3.1")
	gitea := w8cLabels("app.kubernetes.io/name", "gitea", "app.kubernetes.io/instance", "gitea")
	giteaDB := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "gitea-postgresql")
	cleanup := w8cLabels("app.kubernetes.io/name", "curator", "app.kubernetes.io/instance", "es-index-cleanup")
	snapshot := w8cLabels("app.kubernetes.io/name", "curator", "app.kubernetes.io/instance", "es-snapshot")
	es := w8cLabels("app.kubernetes.io/name", "elasticsearch", "app.kubernetes.io/instance", "logs-es")
	return []*Scenario{
		{
			// Kong in DB-less mode parses its whole declarative file in init_by_lua; one plugin
			// name it does not know (a typo of rate-limiting) aborts nginx, so every proxy pod
			// crash-loops, kong-proxy has no endpoints and the BFF behind it answers 502/503.
			Name: "mobile-app-502-after-gateway-config-pr", Covers: "mobile-bff is Running but never Ready: '503 Service Unavailable: GET - /health/ready', 'java.net.ConnectException: Failed to connect to kong-proxy/10.96.0.91:80'; kong-proxy has no endpoints because the kong pods exit 1 on 'error parsing declarative config file /kong_dbless/kong.yml: ... in entry 2 of 'services' ... plugin 'rate-limitting' not enabled', a typo in ConfigMap kong-declarative (orders-api and catalog-api behind it are healthy)",
			Source: w20aSrcKong, Class: ClassProvider, Hops: 3,
			Problem: "the mobile app gets 502 on every screen since the gateway config PR was merged; the mobile-bff pods show 0/1 ready",
			Target:  target("Deployment", "mobile-bff"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "kong-declarative"}, Terms: []string{"rate-limitting"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "kong-declarative", kong, map[string]string{"kong.yml": w20aKongConfig})
					},
					func() error {
						d := w11bApp("kong", "proxy", "kong:3.8.0", 2, kong, crash("1", "", "w20a-kong-dbless-plugin"), "proxy", 8000)
						w10aPort(&d.Spec.Template, "status", 8100)
						w8bEnv(&d.Spec.Template, "KONG_DATABASE", "off", "KONG_DECLARATIVE_CONFIG", "/kong_dbless/kong.yml", "KONG_PROXY_LISTEN", "0.0.0.0:8000",
							"KONG_ADMIN_LISTEN", "127.0.0.1:8444 http2 ssl", "KONG_STATUS_LISTEN", "0.0.0.0:8100", "KONG_PLUGINS", "bundled", "KONG_PREFIX", "/kong_prefix/")
						mountConfigMap(&d.Spec.Template, "kong-declarative", "/kong_dbless")
						w10aEmptyDir(&d.Spec.Template, "kong-prefix-dir", "/kong_prefix", 0)
						w8bReadiness(&d.Spec.Template, "/status/ready", "status", 10)
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w20aPinIP(w10aServiceTo("kong-proxy", kong, "http", 80, "proxy"), "10.96.0.91"))
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("orders-api", "registry.example/shop/orders-api:12.4.0", 1, w8bLabels("orders-api", "shop"), nil, "http", 8080), 8080)
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("catalog-api", "registry.example/shop/catalog-api:8.0.2", 1, w8bLabels("catalog-api", "shop"), nil, "http", 8080), 8080)
					},
					func() error {
						d := w11bApp("mobile-bff", "mobile-bff", "registry.example/mobile/mobile-bff:5.2.0", 2, bff,
							w11bReadinessFail("mobile-bff", "w20a-mobile-bff-gateway-refused", "HTTP probe failed with statuscode: 503"), "http", 8080)
						w8bEnv(&d.Spec.Template, "GATEWAY_BASE_URL", "http://kong-proxy", "GATEWAY_TIMEOUT_MS", "3000", "KTOR_ENV", "production")
						w8bReadiness(&d.Spec.Template, "/health/ready", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(kong, crashLooping(2)), podsWith(bff, runningNotReady), readyReplicas("orders-api", 1), readyReplicas("catalog-api", 1)),
		},
		{
			// The HPA manifest is older than the cluster: its scaleTargetRef still says
			// apiVersion extensions/v1beta1. The API server stores it as written, but the HPA
			// controller cannot map Deployment in group extensions, so it never reads the scale,
			// never applies minReplicas, and search-api stays at the Deployment's default of one.
			Name: "search-api-single-pod-despite-autoscaler", Covers: "search-api runs 1 replica while its HPA asks for at least 3: HPA search-api has AbleToScale False, FailedGetScale 'no matches for kind \"Deployment\" in group \"extensions\"': its scaleTargetRef apiVersion is extensions/v1beta1 (suggest-api's HPA, on apps/v1, scaled it to its minimum of 2)",
			Source: w20aSrcHPAGroup, Class: ClassReference, Hops: 1,
			Problem: "KubeHpaReplicasMismatch: search-api has been serving from a single pod all day and p99 latency is through the roof, although its autoscaler minimum is 3",
			Target:  target("Deployment", "search-api"),
			Want:    Want{Culprit: Ref{Kind: "HorizontalPodAutoscaler", Name: "search-api"}, Terms: []string{"extensions/v1beta1"}},
			Setup: func(ctx context.Context, e *Env) error {
				micronaut := func(name string, lbl map[string]string) *appsv1.Deployment {
					d := w11bApp(name, name, "registry.example/search/"+name+":7.3.1", 1, lbl, nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "MICRONAUT_ENVIRONMENTS", "k8s,prod", "ELASTICSEARCH_HTTPHOSTS", "http://search-es:9200", "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=70")
					w8bReadiness(&d.Spec.Template, "/health/readiness", "http", 10)
					return d
				}
				return steps(
					func() error { return e.w11bServe(ctx, micronaut("search-api", search), 80) },
					func() error { return e.w11bServe(ctx, micronaut("suggest-api", suggest), 80) },
					func() error {
						return e.w20aHPA(ctx, "search-api", "extensions/v1beta1", "Deployment", "search-api", 3, 12)
					},
					func() error { return e.w20aHPA(ctx, "suggest-api", "apps/v1", "Deployment", "suggest-api", 2, 6) },
				)
			},
			Wait: all(w8cHPACondition("search-api", autoscalingv2.AbleToScale, "FailedGetScale"), readyReplicas("suggest-api", 2), readyReplicas("search-api", 1)),
		},
		{
			// The volumes of the new local SSD class are hand-made and labelled volume=<data set>;
			// the claim's selector was filled with the claim's own name instead of the volume's
			// label. No Available volume matches, the class has no provisioner, and the pod waits.
			Name: "gitea-down-after-ssd-storage-move", Covers: "gitea's pod is Pending: '0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind'; its claim gitea-shared-storage selects volume=gitea-shared-storage while the Available 10Gi local-ssd volume is labelled volume=gitea-data, and the class (kubernetes.io/no-provisioner) cannot create one (gitea-postgresql's claim, selecting volume=gitea-postgresql, bound its volume)",
			Source: w20aSrcPVCSelect, Class: ClassReference, Hops: 2,
			Problem: "Gitea has been down since we moved it to the new local SSD storage: the pod never starts and git pushes fail",
			Target:  target("Deployment", "gitea"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "gitea-shared-storage"}, Terms: []string{"selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("local-ssd")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "local-ssd", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error {
						return e.w20aPV(ctx, "local-ssd-gitea-data", class, "10Gi", "/mnt/ssd/gitea-data", "", "", map[string]string{"app.kubernetes.io/name": "gitea", "volume": "gitea-data"})
					},
					func() error {
						return e.w20aPV(ctx, "local-ssd-gitea-postgresql", class, "8Gi", "/mnt/ssd/gitea-postgresql", "", "", map[string]string{"app.kubernetes.io/name": "postgresql", "volume": "gitea-postgresql"})
					},
					func() error {
						st := w8bStatefulSet("gitea-postgresql", "docker.io/bitnami/postgresql:16.4.0", "gitea-postgresql-hl", 1, giteaDB, nil, "tcp-postgresql", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "gitea", "POSTGRESQL_USERNAME", "gitea")
						w20aClaimTemplate(st, "data", class, "8Gi", "/bitnami/postgresql", map[string]string{"volume": "gitea-postgresql"})
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("gitea-postgresql", giteaDB, "tcp-postgresql", 5432))
					},
					func() error {
						c := pvc("gitea-shared-storage", class, "10Gi", corev1.ReadWriteOnce)
						c.Spec = w20aClaimSpec(class, "10Gi", map[string]string{"volume": "gitea-shared-storage"})
						c.Labels = gitea
						return e.createPVC(ctx, c)
					},
					func() error {
						d := w11bApp("gitea", "gitea", "gitea/gitea:1.22.3-rootless", 1, gitea, nil, "http", 3000)
						w10aPort(&d.Spec.Template, "ssh", 2222)
						d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
						w8bEnv(&d.Spec.Template, "GITEA__database__DB_TYPE", "postgres", "GITEA__database__HOST", "gitea-postgresql:5432", "GITEA__database__NAME", "gitea", "GITEA__server__ROOT_URL", "https://git.example.com/")
						w17bClaimMount(&d.Spec.Template, "data", "gitea-shared-storage", "/var/lib/gitea")
						return e.w11bServe(ctx, d, 3000)
					},
				)
			},
			Wait: all(podsWith(gitea, unschedulable("didn't find available persistent volumes")), w11aStatefulSetReady("gitea-postgresql", 1)),
		},
		{
			// The curator image's ENTRYPOINT is curator; the CronJob passed its flags as command
			// instead of args, which replaces the entrypoint, so runc tries to exec "--config"
			// and every Job pod fails before the process starts (es-snapshot passes them as args).
			Name: "log-indices-never-pruned", Covers: "every run of CronJob es-index-cleanup fails: its pod exits 128 with 'exec: \"--config\": executable file not found in $PATH' and logs nothing; the CronJob's container sets command: [--config /etc/curator/config.yml /etc/curator/action_file.yml], replacing the image's curator entrypoint, where es-snapshot, on the same image, passes them as args and completes",
			Source: w20aSrcCommandArg, Class: ClassSingle, Hops: 2, Slow: true,
			Problem: "KubeJobFailed for the log index cleanup every run, and the logging cluster disk keeps filling up with old indices",
			Target:  target("CronJob", "es-index-cleanup"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "es-index-cleanup"}, Terms: []string{"command"}},
			Setup: func(ctx context.Context, e *Env) error {
				curator := func(name, action string, lbl map[string]string, asCommand bool) error {
					c := w11aCronJob(name, "docker.io/bitnami/elasticsearch-curator:5.8.4", "* * * * *", false, lbl)
					t := &c.Spec.JobTemplate.Spec.Template
					flags := []string{"--config", "/etc/curator/config.yml", "/etc/curator/" + action}
					if asCommand {
						t.Spec.Containers[0].Command = flags
						t.Annotations = crash("128", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "--config": executable file not found in $PATH: unknown`, "w14a-no-output")
					} else {
						t.Spec.Containers[0].Args = flags
					}
					mountConfigMap(t, "curator-config", "/etc/curator")
					return e.w11aCreateCronJob(ctx, c)
				}
				return steps(
					func() error { return e.w10aConfigMap(ctx, "curator-config", cleanup, w20aCuratorConfig) },
					func() error {
						return e.w11bStore(ctx, "logs-es", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", es, nil, "http", 9200,
							"discovery.type", "single-node", "xpack.security.enabled", "false", "ES_JAVA_OPTS", "-Xms1g -Xmx1g")
					},
					func() error { return curator("es-index-cleanup", "action_file.yml", cleanup, true) },
					func() error { return curator("es-snapshot", "snapshot.yml", snapshot, false) },
				)
			},
			Wait: all(podsWith(cleanup, crashLooping(1)), w11aAnyJobComplete, w11aStatefulSetReady("logs-es", 1)),
		},
	}
}
