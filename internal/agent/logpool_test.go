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

// An exhausted client-side connection pool, as four stacks report it, on Ready pods: the
// setting that sizes the pool is found wherever it is set (a mounted YAML file, env loaded
// from a ConfigMap key, an argument) and weighed against the process's concurrency or the
// size the error names.
func TestConnectionPoolExhausted(t *testing.T) {
	mount := func(cm, path string, env ...string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: path}}
			for i := 0; i+1 < len(env); i += 2 {
				s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: env[i], Value: env[i+1]})
			}
		}
	}
	cases := []depCase{
		{name: "Rails: database.yml's pool below Puma's threads, behind a FATAL header that holds only the request id", problem: "checkout is slow and sometimes fails",
			objs: func() []runtime.Object {
				o := app("checkout", 2, mount("checkout-db-yml", "/app/config/database", "RAILS_ENV", "production", "RAILS_MAX_THREADS", "12", "RAILS_MIN_THREADS", "12", "WEB_CONCURRENCY", "2"), nil)
				return append(o, cmWith("checkout-db-yml", "database.yml", "production:\n  adapter: postgresql\n  host: pg\n  pool: 3\n  timeout: 5000\n"), fx.Node("node-1"))
			},
			logs: logBook{"checkout-": strings.Repeat("I, [2026-03-01T08:00:00.000001 #1]  INFO -- : [0a1b2c3d-4e5f] Started POST \"/orders\" for 10.0.0.7\nF, [2026-03-01T08:00:05.000001 #1] FATAL -- : [0a1b2c3d-4e5f]\n[0a1b2c3d-4e5f] \n"+
				"[0a1b2c3d-4e5f] ActiveRecord::ConnectionTimeoutError (could not obtain a connection from the pool within 5.000 seconds (waited 5.001 seconds); all pooled connections were in use):\n[0a1b2c3d-4e5f] \n"+
				"[0a1b2c3d-4e5f] app/controllers/orders_controller.rb:7:in `create'\nI, [2026-03-01T08:00:05.000002 #1]  INFO -- : [0a1b2c3d-4e5f] Completed 500 Internal Server Error in 5003ms\n", 3)},
			rule: "connection-pool-exhausted", culprit: "ConfigMap/checkout-db-yml", affected: []string{"Deployment/checkout"},
			terms: []string{"could not obtain a connection from the pool", "pool: 3", "RAILS_MAX_THREADS=12", "9 of them wait"}},
		{name: "Spring Boot: Hikari's maximum pool size from a ConfigMap loaded with envFrom, below Tomcat's threads", problem: "the billing API times out",
			objs: func() []runtime.Object {
				o := app("billing", 1, envFrom("billing-env"), nil)
				return append(o, cmWith("billing-env", "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE", "4", "SERVER_TOMCAT_THREADS_MAX", "40", "SERVER_PORT", "8080"), fx.Node("node-1"))
			},
			logs: logBook{"billing-": strings.Repeat("2026-03-01T08:00:00.000Z  WARN 1 --- [nio-8080-exec-7] o.h.engine.jdbc.spi.SqlExceptionHelper : SQL Error: 0, SQLState: null\n"+
				"2026-03-01T08:00:00.001Z ERROR 1 --- [nio-8080-exec-7] o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is not available, request timed out after 30000ms (total=4, active=4, idle=0, waiting=21)\n", 3)},
			rule: "connection-pool-exhausted", culprit: "ConfigMap/billing-env", affected: []string{"Deployment/billing"},
			terms: []string{"HikariPool-1", "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE", "40"}},
		{name: "SQLAlchemy: the size the error names is the value of an env var taken from a ConfigMap key", problem: "reports page returns 500",
			objs: func() []runtime.Object {
				o := app("reports", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "WORKERS", Value: "4"},
						{Name: "SQLALCHEMY_POOL_SIZE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "reports-tuning"}, Key: "db.pool"}}}}
				}, nil)
				return append(o, cmWith("reports-tuning", "db.pool", "2", "db.timeout", "30"), fx.Node("node-1"))
			},
			logs: logBook{"reports-": strings.Repeat("Traceback (most recent call last):\n  File \"/app/reports.py\", line 40, in render\n    rows = session.execute(q)\n"+
				"sqlalchemy.exc.TimeoutError: QueuePool limit of size 2 overflow 0 reached, connection timed out, timeout 30.00 (Background on this error at: https://sqlalche.me/e/20/3o7r)\n", 3)},
			rule: "connection-pool-exhausted", culprit: "ConfigMap/reports-tuning", affected: []string{"Deployment/reports"},
			terms: []string{"QueuePool limit of size 2", "pool size", "reports-tuning key db.pool"}},
		{name: "Node and Sequelize: pool and concurrency given as arguments", problem: "search is slow",
			objs: func() []runtime.Object {
				o := app("search", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Command = []string{"node", "server.js"}
					s.Containers[0].Args = []string{"--pool-max=2", "--concurrency", "16"}
				}, nil)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"search-": strings.Repeat(`{"level":50,"time":1,"msg":"query failed","err":{"type":"SequelizeConnectionAcquireTimeoutError","message":"Operation timeout"}}`+"\n", 3)},
			rule: "connection-pool-exhausted", culprit: "Deployment/search",
			terms: []string{"--pool-max=2", "concurrency", "14 of them wait"}},
		{name: "logs unreadable: a Sidekiq pool from a ConfigMap smaller than its concurrency is still found", problem: "background jobs are slow",
			objs: func() []runtime.Object {
				o := app("jobs", 1, envFrom("jobs-env"), nil)
				return append(o, cmWith("jobs-env", "DB_POOL", "5", "SIDEKIQ_CONCURRENCY", "25", "REDIS_URL", "redis://redis:6379/0"), fx.Node("node-1"))
			},
			logs: nil, rule: "connection-pool-exhausted", culprit: "ConfigMap/jobs-env", affected: []string{"Deployment/jobs"},
			terms: []string{"DB_POOL=5", "SIDEKIQ_CONCURRENCY=25", "20 of them wait"}},
		{name: "logs unreadable: a pool as large as the threads is no finding", problem: "background jobs are slow",
			objs: func() []runtime.Object {
				o := app("jobs", 1, envFrom("jobs-env"), nil)
				return append(o, cmWith("jobs-env", "DB_POOL", "25", "SIDEKIQ_CONCURRENCY", "25"), fx.Node("node-1"))
			},
			logs: nil, rule: "no-problem-found"},
		{name: "no setting sizes the pool: the error stays the application's own", problem: "search is slow",
			objs: func() []runtime.Object { return append(app("search", 1, nil, nil), fx.Node("node-1")) },
			logs: logBook{"search-": strings.Repeat("ERROR Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?\n", 3)},
			rule: "app-error-logged", culprit: "Deployment/search", terms: []string{"Timeout acquiring a connection"}},
	}
	runDepCases(t, cases)
}

// A Ready workload that keeps logging an error about a file it reads from a mounted
// ConfigMap: the ConfigMap key behind the path is the culprit, whatever the log format.
func TestRunningErrorNamesAMountedConfigFile(t *testing.T) {
	mount := func(cm, path string, items ...corev1.KeyToPath) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			src := corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Items: items}}
			if cm == "" {
				src = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
			}
			s.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: src}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: path}}
		}
	}
	long := strings.Repeat(`{job=\"api\", instance=\"10.0.0.1:9100\"}, `, 6)
	cases := []depCase{
		{name: "a logfmt ruler whose long record names the rules file late", problem: "the ApiDown alert never fires",
			objs: func() []runtime.Object {
				o := app("ruler", 1, mount("ruler-rules", "/etc/ruler/rules"), nil)
				return append(o, cmWith("ruler-rules", "api-alerts.yaml", "groups: []\n", "other.yaml", "groups: []\n"), fx.Node("node-1"))
			},
			logs: logBook{"ruler-": strings.Repeat(`ts=2026-03-01T10:00:00.000Z caller=manager.go:120 level=info msg="tick"`+"\n"+
				`ts=2026-03-01T10:00:30.000Z caller=group.go:410 level=warn component=ruler name=ApiDown index=1 rule="alert: ApiDown\nexpr: up{job=\"api\"} == 0\nfor: 5m\n" series="`+long+`" file=/etc/ruler/rules/api-alerts.yaml group=api msg="Evaluating rule failed" err="vector cannot contain metrics with the same labelset"`+"\n", 3)},
			rule: "app-error-logged", culprit: "ConfigMap/ruler-rules", affected: []string{"Deployment/ruler"},
			terms: []string{"vector cannot contain metrics with the same labelset", "api-alerts.yaml"}},
		{name: "a JSON record names a file whose ConfigMap key is mapped to another name", problem: "payments are routed nowhere",
			objs: func() []runtime.Object {
				o := app("edge", 1, mount("edge-routes", "/config", corev1.KeyToPath{Key: "routes-v2", Path: "routes.yaml"}), nil)
				return append(o, cmWith("edge-routes", "routes-v2", "routes: [{path: /pay, backend: pay-v3}]\n"), fx.Node("node-1"))
			},
			logs: logBook{"edge-": strings.Repeat(`{"level":"error","ts":1,"msg":"route rejected","file":"/config/routes.yaml","error":"route /pay: backend pay-v3 is not declared"}`+"\n", 3)},
			rule: "app-error-logged", culprit: "ConfigMap/edge-routes", affected: []string{"Deployment/edge"},
			terms: []string{"backend pay-v3 is not declared", "key routes-v2"}},
		{name: "a path on an emptyDir names no ConfigMap: the error stays the application's own", problem: "exports fail",
			objs: func() []runtime.Object { return append(app("exporter", 1, mount("", "/work"), nil), fx.Node("node-1")) },
			logs: logBook{"exporter-": strings.Repeat("ERROR export failed: checksum mismatch in /work/batch-7.csv\n", 3)},
			rule: "app-error-logged", culprit: "Deployment/exporter", terms: []string{"checksum mismatch"}},
	}
	runDepCases(t, cases)
}
