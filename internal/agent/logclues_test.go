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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// Logs as the only clue: each case's log is written the way one stack writes it, and the
// session has only a problem, no target.
func TestLogOnlyClues(t *testing.T) {
	mountCM := func(cm, path string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: path}}
		}
	}
	cases := []depCase{
		{name: "a broker host from a Secret loaded with envFrom: the Secret key is named, its value is not", problem: "jobs are not processed",
			objs: func() []runtime.Object {
				o := app("worker", 1, func(s *corev1.PodSpec) {
					s.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "broker"}}}}
				}, crashing)
				return append(o, fx.Secret(ns, "broker", "AMQP_PASSWORD", "BROKER_URL"), svcAt("rabbitmq", "10.96.0.30", map[string]string{"app": "rabbitmq"}, 5672), fx.Node("node-1"))
			},
			logs: logBook{"worker-": "[2026-01-01 10:00:00,000: INFO/MainProcess] starting\n[2026-01-01 10:00:01,000: ERROR/MainProcess] consumer: Cannot connect to amqp://guest:**@rabit-mq:5672//: [Errno -2] Name or service not known.\nworker: Warm shutdown (MainProcess)\n"},
			rule: "dependency-host-unknown", culprit: "Secret/broker", affected: []string{"Deployment/worker"},
			terms: []string{"rabit-mq", "BROKER_URL", "not read"}},
		{name: ".NET two-line entries: the server named in an earlier entry, found in a mounted settings file", problem: "catalog does not start",
			objs: func() []runtime.Object {
				o := app("catalog", 1, mountCM("catalog-settings", "/app/config"), crashing)
				return append(o, cmWith("catalog-settings", "appsettings.json", `{"ConnectionStrings":{"Db":"Server=catalog-sql,1433;Database=catalog"}}`),
					svcAt("catalog-mssql", "10.96.0.31", map[string]string{"app": "mssql"}, 1433), fx.Node("node-1"))
			},
			logs: logBook{"catalog-": "info: Microsoft.Hosting.Lifetime[0]\n      Application started.\nfail: Microsoft.EntityFrameworkCore.Database.Connection[20004]\n      An error occurred using the connection to database 'catalog' on server 'catalog-sql'.\n" +
				"fail: Catalog.Startup[0]\n      Database migration failed\n      Microsoft.Data.SqlClient.SqlException (0x80131904): A network-related error occurred while establishing a connection to SQL Server. The server was not found or was not accessible.\n" +
				"         at Microsoft.Data.SqlClient.SqlInternalConnection.OnError(SqlException exception)\ninfo: Microsoft.Hosting.Lifetime[0]\n      Application is shutting down...\n"},
			rule: "dependency-host-unknown", culprit: "ConfigMap/catalog-settings", affected: []string{"Deployment/catalog"},
			terms: []string{"catalog-sql", "appsettings.json"}},
		{name: "envconfig prints a usage table after the error: the missing key, not a table row", problem: "scheduler does not start",
			objs: func() []runtime.Object {
				o := app("scheduler", 1, envFrom("scheduler-env"), crashing)
				return append(o, cmWith("scheduler-env", "QUEUE_ADDR", "amqp://mq:5672"), fx.Node("node-1"))
			},
			logs: logBook{"scheduler-": "2026/01/01 10:00:00 scheduler 0.1\n2026/01/01 10:00:00 config: required key QUEUE_URL missing value\nThis application is configured via the environment. The following environment\nvariables can be used:\n\nKEY          TYPE      DEFAULT    REQUIRED    DESCRIPTION\nQUEUE_URL    String               true        queue address\nLOG_LEVEL    String    info                   debug, info, warn or error\nexiting\n"},
			rule: "config-value-missing", culprit: "ConfigMap/scheduler-env", affected: []string{"Deployment/scheduler"},
			terms: []string{"QUEUE_URL"}},
		{name: "a Ready Spring service: the last Caused by of the chain is quoted", problem: "quotes are slow",
			objs: func() []runtime.Object { return append(app("pricing", 1, nil, nil), fx.Node("node-1")) },
			logs: logBook{"pricing-": strings.Repeat("2026-01-01T10:00:00Z ERROR 1 --- [exec-1] o.h.e.j.s.SqlExceptionHelper : HikariPool-1 - Connection is not available, request timed out after 30000ms.\n"+
				"org.springframework.dao.DataAccessResourceFailureException: Unable to acquire JDBC Connection\n\tat org.springframework.orm.jpa.vendor.HibernateJpaDialect.convert(HibernateJpaDialect.java:265)\n\t... 58 common frames omitted\n"+
				"Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.\n\t... 61 common frames omitted\n"+
				"Caused by: java.sql.SQLNonTransientConnectionException: Too many connections\n\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:111)\n\t... 64 common frames omitted\n", 3)},
			rule: "dependency-connection-limit", culprit: "Deployment/pricing", terms: []string{"Too many connections", "connection limit"}},
		{name: "a Ready API hits the database's client limit: replicas times pool size", problem: "orders API is slow",
			objs: func() []runtime.Object {
				o := app("orders", 3, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "DB_POOL_SIZE", Value: "40"}, {Name: "DB_HOST", Value: "pg"}}
				}, nil)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"orders-": strings.Repeat("INFO GET /orders 200\nERROR query failed: pq: sorry, too many clients already\n", 4)},
			rule: "dependency-connection-limit", culprit: "Deployment/orders", terms: []string{"too many clients", "3 replica(s)", "DB_POOL_SIZE=40", "up to 120 connections"}},
		{name: "pino JSON with numeric levels: the emitter's own hostname field is not the dependency", problem: "notifications stopped",
			objs: func() []runtime.Object {
				o := app("notifier", 1, envFrom("notifier-env"), nil)
				return append(o, cmWith("notifier-env", "WEBHOOK_URL", "http://notify-svc:3000/hooks"), fx.Node("node-1"))
			},
			logs: logBook{"notifier-": strings.Repeat(`{"level":30,"pid":1,"hostname":"notifier-7d9c8b6f5-x2k9q","msg":"incoming request"}`+"\n"+
				`{"level":50,"pid":1,"hostname":"notifier-7d9c8b6f5-x2k9q","err":{"type":"Error","message":"getaddrinfo ENOTFOUND notify-svc","code":"ENOTFOUND","hostname":"notify-svc"},"msg":"webhook delivery failed"}`+"\n", 4)},
			rule: "dependency-host-unknown", culprit: "ConfigMap/notifier-env", affected: []string{"Deployment/notifier"},
			terms: []string{"notify-svc", "WEBHOOK_URL"}},
		{name: "a Ready worker cannot write to a readOnly mount", problem: "thumbnails are missing",
			objs: func() []runtime.Object {
				o := app("thumbs", 1, func(s *corev1.PodSpec) {
					s.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
					s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cache", MountPath: "/var/cache/thumbs", ReadOnly: true}}
				}, nil)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"thumbs-": strings.Repeat("INFO job\nERROR job failed: [Errno 30] Read-only file system: '/var/cache/thumbs/1.webp'\n", 3)},
			rule: "mount-not-writable", culprit: "Deployment/thumbs", terms: []string{"readOnly: true", "/var/cache/thumbs", "Read-only file system"}},
		{name: "writing into a mounted ConfigMap", problem: "web crashes",
			objs: func() []runtime.Object {
				return append(app("web", 1, mountCM("web-files", "/etc/web"), crashing), cmWith("web-files", "a.yaml", "x: 1"), fx.Node("node-1"))
			},
			logs: logBook{"web-": "INFO boot\nFATAL cannot write pid file: open /etc/web/web.pid: read-only file system\n"},
			rule: "mount-not-writable", culprit: "Deployment/web", terms: []string{"ConfigMap web-files", "always mounts read-only"}},
		{name: "a non-root user without fsGroup on a fresh volume", problem: "uploads fail",
			objs: func() []runtime.Object {
				o := app("up", 1, func(s *corev1.PodSpec) {
					uid := int64(10001)
					s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &uid}
					s.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "up-data"}}}}
					s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
				}, crashing)
				return append(o, fx.PVC(ns, "up-data", nil, corev1.ClaimBound, corev1.ReadWriteOnce), fx.Node("node-1"))
			},
			logs: logBook{"up-": "ERROR open /data/state.db: permission denied\n"},
			rule: "mount-not-writable", culprit: "Deployment/up", terms: []string{"user 10001", "fsGroup"}},
	}
	runDepCases(t, cases)
}
