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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// w17cHAProxyConfig is the edge proxy's haproxy.cfg: three backends by Service name, the
// accounts one still under the Service's old name.
const w17cHAProxyConfig = `global
    log stdout format raw local0
    maxconn 20000

defaults
    mode http
    log global
    option httplog
    option dontlognull
    timeout connect 5s
    timeout client 60s
    timeout server 60s

listen stats
    bind :8404
    stats enable
    stats uri /stats

frontend fe_www
    bind :8080
    http-request set-header X-Forwarded-Proto https if { hdr(x-forwarded-proto) https }
    acl is_billing path_beg /billing
    acl is_search path_beg /search
    acl is_accounts path_beg /account /login /logout
    use_backend be_billing if is_billing
    use_backend be_search if is_search
    use_backend be_accounts if is_accounts
    default_backend be_search

backend be_billing
    balance roundrobin
    option httpchk GET /healthz
    server billing1 billing:8080 check

backend be_search
    balance roundrobin
    option httpchk GET /healthz
    server search1 search:8080 check

backend be_accounts
    balance roundrobin
    option httpchk GET /healthz
    server accounts1 accounts-api:8080 check
`

func wave17cMoreScenarios() []*Scenario {
	edge := w8cLabels("app.kubernetes.io/name", "haproxy", "app.kubernetes.io/instance", "edge-haproxy")
	media := w8bLabels("media-api", "media")
	thumbs := w8bLabels("thumbnailer", "media")
	minio := w8cLabels("app.kubernetes.io/name", "minio", "app.kubernetes.io/instance", "minio")
	connect := w8cLabels("app.kubernetes.io/name", "cp-kafka-connect", "app.kubernetes.io/instance", "cdc-connect")
	kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/instance", "cdc-kafka")
	inventory := w8bLabels("inventory-service", "warehouse", "app.kubernetes.io/runtime", "quarkus")
	pricing := w8bLabels("pricing-service", "warehouse", "app.kubernetes.io/runtime", "quarkus")
	return []*Scenario{
		{
			// HAProxy resolves every server address while parsing its configuration and
			// refuses to start when one does not resolve (unless init-addr none is set). The
			// accounts Service was renamed to "accounts"; the proxy's ConfigMap still names
			// accounts-api, so the rollout's new pods exit at once and the edge goes down.
			Name: "edge-proxy-restarting-after-rollout", Covers: "edge-haproxy crash-loops: \"[ALERT] (1) : config : parsing [/usr/local/etc/haproxy/haproxy.cfg:N] : 'server accounts1' : could not resolve address 'accounts-api'. Failed to initialize server(s) addr.\"; haproxy.cfg in ConfigMap edge-haproxy-cfg names accounts-api while the Service is accounts (billing and search resolve)",
			Source: w17cSrcHAProxy, Class: ClassReference, Hops: 2,
			Problem: "the edge proxy pods keep restarting since this morning's rollout and the whole site answers 503",
			Target:  target("Deployment", "edge-haproxy"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "edge-haproxy-cfg"}, Terms: []string{"accounts-api"}},
			Setup: func(ctx context.Context, e *Env) error {
				backend := func(name, image string) error {
					d := w11bApp(name, name, image, 1, w8bLabels(name, "www"), nil, "http", 8080)
					w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
					return e.w11bServe(ctx, d, 8080)
				}
				msg := fmt.Sprintf("[ALERT]    (1) : config : parsing [/usr/local/etc/haproxy/haproxy.cfg:%d] : 'server accounts1' : could not resolve address 'accounts-api'.\n[ALERT]    (1) : config : Failed to initialize server(s) addr.",
					w17cLine(w17cHAProxyConfig, "server accounts1"))
				return steps(
					func() error { return backend("billing", "registry.example/www/billing:4.2.0") },
					func() error { return backend("search", "registry.example/www/search:1.30.5") },
					func() error { return backend("accounts", "registry.example/www/accounts:6.0.1") },
					func() error {
						return e.createConfigMap(ctx, "edge-haproxy-cfg", map[string]string{"haproxy.cfg": w17cHAProxyConfig})
					},
					func() error {
						d := w11bApp("edge-haproxy", "haproxy", "docker.io/library/haproxy:2.9.7-alpine", 2, edge, crash("1", msg, "w17c-edge-haproxy-resolve"), "http", 8080)
						w10aPort(&d.Spec.Template, "stats", 8404)
						mountConfigMap(&d.Spec.Template, "edge-haproxy-cfg", "/usr/local/etc/haproxy")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(edge, crashLooping(2)), readyReplicas("accounts", 1), readyReplicas("billing", 1)),
		},
		{
			// The AWS SDK addresses buckets virtual-hosted style (<bucket>.<endpoint host>)
			// unless path style is forced; MinIO behind a plain Service needs path style. With
			// S3_FORCE_PATH_STYLE=false the SDK looks up media-uploads.minio, which no DNS
			// answers, so media-api's storage readiness check fails forever.
			Name: "media-api-never-becomes-ready", Covers: "media-api (Node, AWS SDK v3) is Running but never Ready: its /readyz HeadBucket fails with 'getaddrinfo ENOTFOUND media-uploads.minio'; ConfigMap media-api-config sets S3_FORCE_PATH_STYLE=false, so the SDK prefixes the bucket to the minio host (thumbnailer, with path style, reads the same MinIO fine)",
			Source: w17cSrcPathStyle, Class: ClassClue, Hops: 1,
			Problem: "media-api pods have been 0/1 since we moved uploads from S3 to our in-cluster MinIO; MinIO itself works, the thumbnailer reads from it fine",
			Target:  target("Deployment", "media-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "media-api-config"}, Terms: []string{"S3_FORCE_PATH_STYLE"}},
			Setup: func(ctx context.Context, e *Env) error {
				s3 := func(pathStyle string) map[string]string {
					return map[string]string{"S3_ENDPOINT": "http://minio:9000", "S3_REGION": "us-east-1", "S3_BUCKET": "media-uploads", "S3_FORCE_PATH_STYLE": pathStyle}
				}
				return steps(
					func() error {
						return e.w11bStore(ctx, "minio", "quay.io/minio/minio:RELEASE.2024-10-13T13-34-11Z", minio, nil, "api", 9000, "MINIO_BROWSER", "off")
					},
					func() error {
						return e.createSecret(ctx, "media-s3", map[string]string{"AWS_ACCESS_KEY_ID": "media-app", "AWS_SECRET_ACCESS_KEY": "Wq8xN2vB6mK1pZ4rT7yL0cD3"})
					},
					func() error {
						c := s3("false")
						c["MAX_UPLOAD_MB"], c["SIGNED_URL_TTL"] = "200", "900"
						return e.createConfigMap(ctx, "media-api-config", c)
					},
					func() error {
						d := w11bApp("media-api", "media-api", "registry.example/media/media-api:2.7.0", 2, media,
							w11bReadinessFail("media-api", "w17c-media-api-s3-enotfound", "HTTP probe failed with statuscode: 503"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "media-api-config")
						envFromSecret(&d.Spec.Template, "media-s3")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/readyz", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						c := s3("true")
						c["THUMB_SIZES"] = "160,480,1080"
						return e.createConfigMap(ctx, "thumbnailer-config", c)
					},
					func() error {
						d := w11bApp("thumbnailer", "thumbnailer", "registry.example/media/thumbnailer:1.4.2", 1, thumbs, nil, "metrics", 9100)
						envFromConfigMap(&d.Spec.Template, "thumbnailer-config")
						envFromSecret(&d.Spec.Template, "media-s3")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(media, runningNotReady), readyReplicas("thumbnailer", 1), w11aStatefulSetReady("minio", 1)),
		},
		{
			// Kafka Connect only loads connector plugins found under plugin.path. The init
			// container installs Debezium into /opt/connect-plugins, but CONNECT_PLUGIN_PATH
			// in the worker's ConfigMap lists only the image's own directories, so creating the
			// connector fails with "Failed to find any class that implements Connector".
			Name: "cdc-connector-registration-fails", Covers: "Job register-connectors fails (BackoffLimitExceeded) on Kafka Connect's HTTP 500 'Failed to find any class that implements Connector and which name matches io.debezium.connector.postgresql.PostgresConnector'; cdc-connect's init container installs Debezium into /opt/connect-plugins but CONNECT_PLUGIN_PATH in ConfigMap cdc-connect-env is /usr/share/java,/usr/share/confluent-hub-components",
			Source: w17cSrcConnectPath, Class: ClassClue, Hops: 2,
			Problem: "the register-connectors job fails on every deploy, so the orders CDC connector never gets created; Kafka Connect itself is up and answers on its REST port",
			Target:  target("Job", "register-connectors"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "cdc-connect-env"}, Terms: []string{"PLUGIN_PATH"}},
			Setup: func(ctx context.Context, e *Env) error {
				errLine := `{"error_code":500,"message":"Failed to find any class that implements Connector and which name matches io.debezium.connector.postgresql.PostgresConnector, available connectors are: PluginDesc{klass=class org.apache.kafka.connect.file.FileStreamSinkConnector, name='org.apache.kafka.connect.file.FileStreamSinkConnector', version='7.6.1-ccs', type=sink, typeName='sink', location='file:/usr/share/java/kafka/'}"}`
				return steps(
					func() error {
						return e.w11bStore(ctx, "cdc-kafka", "docker.io/bitnami/kafka:3.7.1", kafka, nil, "client", 9092,
							"KAFKA_CFG_PROCESS_ROLES", "broker,controller", "KAFKA_CFG_NODE_ID", "0", "KAFKA_CFG_LISTENERS", "CLIENT://:9092,CONTROLLER://:9093", "KAFKA_CFG_ADVERTISED_LISTENERS", "CLIENT://cdc-kafka:9092")
					},
					func() error {
						return e.createConfigMap(ctx, "cdc-connect-env", map[string]string{
							"CONNECT_BOOTSTRAP_SERVERS": "cdc-kafka:9092", "CONNECT_GROUP_ID": "cdc-connect", "CONNECT_REST_PORT": "8083",
							"CONNECT_CONFIG_STORAGE_TOPIC": "cdc-connect-configs", "CONNECT_OFFSET_STORAGE_TOPIC": "cdc-connect-offsets", "CONNECT_STATUS_STORAGE_TOPIC": "cdc-connect-status",
							"CONNECT_CONFIG_STORAGE_REPLICATION_FACTOR": "1", "CONNECT_OFFSET_STORAGE_REPLICATION_FACTOR": "1", "CONNECT_STATUS_STORAGE_REPLICATION_FACTOR": "1",
							"CONNECT_KEY_CONVERTER": "org.apache.kafka.connect.json.JsonConverter", "CONNECT_VALUE_CONVERTER": "org.apache.kafka.connect.json.JsonConverter",
							"CONNECT_PLUGIN_PATH": "/usr/share/java,/usr/share/confluent-hub-components",
						})
					},
					func() error {
						d := w11bApp("cdc-connect", "connect", "docker.io/confluentinc/cp-kafka-connect:7.6.1", 1, connect, running("w17c-cdc-connect-plugin-path"), "rest", 8083)
						envFromConfigMap(&d.Spec.Template, "cdc-connect-env")
						d.Spec.Template.Spec.Containers[0].Env = append(d.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "CONNECT_REST_ADVERTISED_HOST_NAME",
							ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}})
						w17cInit(&d.Spec.Template, "install-debezium", "registry.example/platform/debezium-connector-postgres:2.7.3.Final", "connect-plugins", "/opt/connect-plugins",
							"cp", "-r", "/plugins/debezium-connector-postgres", "/opt/connect-plugins/")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/connectors", "rest", 10, 3)
						return e.w11bServe(ctx, d, 8083)
					},
					func() error {
						return e.createConfigMap(ctx, "cdc-connectors", map[string]string{"orders-outbox-cdc.json": `{"name":"orders-outbox-cdc","config":{"connector.class":"io.debezium.connector.postgresql.PostgresConnector","database.hostname":"orders-postgres","database.port":"5432","database.user":"debezium","database.dbname":"orders","topic.prefix":"orders","table.include.list":"public.outbox","plugin.name":"pgoutput"}}`,
							"register.sh": "#!/bin/sh\nset -eu\np() { echo \"[register-connectors] $*\"; }\np \"Connect URL: $CONNECT_URL\"\np \"definitions: $(ls /connectors/*.json)\"\nuntil curl -fsS \"$CONNECT_URL/\" >/dev/null; do p \"waiting for $CONNECT_URL/ ...\"; sleep 5; done\nfor f in /connectors/*.json; do\n  p \"creating connector from $f\"\n  curl -sS --fail-with-body -X POST -H 'Content-Type: application/json' --data @\"$f\" \"$CONNECT_URL/connectors\" || { p \"giving up on $f\"; exit 22; }\ndone\n"})
					},
					func() error {
						j := w15cJob("register-connectors", "docker.io/curlimages/curl:8.9.1", "", 1, w8bLabels("register-connectors", "cdc"),
							sim("fail", annExitCode, "22", annMessage, errLine, annLogs, "w17c-register-connectors"),
							"/connectors/register.sh")
						j.Spec.Template.Spec.Containers[0].Command = []string{"/bin/sh"}
						w8bEnv(&j.Spec.Template, "CONNECT_URL", "http://cdc-connect:8083")
						mountConfigMap(&j.Spec.Template, "cdc-connectors", "/connectors")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("register-connectors", "BackoffLimitExceeded"), readyReplicas("cdc-connect", 1)),
		},
		{
			// quarkus-kubernetes-config GETs each ConfigMap listed in
			// quarkus.kubernetes-config.config-maps at startup and fails the boot on any error.
			// The release added inventory-flags to that list, but the Role still grants get on
			// resourceNames [inventory-service] only, so the GET is forbidden and the app exits.
			Name: "inventory-service-crashes-on-boot", Covers: "inventory-service (Quarkus kubernetes-config) crash-loops: 'Unable to obtain configuration for ConfigMap objects ... configmaps \"inventory-flags\" is forbidden: User \"system:serviceaccount:...:inventory-service\" cannot get resource \"configmaps\"'; Role inventory-config-reader allows get on resourceNames [inventory-service] only (pricing-service, whose Role covers its ConfigMap, is fine)",
			Source: w17cSrcQuarkusRBAC, Class: ClassClue, Hops: 2,
			Problem: "inventory-service crash-loops since yesterday's release; the same image starts fine in the dev cluster",
			Target:  target("Deployment", "inventory-service"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "inventory-config-reader"}, Terms: []string{"inventory-flags"}},
			Setup: func(ctx context.Context, e *Env) error {
				readCM := func(names ...string) rbacv1.PolicyRule {
					return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: names}
				}
				msg := "ERROR [io.qua.run.Application] (main) Failed to start application (with profile [prod]): java.lang.RuntimeException: Unable to obtain configuration for ConfigMap objects from Kubernetes API Server at: https://10.96.0.1:443/\n" +
					"Caused by: io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: GET at: https://10.96.0.1:443/api/v1/namespaces/" + e.Namespace +
					"/configmaps/inventory-flags. Message: Forbidden!Configured service account doesn't have access. Service account may have been revoked. " +
					w15cForbidden(e, `configmaps "inventory-flags"`, "inventory-service", "get", "configmaps", "") + "."
				inv := w11bApp("inventory-service", "inventory-service", "registry.example/warehouse/inventory-service:3.11.0", 2, inventory, crash("1", msg, "w17c-inventory-quarkus-configmap"), "http", 8080)
				w8bEnv(&inv.Spec.Template, "QUARKUS_KUBERNETES_CONFIG_ENABLED", "true", "QUARKUS_KUBERNETES_CONFIG_CONFIG_MAPS", "inventory-service,inventory-flags",
					"QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://inventory-db:5432/inventory")
				prc := w11bApp("pricing-service", "pricing-service", "registry.example/warehouse/pricing-service:1.6.4", 1, pricing, nil, "http", 8080)
				w8bEnv(&prc.Spec.Template, "QUARKUS_KUBERNETES_CONFIG_ENABLED", "true", "QUARKUS_KUBERNETES_CONFIG_CONFIG_MAPS", "pricing-service")
				return steps(
					func() error {
						return e.w11bStore(ctx, "inventory-db", "docker.io/library/postgres:16.4-alpine", w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "inventory-db"), nil, "postgres", 5432, "POSTGRES_DB", "inventory")
					},
					func() error {
						return e.createConfigMap(ctx, "inventory-service", map[string]string{"application.properties": "quarkus.datasource.db-kind=postgresql\nquarkus.hibernate-orm.database.generation=validate\ninventory.reservation.ttl=15m\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "inventory-flags", map[string]string{"application.properties": "inventory.flags.split-shipments=true\ninventory.flags.backorder-eu=false\n"})
					},
					func() error {
						return e.w17cAccount(ctx, &inv.Spec.Template, "inventory-service", "inventory-config-reader", readCM("inventory-service"))
					},
					func() error { return e.w11bServe(ctx, inv, 80) },
					func() error {
						return e.createConfigMap(ctx, "pricing-service", map[string]string{"application.properties": "pricing.currency=EUR\npricing.rounding=HALF_EVEN\n"})
					},
					func() error {
						return e.w17cAccount(ctx, &prc.Spec.Template, "pricing-service", "pricing-config-reader", readCM("pricing-service"))
					},
					func() error { return e.w11bServe(ctx, prc, 80) },
				)
			},
			Wait: all(podsWith(inventory, crashLooping(2)), readyReplicas("pricing-service", 1), w11aStatefulSetReady("inventory-db", 1)),
		},
	}
}
