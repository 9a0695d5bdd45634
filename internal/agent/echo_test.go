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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// An error whose words name a setting (not quoted, in its own spelling) is matched against
// the settings of the failing container and of the server behind the Service it calls; the
// setting echoed is quoted with its value as where the fix is.
func TestSettingEchoedByTheError(t *testing.T) {
	mountCM := func(cm, path string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}})
			s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "conf", MountPath: path})
		}
	}
	both := func(fs ...func(*corev1.PodSpec)) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			for _, f := range fs {
				f(s)
			}
		}
	}
	runDepCases(t, []depCase{
		{name: "Postgres refuses the client's address: the server's mounted pg_hba.conf", problem: "billing cannot reach its database",
			objs: func() []runtime.Object {
				o := app("billing", 1, withEnv("DATABASE_URL", "postgres://billing@billing-db:5432/billing?sslmode=disable"), crashing)
				o = append(o, app("billing-db", 1, mountCM("billing-db-hba", "/etc/postgresql/hba"), nil)...)
				o = append(o, cmWith("billing-db-hba", "pg_hba.conf", "# TYPE DATABASE USER ADDRESS METHOD\nlocal all all trust\nhost all all 192.168.0.0/16 scram-sha-256\n"))
				return append(o, svcAt("billing-db", "10.96.0.60", map[string]string{"app": "billing-db"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"billing-": "{\"level\":\"fatal\",\"msg\":\"connect\",\"error\":\"failed to connect to `host=billing-db user=billing database=billing`: server error (FATAL: no pg_hba.conf entry for host \\\"10.244.1.7\\\", user \\\"billing\\\", database \\\"billing\\\", no encryption (SQLSTATE 28000))\"}\n", "billing-db-": "LOG:  database system is ready to accept connections\n"},
			// The catalogue of well-known errors knows pg_hba.conf by name (knownerrors_sql.go) and
			// concludes first, on the same ConfigMap with the same words.
			rule: "server-access-rule", culprit: "ConfigMap/billing-db-hba", affected: []string{"Service/billing-db"},
			terms: []string{"pg_hba.conf", "192.168.0.0/16"}},
		{name: "the DSN sits in a Secret (never read): the server is the one the error names by cluster IP and name", problem: "payouts crash-loops",
			objs: func() []runtime.Object {
				o := app("payouts", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: "PG_DSN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "payouts-db"}, Key: "dsn"}}})
				}, crashing)
				o = append(o, app("payouts-pg", 1, mountCM("payouts-pg-conf", "/etc/pg"), nil)...)
				o = append(o, cmWith("payouts-pg-conf", "postgresql.conf", "max_connections = 300\n", "pg_hba.conf", "host all all 10.0.0.0/8 md5\n"))
				sec := &corev1.Secret{ObjectMeta: fx.ConfigMap(ns, "payouts-db").ObjectMeta, Data: map[string][]byte{"dsn": []byte("TOPSECRET")}}
				return append(o, sec, svcAt("payouts-pg", "10.96.7.7", map[string]string{"app": "payouts-pg"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"payouts-": "ts=2026-11-27T10:00:00Z level=error msg=\"ping failed\" err=\"failed to connect to `user=payouts database=payouts`: 10.96.7.7:5432 (payouts-pg): server error: FATAL: no pg_hba.conf entry for host \\\"172.20.3.9\\\", user \\\"payouts\\\", database \\\"payouts\\\", SSL off (SQLSTATE 28000)\"\n", "payouts-pg-": "LOG: ready\n"},
			rule: "server-access-rule", culprit: "ConfigMap/payouts-pg-conf", affected: []string{"Service/payouts-pg"},
			terms: []string{"pg_hba.conf", "10.0.0.0/8"}},
		{name: "a metrics store refuses pushes over its own per-user series limit, spelt in other words", problem: "metrics are missing",
			objs: func() []runtime.Object {
				o := app("metrics-store", 1, both(mountCM("metrics-store-config", "/etc/store"), func(s *corev1.PodSpec) { s.Containers[0].Args = []string{"-config.file=/etc/store/config.yaml"} }), nil)
				return append(o, cmWith("metrics-store-config", "config.yaml", "server:\n  http_listen_port: 8080\nlimits:\n  ingestion_burst_size: 20000\n  max_global_series_per_user: 150000\n"), fx.Node("node-1"))
			},
			logs: logBook{"metrics-store-": "level=warn ts=2026-11-27T10:00:00Z caller=push.go:53 msg=\"push refused\" err=\"per-user series limit of 150000 exceeded, please contact administrator to raise it\"\nlevel=warn ts=2026-11-27T10:00:05Z caller=push.go:53 msg=\"push refused\" err=\"per-user series limit of 150000 exceeded, please contact administrator to raise it\"\n"},
			rule: "config-setting-named", culprit: "ConfigMap/metrics-store-config", terms: []string{"max_global_series_per_user = 150000"}},
		{name: "nginx refuses an upload larger than its own body size setting", problem: "uploads fail",
			objs: func() []runtime.Object {
				o := app("edge", 1, mountCM("edge-nginx", "/etc/nginx/conf.d"), nil)
				return append(o, cmWith("edge-nginx", "site.conf", "server {\n    listen 8080;\n    client_max_body_size 1m;\n    location / { proxy_pass http://files:8080; }\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"edge-": "2026/11/27 10:00:00 [error] 29#29: *1 client intended to send too large body: 5242880 bytes, client: 10.244.0.9, server: _, request: \"POST /upload HTTP/1.1\"\n2026/11/27 10:00:09 [error] 29#29: *7 client intended to send too large body: 7340032 bytes, client: 10.244.0.9, server: _, request: \"POST /upload HTTP/1.1\"\n"},
			// Known to the catalogue too (knownerrors_web.go): same ConfigMap, same words.
			rule: "server-limit-reached", culprit: "ConfigMap/edge-nginx", terms: []string{"client_max_body_size = 1m"}},
		{name: "a server's startup wrapper over the exception naming a setting of the file it mounts", problem: "the ring is down",
			objs: func() []runtime.Object {
				o := app("ring-store", 1, func(s *corev1.PodSpec) {
					s.Volumes = append(s.Volumes, corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ring-store-yaml"}}}})
					s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "conf", MountPath: "/etc/cassandra/cassandra.yaml", SubPath: "cassandra.yaml"})
				}, crashing)
				return append(o, cmWith("ring-store-yaml", "cassandra.yaml", "cluster_name: ring\nnum_tokens: 16\nconcurrent_compactors: 0\nendpoint_snitch: GossipingPropertyFileSnitch\n"), fx.Node("node-1"))
			},
			logs: logBook{"ring-store-": "INFO  [main] 2026-11-27 10:00:00,000 YamlConfigurationLoader.java:97 - Configuration location: file:/etc/cassandra/cassandra.yaml\nERROR [main] 2026-11-27 10:00:00,100 CassandraDaemon.java:911 - Exception encountered during startup\norg.apache.cassandra.exceptions.ConfigurationException: concurrent_compactors should be great than 0.\n\tat org.apache.cassandra.config.DatabaseDescriptor.applySimpleConfig(DatabaseDescriptor.java:600)\n"},
			rule: "config-setting-named", culprit: "ConfigMap/ring-store-yaml", terms: []string{"concurrent_compactors = 0", "cassandra.yaml"}},
		{name: "the exception names a setting the mounted file does not hold: no file is blamed", problem: "the ring is down",
			objs: func() []runtime.Object {
				o := app("ring-store", 1, func(s *corev1.PodSpec) {
					s.Volumes = append(s.Volumes, corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ring-store-yaml"}}}})
					s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "conf", MountPath: "/etc/cassandra/cassandra.yaml", SubPath: "cassandra.yaml"})
				}, crashing)
				return append(o, cmWith("ring-store-yaml", "cassandra.yaml", "cluster_name: ring\nnum_tokens: 16\nendpoint_snitch: GossipingPropertyFileSnitch\n"), fx.Node("node-1"))
			},
			logs: logBook{"ring-store-": "ERROR [main] 2026-11-27 10:00:00,100 CassandraDaemon.java:911 - Exception encountered during startup\norg.apache.cassandra.exceptions.ConfigurationException: commitlog_segment_size_in_mb must be positive\n\tat org.apache.cassandra.config.DatabaseDescriptor.applySimpleConfig(DatabaseDescriptor.java:600)\n"},
			rule: "crash-loop", culprit: "Deployment/ring-store", terms: []string{"commitlog_segment_size_in_mb must be positive"}},
		{name: "words shared with a setting's name by chance do not make it the cause", problem: "reports are wrong",
			objs: func() []runtime.Object {
				return append(app("reporter", 1, withEnv("TEMPLATE_DIR", "/templates", "RENDER_WORKERS", "2"), nil), fx.Node("node-1"))
			},
			logs: logBook{"reporter-": "ERROR template render failed: missing key user_name in invoice.tmpl\nERROR template render failed: missing key user_name in invoice.tmpl\n"},
			rule: "app-error-logged", culprit: "Deployment/reporter", terms: []string{"user_name"}},
	})
}

// A setting the error names is compared with the value a working workload of the namespace
// gives it: the sibling that still runs kept the value the failing one lost.
func TestNamedSettingComparedWithAWorkingSibling(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("quota-api", 1, withEnv("REDIS_SENTINEL_HOSTS", "quota-redis-sentinel:26379", "REDIS_SENTINEL_MASTER", "mymaster"), crashing)
		o = append(o, app("quota-sync", 1, withEnv("REDIS_SENTINEL_HOSTS", "quota-redis-sentinel:26379", "REDIS_SENTINEL_MASTER", "quota-primary"), nil)...)
		o = append(o, app("billing", 1, withEnv("REDIS_SENTINEL_MASTER", "billing-primary"), crashing)...)
		return append(o, fx.Node("node-1"))
	}
	runDepCases(t, []depCase{
		{name: "the sentinel master name differs from the running sibling's", problem: "quota-api keeps restarting",
			objs: objs, logs: logBook{"quota-api-": "INFO starting quota-api\nERROR redis.sentinel.MasterNotFoundError: No master found for 'mymaster'\n", "billing-": "INFO up\n"},
			rule: "config-value-rejected", culprit: "Deployment/quota-api", terms: []string{"REDIS_SENTINEL_MASTER", "quota-sync", "quota-primary"}},
		{name: "a Running pod whose readiness fails on the same error", problem: "quota-api is never ready",
			objs: func() []runtime.Object {
				o := app("quota-api", 1, withEnv("REDIS_SENTINEL_MASTER", "mymaster"), func(p *corev1.Pod) {
					fx.SetNotReady(p)
					p.Status.ContainerStatuses[0].RestartCount = 0
					p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
				})
				for _, x := range o {
					if p, ok := x.(*corev1.Pod); ok {
						o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 12, time.Minute))
					}
				}
				o = append(o, app("quota-sync", 1, withEnv("REDIS_SENTINEL_MASTER", "quota-primary"), nil)...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"quota-api-": "INFO GET /readyz 503\nWARNING readiness failed: the sentinels know no redis master of the configured sentinel master name\n", "quota-sync-": "INFO synced\n"},
			rule: "config-setting-named", culprit: "Deployment/quota-api", terms: []string{"REDIS_SENTINEL_MASTER", "quota-primary"}},
	})
}
