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
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Wave 20a: what an SRE meets following the Kubernetes debugging pages and the Prometheus
// Operator runbooks, each made concrete with an application (InfluxDB and Telegraf, Neo4j and a
// FastAPI service, Strapi, Kong in DB-less mode, Micronaut, Gitea, Elasticsearch Curator) and
// the error text of a public issue. The problem texts are alerts or tickets: the symptom only.
// Written blind by an outside hand; every Want was fixed from the source before anything ran.

func wave20aScenarios() []*Scenario {
	return append(wave20aFirstScenarios(), wave20aMoreScenarios()...)
}

func wave20aFirstScenarios() []*Scenario {
	influx := w8cLabels("app.kubernetes.io/name", "influxdb2", "app.kubernetes.io/instance", "influxdb")
	kapacitor := w8cLabels("app.kubernetes.io/name", "kapacitor", "app.kubernetes.io/instance", "kapacitor")
	telegraf := w8cLabels("app.kubernetes.io/name", "telegraf", "app.kubernetes.io/instance", "telegraf")
	reports := w8bLabels("reports-api", "finance")
	worker := w8bLabels("reports-worker", "finance")
	billing := w8bLabels("billing-api", "finance")
	graph := w8cLabels("app.kubernetes.io/name", "neo4j", "app.kubernetes.io/instance", "graph-db")
	recs := w8bLabels("recs-api", "recommendations")
	etl := w8bLabels("graph-etl", "recommendations")
	cms := w8bLabels("cms", "content", "app.kubernetes.io/component", "strapi")
	preview := w8bLabels("cms-preview", "content", "app.kubernetes.io/component", "strapi")
	cmsdb := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "cms-postgresql")
	return []*Scenario{
		{
			// local-path-provisioner volumes are hostPath directories pinned to the node that
			// created them. The node pool was replaced overnight: the claim is still Bound to a
			// volume whose nodeAffinity names a node that no longer exists, so the scheduler finds
			// no node for influxdb-0 and Telegraf's writes are refused by a Service without endpoints.
			Name: "metrics-writes-refused-after-pool-swap", Covers: "telegraf logs 'dial tcp 10.96.0.58:8086: connect: connection refused' writing to influxdb; the Service has no endpoints because influxdb-0 is Pending with '3 node(s) had volume node affinity conflict': its claim data-influxdb-0 is bound to a local-path PersistentVolume whose nodeAffinity requires kubernetes.io/hostname ip-10-0-3-17.eu-west-1.compute.internal, a node of the replaced pool (kapacitor's volume, pinned to a live node, mounts fine)",
			Source: w20aSrcLocalPV, Class: ClassProvider, Hops: 4,
			Problem: "Grafana's cluster dashboards stopped getting new points after last night's node pool upgrade; telegraf keeps logging write errors",
			Target:  target("Deployment", "telegraf"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolume", Name: "pvc-3f1c9e52-influxdb", Cluster: true}, Terms: []string{"ip-10-0-3-17"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("local-path")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "local-path", "rancher.io/local-path", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error {
						return e.w20aPV(ctx, "pvc-3f1c9e52-influxdb", class, "20Gi", "/opt/local-path-provisioner/pvc-3f1c9e52_monitoring_data-influxdb-0", "data-influxdb-0", "ip-10-0-3-17.eu-west-1.compute.internal", nil)
					},
					func() error {
						return e.w20aPV(ctx, "pvc-8b07d6a1-kapacitor", class, "5Gi", "/opt/local-path-provisioner/pvc-8b07d6a1_monitoring_data-kapacitor-0", "data-kapacitor-0", "kwok-node-1", nil)
					},
					func() error {
						return e.w20aBoundClaim(ctx, "data-influxdb-0", "pvc-3f1c9e52-influxdb", class, "20Gi", influx)
					},
					func() error {
						return e.w20aBoundClaim(ctx, "data-kapacitor-0", "pvc-8b07d6a1-kapacitor", class, "5Gi", kapacitor)
					},
					func() error {
						st := w8bStatefulSet("influxdb", "influxdb:2.7.10-alpine", "influxdb-headless", 1, influx, nil, "http", 8086)
						st.Spec.Template.Spec.Containers[0].Name = "influxdb"
						w8bEnv(&st.Spec.Template, "DOCKER_INFLUXDB_INIT_MODE", "setup", "DOCKER_INFLUXDB_INIT_ORG", "platform", "DOCKER_INFLUXDB_INIT_BUCKET", "k8s", "INFLUXD_BOLT_PATH", "/var/lib/influxdb2/influxd.bolt", "INFLUXD_ENGINE_PATH", "/var/lib/influxdb2")
						w8bReadiness(&st.Spec.Template, "/health", "http", 10)
						w20aClaimTemplate(st, "data", class, "20Gi", "/var/lib/influxdb2", nil)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("influxdb-headless", influx, "http", 8086)); err != nil {
							return err
						}
						return e.createService(ctx, w20aPinIP(w8bService("influxdb", influx, "http", 8086), "10.96.0.58"))
					},
					func() error {
						st := w8bStatefulSet("kapacitor", "kapacitor:1.7.5-alpine", "kapacitor", 1, kapacitor, nil, "http", 9092)
						w8bEnv(&st.Spec.Template, "KAPACITOR_INFLUXDB_0_URLS_0", "http://influxdb:8086", "KAPACITOR_STORAGE_BOLTDB", "/var/lib/kapacitor/kapacitor.db")
						w20aClaimTemplate(st, "data", class, "5Gi", "/var/lib/kapacitor", nil)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bHeadless("kapacitor", kapacitor, "http", 9092))
					},
					func() error {
						d := w11bApp("telegraf", "telegraf", "telegraf:1.32.2-alpine", 1, telegraf, running("w20a-telegraf-influx-refused"), "metrics", 9273)
						w8bEnv(&d.Spec.Template, "INFLUX_URL", "http://influxdb:8086", "INFLUX_ORG", "platform", "INFLUX_BUCKET", "k8s", "HOSTNAME", "telegraf")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(influx, unschedulable("node affinity")), w17bClaimBound("data-influxdb-0"), w11aStatefulSetReady("kapacitor", 1), readyReplicas("telegraf", 1)),
		},
		{
			// The namespace's LimitRange caps a whole pod (type Pod) at 1Gi of memory. The release
			// added the Cloud SQL Auth Proxy as a sidecar with its own 512Mi limit next to the
			// app's 1Gi: every container is within bounds, their sum is not, and admission refuses
			// each pod the ReplicaSet tries to create.
			Name: "finance-reports-zero-pods-after-db-move", Covers: "reports-api has 0 of 2 replicas: its ReplicaSet's FailedCreate says 'pods ... is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1536Mi'; LimitRange finance-tenant-limits caps a pod at 1Gi, the app container alone has a 1Gi limit and the new cloud-sql-proxy sidecar adds 512Mi (billing-api, with the same sidecar under smaller limits, and reports-worker run)",
			Source: w20aSrcPodLimit, Class: ClassMechanism, Hops: 2,
			Problem: "KubeDeploymentReplicasMismatch: reports-api has no pods at all since this morning's release that moved it onto the managed database",
			Target:  target("Deployment", "reports-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "reports-api"}, Also: []Ref{{Kind: "LimitRange", Name: "finance-tenant-limits"}}, Terms: []string{"1Gi", "cloud-sql-proxy"}},
			Setup: func(ctx context.Context, e *Env) error {
				proxy := func(t *corev1.PodTemplateSpec, instance, limit string) {
					c := w10aContainer(t, "cloud-sql-proxy", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1", "", 0, "--port=5432", "--structured-logs", "--health-check", instance)
					w20aMemoryLimit(c, "128Mi", limit)
				}
				return steps(
					func() error { return e.ownNode(ctx, "finance-pool") },
					func() error {
						return e.w13bLimitRange(ctx, "finance-tenant-limits",
							corev1.LimitRangeItem{Type: corev1.LimitTypePod, Max: w13bList("memory", "1Gi")},
							corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Max: w13bList("memory", "1Gi")})
					},
					func() error {
						d := w11bApp("reports-api", "reports-api", "registry.example/finance/reports-api:3.4.0", 2, reports, nil, "http", 8080)
						w20aMemoryLimit(&d.Spec.Template.Spec.Containers[0], "768Mi", "1Gi")
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "SPRING_DATASOURCE_URL", "jdbc:postgresql://127.0.0.1:5432/finance", "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75")
						proxy(&d.Spec.Template, "acme-finance:europe-west1:finance-pg", "512Mi")
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("billing-api", "billing-api", "registry.example/finance/billing-api:2.9.3", 1, billing, nil, "http", 8080)
						w20aMemoryLimit(&d.Spec.Template.Spec.Containers[0], "384Mi", "640Mi")
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgres://billing@127.0.0.1:5432/billing")
						proxy(&d.Spec.Template, "acme-finance:europe-west1:finance-pg", "256Mi")
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("reports-worker", "reports-worker", "registry.example/finance/reports-api:3.4.0", 1, worker, nil, "metrics", 9090)
						w20aMemoryLimit(&d.Spec.Template.Spec.Containers[0], "512Mi", "768Mi")
						w8cArgs(&d.Spec.Template, "--mode=worker", "--queue=report-jobs")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(w11aEvent("ReplicaSet", "FailedCreate", "maximum memory usage per Pod"), readyReplicas("billing-api", 1), readyReplicas("reports-worker", 1)),
		},
		{
			// The chart names the container ports bolt and http and the Service ports tcp-bolt and
			// tcp-http. The lockdown's allow rule copied the Service's port name: a named port in a
			// NetworkPolicy is looked up among the selected pods' container ports, so tcp-bolt
			// matches nothing and nothing is admitted to Bolt; the driver times out.
			Name: "recs-api-graph-timeouts-after-lockdown", Covers: "recs-api (FastAPI, neo4j driver) exits 3 at startup on 'neo4j.exceptions.ServiceUnavailable: Couldn't connect to graph-db:7687 ... Timed out trying to establish connection'; graph-db is Ready, but under default-deny-ingress the rule graph-db-allow-recs admits recs-api on the named port tcp-bolt, the Service's port name, while the Neo4j container port is named bolt (graph-etl, admitted on 7687, connects)",
			Source: w20aSrcNamedPort, Class: ClassProvider, Hops: 2,
			Problem: "recs-api restarts over and over with graph database timeouts since the namespace lockdown went in, although the graph ETL still loads data fine",
			Target:  target("Deployment", "recs-api"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "graph-db-allow-recs"}, Terms: []string{"tcp-bolt"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("graph-db", "neo4j:5.26.0-community", "graph-db-headless", 1, graph, nil, "bolt", 7687)
						st.Spec.Template.Spec.Containers[0].Name = "neo4j"
						w10aPort(&st.Spec.Template, "http", 7474)
						w8bEnv(&st.Spec.Template, "NEO4J_AUTH", "neo4j/changeit-in-vault", "NEO4J_server_default__listen__address", "0.0.0.0", "NEO4J_server_memory_heap_max__size", "2G")
						w8bReadiness(&st.Spec.Template, "/", "http", 10)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("graph-db-headless", graph, "bolt", 7687)); err != nil {
							return err
						}
						s := w10aServiceTo("graph-db", graph, "tcp-bolt", 7687, "bolt")
						s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "tcp-http", Port: 7474, TargetPort: intstr.FromString("http")})
						return e.createService(ctx, w20aPinIP(s, "10.96.0.77"))
					},
					func() error { return e.createNetworkPolicy(ctx, w20aDenyIngress("default-deny-ingress")) },
					func() error {
						return e.createNetworkPolicy(ctx, w20aAllowFrom("graph-db-allow-recs", graph, recs, intstr.FromString("tcp-bolt")))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w20aAllowFrom("graph-db-allow-etl", graph, etl, intstr.FromInt32(7687)))
					},
					func() error {
						d := w11bApp("recs-api", "recs-api", "registry.example/recs/recs-api:1.18.2", 2, recs, crash("3", "", "w20a-recs-api-neo4j-timeout"), "http", 8000)
						w8bEnv(&d.Spec.Template, "GRAPH_URI", "neo4j://graph-db:7687", "GRAPH_DATABASE", "recs", "GRAPH_USER", "neo4j", "UVICORN_WORKERS", "2")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("graph-etl", "graph-etl", "registry.example/recs/graph-etl:1.18.2", 1, etl, nil, "metrics", 9100)
						w8bEnv(&d.Spec.Template, "GRAPH_URI", "bolt://graph-db:7687", "GRAPH_DATABASE", "recs", "BATCH_SIZE", "5000")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(recs, crashLooping(2)), w11aStatefulSetReady("graph-db", 1), readyReplicas("graph-etl", 1)),
		},
		{
			// Strapi 4's config/admin.js reads auth.secret from ADMIN_JWT_SECRET and the admin
			// bootstrap throws when it is empty. The production Secret was rebuilt from the
			// project's .env.example during the Vault re-sync, which lists every other Strapi
			// secret but not that one; envFrom silently leaves the variable unset.
			Name: "cms-editors-locked-out-after-resync", Covers: "cms (Strapi 4) crash-loops with 'Missing auth.secret. Please set auth.secret in config/admin.js'; its envFrom Secret cms-env carries APP_KEYS, API_TOKEN_SALT, JWT_SECRET, TRANSFER_TOKEN_SALT and the DATABASE_* keys but no ADMIN_JWT_SECRET, which config/admin.js reads (cms-preview, whose Secret has it, runs)",
			Source: w20aSrcStrapi, Class: ClassClue, Hops: 1,
			Problem: "the CMS pods restart in a loop since the secrets were re-synced from Vault this morning; editors cannot log in",
			Target:  target("Deployment", "cms"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "cms-env"}, Terms: []string{"ADMIN_JWT_SECRET"}},
			Setup: func(ctx context.Context, e *Env) error {
				common := func(db string) map[string]string {
					return map[string]string{
						"APP_KEYS":       "kJx0Vd1m8Qk3pUe2YwR7tA==,c2VjcmV0LWtleS0y9ZQ==,Pm4Lq8vB2nX0sY6hJ1kR3w==,wE5tR7yU9iO1pA3sD5fG7h==",
						"API_TOKEN_SALT": "Hs8dF2kLm9Qw4Er6Ty1Ui3==", "JWT_SECRET": "Zx7Cv5Bn3Mq1Wl9Ek2Rj4T==", "TRANSFER_TOKEN_SALT": "Nb4Vc6Xz8Lk0Jh2Gf4Ds6A==",
						"DATABASE_CLIENT": "postgres", "DATABASE_HOST": "cms-postgresql", "DATABASE_PORT": "5432",
						"DATABASE_NAME": db, "DATABASE_USERNAME": db, "DATABASE_PASSWORD": "pg-" + db + "-Tq93hLx",
					}
				}
				withAdmin := common("cms_preview")
				withAdmin["ADMIN_JWT_SECRET"] = "Qe1Rt3Yu5Io7Pa9Sd2Fg4H=="
				return steps(
					func() error {
						return e.w11bStore(ctx, "cms-postgresql", "docker.io/bitnami/postgresql:16.4.0", cmsdb, nil, "tcp-postgresql", 5432, "POSTGRESQL_DATABASE", "cms")
					},
					func() error { return e.w17bStringSecret(ctx, "cms-env", cms, common("cms")) },
					func() error { return e.w17bStringSecret(ctx, "cms-preview-env", preview, withAdmin) },
					func() error {
						d := w11bApp("cms", "strapi", "registry.example/content/cms:4.25.11", 2, cms, crash("1", "", "w20a-cms-strapi-admin-secret"), "http", 1337)
						envFromSecret(&d.Spec.Template, "cms-env")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "HOST", "0.0.0.0", "PORT", "1337")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("cms-preview", "strapi", "registry.example/content/cms:4.25.11", 1, preview, nil, "http", 1337)
						envFromSecret(&d.Spec.Template, "cms-preview-env")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "HOST", "0.0.0.0", "PORT", "1337", "STRAPI_PREVIEW", "true")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(cms, crashLooping(2)), readyReplicas("cms-preview", 1), w11aStatefulSetReady("cms-postgresql", 1)),
		},
	}
}
