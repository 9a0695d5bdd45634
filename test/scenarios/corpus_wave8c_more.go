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
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Wave 8c, second file: an edge proxy and a logging pipeline whose clue is in their logs, and
// failures that live between objects the controllers own (a cordoned node pool, a budget
// that allows no disruption, a finalizer nobody removes, an autoscaler aimed at an old name,
// a pod stuck on a dead node, a DaemonSet that no longer fits).

const (
	w8cSrcNginxDNS       = "https://davidxia.com/2019/05/more-about-nginx-dns-resolution-than-you-ever-wanted-to-know (nginx resolves a proxy_pass host once at startup and keeps the old IP)"
	w8cSrcFloodStage     = "https://github.com/wazuh/wazuh-dashboard-plugins/issues/1570 (logstash: retrying failed action 403/429 cluster_block_exception, index read-only / allow delete)"
	w8cSrcNodes          = "k8s-docs/concepts/architecture/nodes.md"
	w8cSrcAPIEviction    = "k8s-docs/concepts/scheduling-eviction/api-eviction.md"
	w8cSrcGC             = "k8s-docs/concepts/architecture/garbage-collection.md"
	w8cSrcHPAWalkthrough = "k8s-docs/tasks/run-application/horizontal-pod-autoscale-walkthrough.md"
	w8cSrcForceDeleteSTS = "k8s-docs/tasks/run-application/force-delete-stateful-set-pod.md"
	w8cSrcUpdateDS       = "k8s-docs/tasks/manage-daemon/update-daemon-set.md"
	w8cSrcFlywayChecksum = "https://github.com/quarkusio/registry.quarkus.io/issues/140 (Flyway: Validate failed: Migration checksum mismatch for migration version 3, applied migration edited)"
	w8cSrcVaultTLS       = "https://github.com/hashicorp/vault-helm/issues/450 (Error initializing listener of type tcp: error loading TLS cert: no such file or directory; the Secret holds vault.crt/vault.key/vault.ca)"
)

const w8cEdgeNginxConf = `worker_processes auto;
events { worker_connections 4096; }
http {
  log_format edge '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time uct=$upstream_connect_time urt=$upstream_response_time upstream=$upstream_addr';
  access_log /dev/stdout edge;
  error_log /dev/stderr warn;
  proxy_connect_timeout 5s;
  server {
    listen 8080;
    server_name shop.example.com;
    location = /healthz { return 200 "ok"; }
    location /api/catalog/ { proxy_pass http://catalog-api:8080; }
    location /api/cart { proxy_pass http://cart-api:8080; }
    location / { proxy_pass http://storefront-ui:3000; }
  }
}
`

func wave8cMoreScenarios() []*Scenario {
	return append(wave8cLogScenarios(), wave8cControllerScenarios()...)
}

func wave8cLogScenarios() []*Scenario {
	return []*Scenario{
		{
			// catalog-api was uninstalled and reinstalled during its chart migration: its
			// Service has a new ClusterIP, the edge nginx still connects to the one it
			// resolved at startup, so only /api/catalog times out.
			Name: "edge-nginx-stale-catalog-service-ip", Covers: "shop.example.com answers 504 on /api/catalog only; the Ready edge nginx logs 'upstream timed out (110) while connecting to upstream ... 10.96.118.43:8080', an IP no Service has since catalog-api was recreated; its ConfigMap proxies to catalog-api with no resolver, so nginx resolved it once at start",
			Source: w8cSrcNginxDNS, Class: ClassClue, Hops: 3,
			Problem: "shop.example.com/api/catalog returns 504 since catalog-api was reinstalled this morning; the cart still works and catalog-api pods are healthy",
			Target:  target("Ingress", "shop"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "edge-nginx-conf"}, Terms: []string{"catalog-api"}},
			Setup: func(ctx context.Context, e *Env) error {
				edge := w8cLabels("app", "edge-nginx", "tier", "edge", "team", "storefront")
				cart := w8cLabels("app", "cart-api", "tier", "backend", "team", "storefront")
				ui := w8cLabels("app", "storefront-ui", "tier", "frontend", "team", "storefront")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "edge-nginx-conf", map[string]string{"nginx.conf": w8cEdgeNginxConf})
					},
					func() error { return w8cCatalogAPI(ctx, e) },
					func() error {
						if err := e.createDeployment(ctx, w8bDeployment("cart-api", "registry.example/storefront/cart-api:2.19.0", 2, cart, nil, "http", 8080)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("cart-api", cart, "http", 8080))
					},
					func() error {
						if err := e.createDeployment(ctx, w8bDeployment("storefront-ui", "registry.example/storefront/ui:5.2.1", 2, ui, nil, "http", 3000)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("storefront-ui", ui, "http", 3000))
					},
					func() error {
						d := w8bDeployment("edge-nginx", "nginxinc/nginx-unprivileged:1.27.2-alpine", 2, edge, running("w8c-edge-nginx-stale-upstream"), "http", 8080)
						t := &d.Spec.Template
						t.Spec.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "edge-nginx-conf"}}}}}
						t.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/nginx/nginx.conf", SubPath: "nginx.conf"}}
						w8cReadiness(t, "/healthz", "http")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("edge-nginx", edge, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("shop", "shop.example.com", "edge-nginx", 80))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["reinstalled"] == "" {
					if err := readyReplicas("edge-nginx", 2)(ctx, e); err != nil {
						return err
					}
					// The chart migration: uninstall (Service and Deployment go), install again.
					if err := ignoreNotFound(e.Client.CoreV1().Services(e.Namespace).Delete(ctx, "catalog-api", metav1.DeleteOptions{})); err != nil {
						return err
					}
					if err := ignoreNotFound(e.Client.AppsV1().Deployments(e.Namespace).Delete(ctx, "catalog-api", metav1.DeleteOptions{})); err != nil {
						return err
					}
					e.State["reinstalled"] = "uninstalled"
				}
				if e.State["reinstalled"] == "uninstalled" {
					if _, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "catalog-api", metav1.GetOptions{}); err == nil {
						return fmt.Errorf("catalog-api not gone yet")
					}
					if err := w8cCatalogAPI(ctx, e); err != nil {
						return err
					}
					e.State["reinstalled"] = "yes"
				}
				return all(readyReplicas("catalog-api", 2), readyReplicas("edge-nginx", 2))(ctx, e)
			},
		},
		{
			// The single data node's 30Gi volume filled up; past the flood-stage watermark every
			// index is read-only, so logstash retries 429s forever and Kibana shows nothing new.
			Name: "logstash-es-flood-stage-read-only", Covers: "no new logs in Kibana: logstash (Ready) retries 'cluster_block_exception ... disk usage exceeded flood-stage watermark, index has read-only-allow-delete block'; elasticsearch-0 (Ready) logs the flood stage watermark on its 30Gi data claim",
			Source: w8cSrcFloodStage, Class: ClassRanking, Hops: 3,
			Problem: "Kibana shows no new application logs since about 06:10 and logstash keeps logging retries",
			Target:  target("Deployment", "logstash"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "data-elasticsearch-0"}, Terms: []string{"watermark"}},
			Setup: func(ctx context.Context, e *Env) error {
				es := w8cLabels("app", "elasticsearch", "role", "master-data", "stack", "logging")
				ls := w8cLabels("app", "logstash", "stack", "logging")
				kb := w8cLabels("app", "kibana", "stack", "logging")
				return steps(
					// Elasticsearch requests 1 CPU and 8Gi: a node of its own.
					func() error { return e.ownNode(ctx, "logging") },
					func() error {
						return e.createStaticPV(ctx, "es-data-0", "data-elasticsearch-0", "30Gi", corev1.ReadWriteOnce)
					},
					func() error {
						st := w8bStatefulSet("elasticsearch", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", "elasticsearch-headless", 1, es, running("w8c-elasticsearch-flood-stage"), "http", 9200)
						w8bEnv(&st.Spec.Template, "cluster.name", "logging", "discovery.type", "single-node", "ES_JAVA_OPTS", "-Xms4g -Xmx4g", "xpack.security.enabled", "false")
						w8cRequests(&st.Spec.Template, "1", "8Gi", "", "8Gi")
						e.pin(&st.Spec.Template)
						w8bClaimTemplate(st, "data", "30Gi", "/usr/share/elasticsearch/data")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("elasticsearch-headless", es, "http", 9200)) },
					func() error { return e.createService(ctx, w8bService("elasticsearch", es, "http", 9200)) },
					func() error {
						return e.createConfigMap(ctx, "logstash-pipeline", map[string]string{"logstash.conf": "input { beats { port => 5044 } }\n" +
							"filter { json { source => \"message\" skip_on_invalid_json => true } }\n" +
							"output { elasticsearch { hosts => [\"http://elasticsearch:9200\"] index => \"logs-app-%{+YYYY.MM.dd}\" } }\n"})
					},
					func() error {
						d := w8bDeployment("logstash", "docker.elastic.co/logstash/logstash:8.15.3", 2, ls, running("w8c-logstash-es-read-only"), "beats", 5044)
						mountConfigMap(&d.Spec.Template, "logstash-pipeline", "/usr/share/logstash/pipeline")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("logstash", ls, "beats", 5044)) },
					func() error {
						d := w8bDeployment("kibana", "docker.elastic.co/kibana/kibana:8.15.3", 1, kb, nil, "http", 5601)
						w8bEnv(&d.Spec.Template, "ELASTICSEARCH_HOSTS", "http://elasticsearch:9200")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("kibana", kb, "http", 5601)) },
				)
			},
			Wait: all(w8cStatefulSetReady("elasticsearch", 1), readyReplicas("logstash", 2), readyReplicas("kibana", 1)),
		},
		{
			// The TLS Secret was made with --from-file=vault.crt --from-file=vault.key, as an
			// older guide says; the listener in the chart's config reads tls.crt and tls.key.
			Name: "vault-listener-tls-secret-keys", Covers: "every vault pod crash-loops on 'Error initializing listener of type tcp: error loading TLS cert: open /vault/userconfig/vault-server-tls/tls.crt: no such file or directory'; the Secret mounted there holds vault.crt, vault.key and vault.ca",
			Source: w8cSrcVaultTLS, Class: ClassClue, Hops: 1,
			Problem: "vault-0, vault-1 and vault-2 crash-loop since we switched the listener to TLS",
			Target:  target("StatefulSet", "vault"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "vault-server-tls"}, Also: []Ref{{Kind: "ConfigMap", Name: "vault-config"}},
				Terms: []string{"tls.crt"}},
			Setup: func(ctx context.Context, e *Env) error {
				vault := w8cLabels("app.kubernetes.io/name", "vault", "app.kubernetes.io/instance", "vault", "component", "server")
				injector := w8cLabels("app.kubernetes.io/name", "vault-agent-injector", "app.kubernetes.io/instance", "vault", "component", "webhook")
				return steps(
					func() error {
						return e.createSecret(ctx, "vault-server-tls", map[string]string{"vault.crt": "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIUQ2x...\n-----END CERTIFICATE-----\n",
							"vault.key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx3...\n-----END RSA PRIVATE KEY-----\n", "vault.ca": "-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIUU...\n-----END CERTIFICATE-----\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "vault-config", map[string]string{"extraconfig-from-values.hcl": "disable_mlock = true\nui = true\n" +
							"listener \"tcp\" {\n  address = \"[::]:8200\"\n  cluster_address = \"[::]:8201\"\n" +
							"  tls_cert_file = \"/vault/userconfig/vault-server-tls/tls.crt\"\n  tls_key_file = \"/vault/userconfig/vault-server-tls/tls.key\"\n" +
							"  tls_client_ca_file = \"/vault/userconfig/vault-server-tls/vault.ca\"\n}\n" +
							"storage \"raft\" {\n  path = \"/vault/data\"\n  retry_join {\n    leader_api_addr = \"https://vault-0.vault-internal:8200\"\n  }\n}\nservice_registration \"kubernetes\" {}\n"})
					},
					func() error {
						st := w8bStatefulSet("vault", "hashicorp/vault:1.17.6", "vault-internal", 3, vault, crash("1", "", "w8c-vault-tls-cert-missing"), "https", 8200)
						w8cArgs(&st.Spec.Template, "cp /vault/config/extraconfig-from-values.hcl /tmp/storageconfig.hcl; exec /usr/local/bin/docker-entrypoint.sh vault server -config=/tmp/storageconfig.hcl")
						st.Spec.Template.Spec.Containers[0].Command = []string{"/bin/sh", "-ec"}
						w8bEnv(&st.Spec.Template, "VAULT_ADDR", "https://127.0.0.1:8200", "VAULT_CACERT", "/vault/userconfig/vault-server-tls/vault.ca", "SKIP_SETCAP", "true")
						mountConfigMap(&st.Spec.Template, "vault-config", "/vault/config")
						mountSecret(&st.Spec.Template, "vault-server-tls", "/vault/userconfig/vault-server-tls")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("vault-internal", vault, "https", 8200)) },
					func() error { return e.createService(ctx, w8bService("vault", vault, "https", 8200)) },
					func() error {
						d := w8bDeployment("vault-agent-injector", "hashicorp/vault-k8s:1.4.2", 1, injector, nil, "https", 8080)
						w8bEnv(&d.Spec.Template, "AGENT_INJECT_VAULT_ADDR", "https://vault:8200", "AGENT_INJECT_LISTEN", ":8080")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("vault-agent-injector-svc", injector, "https", 443))
					},
				)
			},
			Wait: podsWith(w8cLabels("app.kubernetes.io/name", "vault", "component", "server"), crashLooping(2)),
		},
		{
			// V3 had already run in production when someone "fixed" the index name in the
			// migrations ConfigMap: Flyway's validation refuses the edited file, the chart's
			// pre-upgrade hook fails and the release never rolls out.
			Name: "invoicing-flyway-edited-migration", Covers: "a helm pre-upgrade Job fails (BackoffLimitExceeded): flyway migrate logs 'Migration checksum mismatch for migration version 3' because V3__add_invoice_due_index.sql in the migrations ConfigMap was edited after it was applied",
			Source: w8cSrcFlywayChecksum, Class: ClassClue, Hops: 2,
			Problem: "helm upgrade invoicing failed: pre-upgrade hooks failed: job invoicing-db-migrate failed: BackoffLimitExceeded",
			Target:  target("Job", "invoicing-db-migrate"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "invoicing-migrations"}, Terms: []string{"checksum mismatch"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app.kubernetes.io/name", "invoicing-db", "app.kubernetes.io/instance", "invoicing", "app.kubernetes.io/component", "database")
				api := w8cLabels("app.kubernetes.io/name", "invoicing-api", "app.kubernetes.io/instance", "invoicing", "app.kubernetes.io/version", "2.7.4")
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("invoicing-db", "postgres:16.4", "invoicing-db", 1, db, nil, "postgres", 5432))
					},
					func() error { return e.createService(ctx, w8bService("invoicing-db", db, "postgres", 5432)) },
					func() error {
						return e.createSecret(ctx, "invoicing-db-credentials", map[string]string{"FLYWAY_USER": "invoicing_owner", "FLYWAY_PASSWORD": "Zk3m-92xQ-ttr8"})
					},
					func() error {
						return e.createConfigMap(ctx, "invoicing-migrations", map[string]string{
							"V1__init.sql":                  "CREATE TABLE invoice (id bigserial PRIMARY KEY, customer_id bigint NOT NULL, total_cents bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now());\n",
							"V2__invoice_due_date.sql":      "ALTER TABLE invoice ADD COLUMN due_date date;\n",
							"V3__add_invoice_due_index.sql": "-- renamed to match the naming convention (INV-412)\nCREATE INDEX IF NOT EXISTS ix_invoice_due_date ON invoice (due_date);\n",
							"V4__invoice_currency.sql":      "ALTER TABLE invoice ADD COLUMN currency char(3) NOT NULL DEFAULT 'EUR';\n",
						})
					},
					func() error {
						if err := e.createDeployment(ctx, w8bDeployment("invoicing-api", "registry.example/finance/invoicing-api:2.7.4", 2, api, nil, "http", 8080)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("invoicing-api", api, "http", 80))
					},
					func() error {
						j := job("invoicing-db-migrate", 2, crash("1", "", "w8c-flyway-checksum-mismatch"))
						j.Annotations = map[string]string{"helm.sh/hook": "pre-upgrade", "helm.sh/hook-weight": "-5", "helm.sh/hook-delete-policy": "before-hook-creation"}
						t := &j.Spec.Template
						t.Labels = w8cLabels("app.kubernetes.io/name", "invoicing-db-migrate", "app.kubernetes.io/instance", "invoicing")
						t.Spec.Containers[0].Name, t.Spec.Containers[0].Image = "flyway", "flyway/flyway:10.17.3-alpine"
						w8cArgs(t, "-url=jdbc:postgresql://invoicing-db:5432/invoicing", "-locations=filesystem:/flyway/sql", "-connectRetries=10", "migrate")
						envFromSecret(t, "invoicing-db-credentials")
						mountConfigMap(t, "invoicing-migrations", "/flyway/sql")
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "invoicing-db-migrate", "BackoffLimitExceeded")
			},
		},
	}
}

// w8cCatalogAPI installs catalog-api (its Deployment and Service), as its chart does.
func w8cCatalogAPI(ctx context.Context, e *Env) error {
	lbl := w8cLabels("app", "catalog-api", "tier", "backend", "team", "storefront")
	d := w8bDeployment("catalog-api", "registry.example/storefront/catalog-api:7.3.0", 2, lbl, nil, "http", 8080)
	w8cReadiness(&d.Spec.Template, "/actuator/health/readiness", "http")
	if err := e.createDeployment(ctx, d); err != nil {
		return err
	}
	return e.createService(ctx, w8bService("catalog-api", lbl, "http", 8080))
}

// w8cHostIngress routes host to service:port.
func w8cHostIngress(name, host, svc string, port int32) *networkingv1.Ingress {
	i := ingress(name, svc, port)
	i.Spec.Rules[0].Host = host
	return i
}

// w8cNodeWithPool creates a kwok-played node of the scenario labelled with the team's pool
// label (and cordoned when unschedulable), and returns its name.
func (e *Env) w8cNodeWithPool(ctx context.Context, name string, unschedulable bool, kv ...string) (string, error) {
	n, err := e.createNode(ctx, nodeSpec{name: name, kwok: true, unschedulable: unschedulable})
	if err != nil {
		return "", err
	}
	if len(kv) > 0 {
		if err := e.labelScenarioNode(ctx, n, w8cLabels(kv...)); err != nil {
			return "", err
		}
	}
	return n, nil
}

// w8cOnPool pins a pod template to the scenario's nodes and to the team's pool label.
func (e *Env) w8cOnPool(t *corev1.PodTemplateSpec, kv ...string) {
	e.pin(t)
	for k, v := range w8cLabels(kv...) {
		t.Spec.NodeSelector[k] = v
	}
}

// w8cPodsOn lists the scenario's pods bound to node.
func (e *Env) w8cPodsOn(ctx context.Context, node string) ([]corev1.Pod, error) {
	l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// w8cTolerateLoss makes pods leave an unreachable or not-ready node after seconds, as teams
// running replicated stateful apps set it instead of the default 300.
func w8cTolerateLoss(t *corev1.PodTemplateSpec, seconds int64) {
	for _, key := range []string{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"} {
		t.Spec.Tolerations = append(t.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(seconds)})
	}
}
