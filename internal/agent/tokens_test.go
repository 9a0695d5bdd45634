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

package agent_test

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// mountCMAs mounts ConfigMap name as volume vol at path in the first container.
func mountCMAs(vol, name, at string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: vol, MountPath: at})
	}
}

// mountSecretAt mounts Secret name at path in the first container.
func mountSecretAt(vol, name, at string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: vol, MountPath: at, ReadOnly: true})
	}
}

// A token the error quotes (a regex, a directive, a level, an engine name) is looked up in
// the configuration the workload is given; its ConfigMap key, or the workload's arguments,
// is the culprit, whatever the pod's state and the software.
func TestQuotedTokenFollowedToItsConfiguration(t *testing.T) {
	cases := []depCase{
		{name: "a Ready server logs one reload failure quoting a bad value of its mounted file", problem: "the new alert route never fires",
			objs: func() []runtime.Object {
				o := app("alertrouter", 1, mountCMAs("cfg", "alertrouter-config", "/etc/alertrouter"), nil)
				return append(o, cmWith("alertrouter-config", "router.yml", "route:\n  receiver: team-pager\n  group_wait: 30s\n  matchers: ['severity=~\"crit(ical|\"']\n"), fx.Node("node-1"))
			},
			logs: logBook{"alertrouter-": "level=info msg=\"Loading configuration file\" file=/etc/alertrouter/router.yml\nlevel=info msg=\"Completed loading of configuration file\"\nlevel=info msg=\"Listening\" address=:9093\n" +
				"level=error msg=\"Error reloading config\" err=\"bad matcher format: severity=~\\\"crit(ical|\\\"\"\nlevel=info msg=\"still serving the previous configuration\"\n"},
			rule: "config-value-rejected", culprit: "ConfigMap/alertrouter-config", affected: []string{"Deployment/alertrouter"},
			terms: []string{"router.yml", "alertrouter-config", "Error reloading config"}},
		{name: "a crash-looping agent names a plugin of its mounted file that does not exist, in a sentence with a contraction", problem: "the log shipper pods never become ready",
			objs: func() []runtime.Object {
				o := app("shipper", 2, mountCMAs("cfg", "shipper-pipeline", "/etc/shipper"), crashing)
				return append(o, cmWith("shipper-pipeline", "pipeline.conf", "[INPUT]\n    Name tail\n\n[OUTPUT]\n    Name lokki\n    Host loki-gateway\n"), fx.Node("node-1"))
			},
			logs: logBook{"shipper-": "shipper v2.4 starting\n[info] input tail.0 initializing\n[error] section 'output' names a plugin that doesn't exist: 'lokki'\n[error] configuration contains errors, aborting\n"},
			rule: "config-value-rejected", culprit: "ConfigMap/shipper-pipeline", affected: []string{"Deployment/shipper"},
			terms: []string{"lokki", "pipeline.conf", "“Name lokki”"}},
		{name: "a renamed setting shown in parentheses, given as a literal env value", problem: "the ring never forms after the change",
			objs: func() []runtime.Object {
				o := app("ring", 1, withEnv("RING_ZONE", "zone-b2"), crashing)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"ring-": "ERROR node refuses to join: configured zone (zone-b2) differs from the zone on disk (zone-a1)\n"},
			rule: "config-value-rejected", culprit: "Deployment/ring", terms: []string{"zone-b2", "RING_ZONE"}},
		{name: "a Ready server's one error quoting a token its configuration does not hold is no finding", problem: "is the api healthy?",
			objs: func() []runtime.Object {
				o := app("api", 1, mountCMAs("cfg", "api-config", "/etc/api"), nil)
				return append(o, cmWith("api-config", "api.yml", "listen: 8080\nroutes:\n  - /api/v1\n"), fx.Node("node-1"))
			},
			logs: logBook{"api-": "level=info msg=started\nlevel=error msg=\"invalid request\" path=\"/api/v2/orders\" client=\"batch-7\"\nlevel=info msg=ok\n"},
			rule: "no-problem-found", culprit: ""},
		{name: "nginx crash-loops on an unknown directive from its conf.d ConfigMap", problem: "the edge proxy keeps restarting",
			objs: func() []runtime.Object {
				o := app("edge-proxy", 2, mountCMAs("conf", "edge-proxy-conf", "/etc/nginx/conf.d"), crashing)
				return append(o, cmWith("edge-proxy-conf", "default.conf", "server {\n  listen 8080;\n  proxy_bufer_size 16k;\n  location / { proxy_pass http://shop:80; }\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"edge-proxy-": "/docker-entrypoint.sh: Configuration complete; ready for start up\n2026/11/27 10:00:00 [emerg] 1#1: unknown directive \"proxy_bufer_size\" in /etc/nginx/conf.d/default.conf:3\nnginx: [emerg] unknown directive \"proxy_bufer_size\" in /etc/nginx/conf.d/default.conf:3\n"},
			rule: "config-value-rejected", culprit: "ConfigMap/edge-proxy-conf", affected: []string{"Deployment/edge-proxy"},
			terms: []string{"proxy_bufer_size", "default.conf", "edge-proxy-conf"}},
		{name: "a worker rejects a level its envFrom ConfigMap sets", problem: "ingest workers crash",
			objs: func() []runtime.Object {
				o := app("ingest", 2, envFrom("ingest-settings"), crashing)
				return append(o, cmWith("ingest-settings", "LOG_LEVEL", "verbose", "BATCH", "500"), fx.Node("node-1"))
			},
			logs: logBook{"ingest-": "Traceback (most recent call last):\n  File \"/app/main.py\", line 12, in <module>\nValueError: invalid log level 'verbose', expected one of debug, info, warning, error\n"},
			rule: "config-value-rejected", culprit: "ConfigMap/ingest-settings", affected: []string{"Deployment/ingest"},
			terms: []string{"verbose", "LOG_LEVEL", "ingest-settings"}},
		{name: "a long JSON record quotes the rejected value past the quoted window", problem: "the shipper pods restart",
			objs: func() []runtime.Object {
				o := app("shipper", 1, envFrom("shipper-env"), crashing)
				return append(o, cmWith("shipper-env", "OUTPUT_CODEC", "zstd2", "OUTPUT_TOPIC", "logs"), fx.Node("node-1"))
			},
			logs: logBook{"shipper-": `{"ts":"2026-11-27T10:00:00Z","level":"fatal","logger":"pipeline.output.kafka.producer.builder","caller":"builder/producer.go:212","msg":"cannot build output pipeline","pipeline":"default-logs-to-kafka-cluster-eu-west-1","stage":"output","attempt":1,"hint":"check the output section of the pipeline definition and the environment it is rendered from","error":"codec: unknown compression codec \"zstd2\" (known: none, gzip, snappy, lz4, zstd)"}` + "\n"},
			rule: "config-value-rejected", culprit: "ConfigMap/shipper-env", affected: []string{"Deployment/shipper"},
			terms: []string{"zstd2", "OUTPUT_CODEC"}},
		{name: "a database rejects an engine its arguments name", problem: "kvstore pods crash-loop after the upgrade",
			objs: func() []runtime.Object {
				o := app("kvstore", 1, withArgs("--data-dir=/data", "--storage-engine=rocks2"), crashing)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"kvstore-": "2026-11-27T10:00:00Z INF starting kvstore v4\n2026-11-27T10:00:00Z ERR fatal: unsupported storage engine `rocks2` (supported: rocksdb, pebble)\n"},
			rule: "config-value-rejected", culprit: "Deployment/kvstore",
			terms: []string{"rocks2", "arguments"}},
	}
	runDepCases(t, cases)
}

// An operator or client that reads a Secret or ConfigMap through the API names the object
// and the key; the object that lacks the key (or does not exist) is the culprit.
func TestNamedObjectAndKeyFromErrorText(t *testing.T) {
	cases := []depCase{
		{name: "a Ready operator repeats that a Secret lacks the key its resource names", problem: "the extra scrape jobs never appear",
			objs: func() []runtime.Object {
				o := app("metrics-operator", 1, nil, nil)
				return append(o, fx.Secret(ns, "extra-scrape", "extra-scrape.yaml"), fx.Node("node-1"))
			},
			logs: logBook{"metrics-operator-": strings.Repeat("level=info msg=\"sync\" key=main\nlevel=error msg=\"sync failed: loading additional scrape configs from Secret failed: key scrape.yaml could not be found in secret extra-scrape\"\n", 3)},
			rule: "secret-key-missing", culprit: "Secret/extra-scrape", affected: []string{"Deployment/metrics-operator"},
			terms: []string{"scrape.yaml", "extra-scrape.yaml", "extra-scrape"}},
		{name: "a controller crash-loops on a ConfigMap without the key it reads", problem: "flag-service restarts",
			objs: func() []runtime.Object {
				o := app("flag-service", 1, nil, crashing)
				return append(o, cmWith("feature-flags", "flags.yml", "beta: true\n"), fx.Node("node-1"))
			},
			logs: logBook{"flag-service-": "E1127 10:00:00.000000 1 main.go:51] failed to start: configmap feature-flags has no key \"flags.yaml\"\n"},
			rule: "configmap-key-missing", culprit: "ConfigMap/feature-flags", affected: []string{"Deployment/flag-service"},
			terms: []string{"flags.yaml", "flags.yml"}},
		{name: "an issuer controller repeats that the Secret it reads does not exist", problem: "certificates are not issued",
			objs: func() []runtime.Object {
				o := app("issuer-controller", 1, nil, nil)
				return append(o, fx.Secret(ns, "acme-account", "tls.key"), fx.Node("node-1"))
			},
			logs: logBook{"issuer-controller-": strings.Repeat("E1127 10:00:00.000000 1 controller.go:162] error getting issuer private key: secrets \"acme-account-key\" not found\n", 3)},
			rule: "secret-missing", culprit: "Secret/acme-account-key", affected: []string{"Deployment/issuer-controller"},
			terms: []string{"acme-account-key"}},
	}
	runDepCases(t, cases)
}

// A file the configuration expects that the mounted Secret does not hold: the Secret is the
// culprit, the configuration that names the path is named with it, and the key it holds
// instead is suggested.
func TestMissingMountedFileNamesTheConfigThatPointsAtIt(t *testing.T) {
	cases := []depCase{
		{name: "nginx config points at server.crt, the Secret holds tls.crt", problem: "gateway pods crash since TLS was turned on",
			objs: func() []runtime.Object {
				o := app("gateway", 2, all(mountCMAs("conf", "gateway-nginx", "/etc/nginx/conf.d"), mountSecretAt("tls", "gateway-tls", "/etc/tls")), crashing)
				return append(o, cmWith("gateway-nginx", "ssl.conf", "server {\n  listen 8443 ssl;\n  ssl_certificate /etc/tls/server.crt;\n  ssl_certificate_key /etc/tls/server.key;\n}\n"),
					fx.Secret(ns, "gateway-tls", "tls.crt", "tls.key"), fx.Node("node-1"))
			},
			logs: logBook{"gateway-": "nginx: [emerg] cannot load certificate \"/etc/tls/server.crt\": BIO_new_file() failed (SSL: error:80000002:system library::No such file or directory)\n"},
			rule: "config-file-missing", culprit: "Secret/gateway-tls", affected: []string{"ConfigMap/gateway-nginx", "Deployment/gateway"},
			terms: []string{"server.crt", "tls.crt", "gateway-nginx"}},
		{name: "an HCL listener in a projected-free mount points at a key the Secret lacks", problem: "secrets-store pods crash-loop",
			objs: func() []runtime.Object {
				o := app("secrets-store", 1, all(mountCMAs("cfg", "store-config", "/config"), mountSecretAt("certs", "store-certs", "/certs")), crashing)
				return append(o, cmWith("store-config", "server.hcl", "listener \"tcp\" {\n  tls_cert_file = \"/certs/cert.pem\"\n  tls_key_file = \"/certs/key.pem\"\n}\n"),
					fx.Secret(ns, "store-certs", "store.pem", "store-key.pem"), fx.Node("node-1"))
			},
			logs: logBook{"secrets-store-": "Error initializing listener of type tcp: error loading TLS cert: open /certs/cert.pem: no such file or directory\n"},
			rule: "config-file-missing", culprit: "Secret/store-certs", affected: []string{"ConfigMap/store-config"},
			terms: []string{"cert.pem", "store-config", "store.pem"}},
	}
	runDepCases(t, cases)
}

// projected mounts the ConfigMaps and Secrets named ("ConfigMap/x", "Secret/y") as one
// projected volume at at.
func projected(at string, sources ...string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		var src []corev1.VolumeProjection
		for _, x := range sources {
			kind, name, _ := strings.Cut(x, "/")
			if kind == "Secret" {
				src = append(src, corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: name}}})
			} else {
				src = append(src, corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: name}}})
			}
		}
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: src}}})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "proj", MountPath: at})
	}
}

// Files of a projected volume come from whichever source provides them: a missing one is
// blamed on the source that holds a key like it, an error about a present one on its
// ConfigMap.
func TestProjectedVolumeFiles(t *testing.T) {
	cases := []depCase{
		{name: "a projected Secret holds client.pem, the app opens client.crt", problem: "sync-agent crash-loops",
			objs: func() []runtime.Object {
				o := app("sync-agent", 1, projected("/etc/sync", "ConfigMap/sync-settings", "Secret/sync-client-tls"), crashing)
				return append(o, cmWith("sync-settings", "sync.toml", "interval = \"30s\"\n"), fx.Secret(ns, "sync-client-tls", "client.pem", "client-key.pem"), fx.Node("node-1"))
			},
			logs: logBook{"sync-agent-": "Error: failed to read client certificate: open /etc/sync/client.crt: no such file or directory\n"},
			rule: "config-file-missing", culprit: "Secret/sync-client-tls", affected: []string{"Deployment/sync-agent"},
			terms: []string{"client.crt", "client.pem"}},
		{name: "a Ready evaluator repeats an error about a rules file of a projected ConfigMap", problem: "alerts stopped firing",
			objs: func() []runtime.Object {
				o := app("evaluator", 1, projected("/etc/eval", "ConfigMap/eval-main", "ConfigMap/eval-rules"), nil)
				return append(o, cmWith("eval-main", "main.yml", "rule_files: [/etc/eval/team.rules]\n"), cmWith("eval-rules", "team.rules", "alert: X\nexpr: rate(x[5m] > 1\n"), fx.Node("node-1"))
			},
			logs: logBook{"evaluator-": strings.Repeat("level=warn msg=\"rule group failed\" file=/etc/eval/team.rules err=\"1:12: parse error: unclosed left bracket\"\n", 3)},
			rule: "app-error-logged", culprit: "ConfigMap/eval-rules", affected: []string{"Deployment/evaluator"},
			terms: []string{"team.rules", "eval-rules"}},
	}
	runDepCases(t, cases)
}

// migrationJob is a failed Job whose pod mounts ConfigMap cm at at.
func migrationJob(name, cm, at string) []runtime.Object {
	j := fx.Job(ns, name, "registry.example/"+name+":1")
	j.Status.Failed = 3
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}
	if cm != "" {
		mountCMAs("migrations", cm, at)(&j.Spec.Template.Spec)
	}
	return []runtime.Object{j, fx.FailedJobPod(j, "abcde", 1)}
}

// A migration tool's refusal names a version; the key of the mounted ConfigMap that holds
// it (or the image, when no ConfigMap holds migrations) is the culprit.
func TestMigrationRefusalFollowedToTheMigrations(t *testing.T) {
	cases := []depCase{
		{name: "flyway checksum mismatch in a Job, migrations from a ConfigMap", problem: "the pre-upgrade hook failed",
			objs: func() []runtime.Object {
				return append(migrationJob("ledger-migrate", "ledger-sql", "/flyway/sql"), cmWith("ledger-sql", "V1__init.sql", "create table a();", "V2__accounts.sql", "create table b();", "V3__index.sql", "create index x on b(id);"), fx.Node("node-1"))
			},
			logs: logBook{"ledger-migrate-": "Flyway OSS Edition 10.1.0 by Redgate\nERROR: Validate failed: Migrations have failed validation\nMigration checksum mismatch for migration version 2\n-> Applied to database : 1234\n-> Resolved locally    : 5678\n"},
			rule: "migration-rejected", culprit: "ConfigMap/ledger-sql", affected: []string{"Job/ledger-migrate"},
			terms: []string{"checksum mismatch", "V2__accounts.sql", "edited"}},
		{name: "golang-migrate dirty database in a crash-looping Deployment", problem: "orders-api does not start",
			objs: func() []runtime.Object {
				o := app("orders-api", 1, mountCMAs("m", "orders-migrations", "/migrations"), crashing)
				return append(o, cmWith("orders-migrations", "000003_orders.up.sql", "create table orders();", "000004_orders_idx.up.sql", "create index on orders(id);", "000004_orders_idx.down.sql", "drop index x;"), fx.Node("node-1"))
			},
			logs: logBook{"orders-api-": "2026/11/27 10:00:00 starting orders-api\n2026/11/27 10:00:00 migrate: error: Dirty database version 4. Fix and force version.\n"},
			rule: "migration-rejected", culprit: "ConfigMap/orders-migrations", affected: []string{"Deployment/orders-api"},
			terms: []string{"dirty", "000004_orders_idx"}},
		{name: "alembic cannot locate a revision shipped in the image", problem: "catalog migrations fail",
			objs: func() []runtime.Object {
				return append(migrationJob("catalog-migrate", "", ""), fx.Node("node-1"))
			},
			logs: logBook{"catalog-migrate-": "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\nERROR [alembic.util.messaging] Can't locate revision identified by 'ae1027a6acf'\nFAILED: Can't locate revision identified by 'ae1027a6acf'\n"},
			rule: "migration-rejected", culprit: "Job/catalog-migrate",
			terms: []string{"ae1027a6acf", "image"}},
	}
	runDepCases(t, cases)
}

func envFromSecret(name string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = append(s.Containers[0].EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}})
	}
}

// A name a client asks its server for and does not get comes from its connection settings:
// a ConfigMap key when one holds it, else the Secret key it loads them from (never read);
// the server-side ConfigMap that declares the name spelt otherwise is named with it.
func TestAskedNameFollowedToTheClientsSettings(t *testing.T) {
	cases := []depCase{
		{name: "AMQP vhost from a Secret URL, the broker declares it with a slash", problem: "mailer crash-loops since we moved mail to its own vhost on the broker",
			objs: func() []runtime.Object {
				o := app("mailer", 1, envFromSecret("mailer-broker"), crashing)
				o = append(o, app("broker", 1, mountCMAs("defs", "broker-defs", "/etc/broker/definitions"), nil)...)
				return append(o, fx.Secret(ns, "mailer-broker", "BROKER_URL", "WORKERS"), cmWith("broker-defs", "definitions.json", `{"vhosts":[{"name":"/"},{"name":"/mail"}],"users":[]}`),
					cmWith("mailer-flags", "queues", "mail.outbound"), fx.Node("node-1"))
			},
			logs: logBook{"mailer-": "INFO connecting to broker\nERROR amqp connection failed: NOT_ALLOWED - vhost mail not found\nINFO exiting\n",
				"broker-": "[info] <0.900.0> accepting AMQP connection 10.0.0.9:41234 -> 10.0.0.3:5672\n[error] <0.901.0> vhost mail not found\n[info] <0.900.0> closing AMQP connection\n"},
			rule: "config-value-rejected", culprit: "Secret/mailer-broker", affected: []string{"ConfigMap/broker-defs", "Deployment/mailer"},
			terms: []string{"vhost", "BROKER_URL", "/mail"}},
		{name: "MySQL unknown database from an envFrom ConfigMap", problem: "shop-api does not start",
			objs: func() []runtime.Object {
				o := app("shop-api", 1, envFrom("shop-db"), crashing)
				return append(o, cmWith("shop-db", "DB_HOST", "mysql", "DB_NAME", "shop_prd"), fx.Node("node-1"))
			},
			logs: logBook{"shop-api-": "panic: Error 1049 (42000): Unknown database 'shop_prd'\n"},
			rule: "config-value-rejected", culprit: "ConfigMap/shop-db", affected: []string{"Deployment/shop-api"},
			terms: []string{"shop_prd", "DB_NAME"}},
	}
	runDepCases(t, cases)
}

// Tokens come from the error, bounded, with common words left out.
func TestErrorTokens(t *testing.T) {
	cases := []struct {
		line string
		want []string
	}{
		{`amqp: NOT_ALLOWED - vhost billing not found`, []string{"billing"}},
		{`parsing YAML file /etc/p.yml: "jobs-(a|b" is not a valid regex`, []string{"p.yml", "jobs-(a|b"}},
		{`key app.yaml could not be found in secret extra`, []string{"app.yaml"}},
		{`error: "true" is not "valid"`, []string{"valid"}},
		// An apostrophe inside a word is no quote: it does not pair with the token's quote.
		{`[config] section 'output' tried to instance a plugin name that doesn't exist: 'opensearh'`, []string{"output", "opensearh"}},
		{`the exporter's type isn't registered: 'prometheusremotewrit'`, []string{"prometheusremotewrit"}},
		// A value shown in parentheses; a word in parentheses is none.
		{`Cannot start node if snitch's data center (eu-west) differs from previous data center (datacenter1)`, []string{"eu-west", "datacenter1"}},
	}
	for _, c := range cases {
		got := agent.ErrorTokens(c.line)
		for _, w := range c.want {
			if !contains(got, w) {
				t.Errorf("ErrorTokens(%q) = %v, lacks %q", c.line, got, w)
			}
		}
		if contains(got, "true") {
			t.Errorf("ErrorTokens(%q) = %v keeps a common word", c.line, got)
		}
	}
	if got := agent.ErrorTokens(`the option is ignored (deprecated) since 2.0`); contains(got, "deprecated") {
		t.Errorf("a parenthesized word was taken for a value: %v", got)
	}
	if got := agent.ErrorTokens(`section 'output' doesn't exist: 'x1y2z3'`); contains(got, "t exist:") {
		t.Errorf("a contraction opened a quote: %v", got)
	}
	long := strings.Repeat(`"abcdef" `, 500)
	if got := agent.ErrorTokens(long); len(got) > 8 {
		t.Errorf("tokens are not bounded: %d", len(got))
	}
}
