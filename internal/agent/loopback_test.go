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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A client that fails on its own loopback address for a dependency fell back to its
// library's default: the setting meant to point it at the server is named, on the object a
// user edits, whatever the language, the server or the spelling of the settings.
func TestLoopbackDefaultAddress(t *testing.T) {
	server := func(name string, port int32) []runtime.Object {
		return append(app(name, 1, nil, nil), svcAt(name, "10.96.0.40", map[string]string{"app": name}, port))
	}
	mount := func(cm, path string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}})
			s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "cfg", MountPath: path})
		}
	}
	runDepCases(t, []depCase{
		{name: "Python on Postgres: a log line says DATABASE_URL is unset (the missing-setting check answers)", problem: "ledger-sync keeps restarting",
			objs: func() []runtime.Object {
				o := app("ledger-sync", 1, envFrom("ledger-sync-settings"), crashing)
				o = append(o, cmWith("ledger-sync-settings", "DB_HOST", "ledger-postgres", "DB_PORT", "5432", "LOG_LEVEL", "info"))
				return append(append(o, server("ledger-postgres", 5432)...), fx.Node("node-1"))
			},
			logs: logBook{"ledger-sync-": "WARNING settings: DATABASE_URL not set, defaulting to postgresql://localhost/ledger\nTraceback (most recent call last):\npsycopg.OperationalError: connection to server at \"localhost\" (::1), port 5432 failed: Connection refused\n"},
			rule: "config-value-missing", culprit: "ConfigMap/ledger-sync-settings", affected: []string{"Deployment/ledger-sync"},
			terms: []string{"DATABASE_URL", "5432"}},
		{name: "Python on Postgres: DB_HOST/DB_PORT given, the client reads another name and says nothing of it", problem: "ledger-sync keeps restarting",
			objs: func() []runtime.Object {
				o := app("ledger-sync", 1, envFrom("ledger-sync-settings"), crashing)
				o = append(o, cmWith("ledger-sync-settings", "DB_HOST", "ledger-postgres", "DB_PORT", "5432", "LOG_LEVEL", "info"))
				return append(append(o, server("ledger-postgres", 5432)...), fx.Node("node-1"))
			},
			logs: logBook{"ledger-sync-": "Traceback (most recent call last):\npsycopg.OperationalError: connection to server at \"localhost\" (::1), port 5432 failed: Connection refused\n"},
			rule: "dependency-default-address", culprit: "ConfigMap/ledger-sync-settings", affected: []string{"Service/ledger-postgres", "Deployment/ledger-sync"},
			terms: []string{"DB_HOST = ledger-postgres", "localhost port 5432", "ledger-postgres:5432"}},
		{name: "Go on AMQP: the env itself says localhost, dialled over [::1]", problem: "mailer is down",
			objs: func() []runtime.Object {
				o := app("mailer", 1, withEnv("AMQP_ADDR", "amqp://localhost:5672/mail", "SMTP_RELAY", "relay.example.net:25"), crashing)
				return append(append(o, server("queue", 5672)...), fx.Node("node-1"))
			},
			logs: logBook{"mailer-": "level=fatal msg=\"cannot open broker connection\" err=\"dial tcp [::1]:5672: connect: connection refused\"\n"},
			rule: "dependency-default-address", culprit: "Deployment/mailer", affected: []string{"Service/queue"},
			terms: []string{"AMQP_ADDR = amqp://localhost:5672/mail", "queue:5672"}},
		{name: "Java on Redis: Spring Boot 3 ignores the old spring.redis.host of the mounted properties", problem: "portal sessions fail",
			objs: func() []runtime.Object {
				o := app("portal", 1, mount("portal-config", "/config"), crashing)
				o = append(o, cmWith("portal-config", "application.properties", "server.port=8080\nspring.redis.host=sessions\nspring.redis.port=6379\n"))
				return append(append(o, server("sessions", 6379)...), fx.Node("node-1"))
			},
			logs: logBook{"portal-": "ERROR o.s.boot.SpringApplication - Application run failed\norg.springframework.data.redis.RedisConnectionFailureException: Unable to connect to Redis; nested exception is io.lettuce.core.RedisConnectionException: Unable to connect to localhost/127.0.0.1:6379\n"},
			rule: "dependency-default-address", culprit: "ConfigMap/portal-config", affected: []string{"Service/sessions"},
			terms: []string{"spring.redis.host = sessions", "127.0.0.1:6379"}},
		{name: "a sidecar proxy serves the loopback port: loopback is meant, the setting is not blamed", problem: "reports keeps restarting",
			objs: func() []runtime.Object {
				o := app("reports", 1, func(s *corev1.PodSpec) {
					s.Containers = append(s.Containers, corev1.Container{Name: "sql-proxy", Image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2", Ports: []corev1.ContainerPort{{ContainerPort: 5432}}})
				}, crashing)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"reports-": "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n"},
			rule: "crash-loop", culprit: "Deployment/reports", terms: []string{"ECONNREFUSED 127.0.0.1:5432"}},
	})
}
