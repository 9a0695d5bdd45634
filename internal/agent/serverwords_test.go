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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// mountConfig mounts ConfigMap name at path in the first container.
func mountConfig(name, path string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "conf", MountPath: path})
	}
}

// A server's words lead to its own settings, a header's details are read with it, and a
// Secret key the error spells whole is named (its value unread).
func TestServerWordsAndDetails(t *testing.T) {
	cases := []depCase{
		{name: "a broker's 'maximum payload exceeded' names its max_payload", problem: "big notifications never arrive",
			objs: func() []runtime.Object {
				o := app("publisher", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "NATS_URL", Value: "nats://nats:4222"}}
				}, crashing)
				o = append(o, app("nats", 1, mountConfig("nats-config", "/etc/nats"), nil)...)
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "nats-config", Namespace: ns}, Data: map[string]string{"nats.conf": "port: 4222\nmax_payload: 65536\nmax_connections: 1000\n"}}
				return append(o, cm, svcAt("nats", "10.96.0.50", map[string]string{"app": "nats"}, 4222), fx.Node("node-1"))
			},
			logs: logBook{"publisher-": strings.Repeat("ERROR publish failed err=nats: maximum payload exceeded (subject=exports.ready bytes=412907)\n", 3), "nats-": "[1] Server is ready\n"},
			rule: "provider-setting-limit", culprit: "ConfigMap/nats-config", terms: []string{"max_payload"}},
		{name: "an indented detail under 'invalid configuration:' names a Secret key", problem: "the portal is down",
			objs: func() []runtime.Object {
				o := app("portal", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "OAUTH2_PROXY_COOKIE_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "portal-proxy"}, Key: "cookie-secret"}}}}
				}, crashing)
				return append(o, fx.Secret(ns, "portal-proxy", "cookie-secret", "client-secret"), fx.Secret(ns, "other-proxy", "cookie-secret"), fx.Node("node-1"))
			},
			logs: logBook{"portal-": "[main.go:54] invalid configuration:\n  cookie_secret must be 16, 24, or 32 bytes to create an AES cipher, but is 44 bytes\n"},
			rule: "config-setting-named", culprit: "Secret/portal-proxy", terms: []string{"cookie_secret", "OAUTH2_PROXY_COOKIE_SECRET"}},
		{name: "a pooler's own 'DNS lookup failed' names the server host in its config", problem: "ledger cannot start",
			objs: func() []runtime.Object {
				o := app("ledger", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "SPRING_DATASOURCE_URL", Value: "jdbc:postgresql://pgbouncer:6432/ledger"}}
				}, crashing)
				o = append(o, app("pgbouncer", 1, mountConfig("pgbouncer-config", "/etc/pgbouncer"), nil)...)
				o = append(o, app("ledger-pg", 1, nil, nil)...)
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pgbouncer-config", Namespace: ns}, Data: map[string]string{"pgbouncer.ini": "[databases]\nledger = host=ledger-pg-primary port=5432 dbname=ledger\n[pgbouncer]\nlisten_port = 6432\n"}}
				return append(o, cm, svcAt("pgbouncer", "10.96.0.51", map[string]string{"app": "pgbouncer"}, 6432), svcAt("ledger-pg", "10.96.0.52", map[string]string{"app": "ledger-pg"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"ledger-": "ERROR HikariPool-1 - Exception during pool initialization.\n\norg.postgresql.util.PSQLException: ERROR: pgbouncer cannot connect to server\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:704)\n",
				"pgbouncer-": strings.Repeat("2026-11-28 11:20:06.902 UTC [1] WARNING DNS lookup failed: ledger-pg-primary: result=0\n2026-11-28 11:20:06.988 UTC [1] WARNING C-0x55: ledger/app@10.244.1.37:48812 pooler error: pgbouncer cannot connect to server\n", 3)},
			rule: "dependency-host-unknown", culprit: "ConfigMap/pgbouncer-config", terms: []string{"ledger-pg-primary"}},
		{name: "a broker refusing a vhost to a user names the permissions in its definitions file", problem: "shipments are not processed",
			objs: func() []runtime.Object {
				o := app("consumer", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "AMQP_URL", Value: "amqp://mq:5672/orders"}}
				}, crashing)
				o = append(o, app("mq", 1, mountConfig("mq-definitions", "/etc/rabbitmq/definitions"), nil)...)
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mq-definitions", Namespace: ns}, Data: map[string]string{"definitions.json": `{"users":[{"name":"order-consumer","tags":""},{"name":"order-publisher","tags":""}],"vhosts":[{"name":"/"},{"name":"orders"}],"permissions":[{"user":"order-consumer","vhost":"/","configure":".*","write":".*","read":".*"},{"user":"order-publisher","vhost":"orders","configure":".*","write":".*","read":".*"}]}`}}
				return append(o, cm, svcAt("mq", "10.96.0.53", map[string]string{"app": "mq"}, 5672), fx.Node("node-1"))
			},
			logs: logBook{"consumer-": `{"level":"fatal","msg":"cannot connect to broker, giving up","error":"Exception (403) Reason: \"no access to this vhost\""}` + "\n",
				"mq-": strings.Repeat("2026-11-28 13:05:03.300006+00:00 [error] <0.1214.0> Error on AMQP connection <0.1214.0> (10.244.1.41:40228 -> 10.244.2.9:5672, user: 'order-consumer', state: opening):\n2026-11-28 13:05:03.300006+00:00 [error] <0.1214.0> access to vhost 'orders' refused for user 'order-consumer'\n", 3)},
			rule: "config-value-rejected", culprit: "ConfigMap/mq-definitions", terms: []string{"order-consumer"}},
		{name: "a host in no readable configuration names the config file kept in a Secret", problem: "nobody was paged",
			objs: func() []runtime.Object {
				o := app("notifier", 1, func(s *corev1.PodSpec) {
					s.Volumes = append(s.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "notifier-config"}}})
					s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: "/etc/notifier"})
				}, crashing)
				o = append(o, app("pager-relay", 1, nil, nil)...)
				return append(o, fx.Secret(ns, "notifier-config", "notifier.yaml"), fx.Secret(ns, "notifier-tls", "tls.crt"), svcAt("pager-relay", "10.96.0.54", map[string]string{"app": "pager-relay"}, 8080), fx.Node("node-1"))
			},
			logs: logBook{"notifier-": strings.Repeat(`level=error msg="Notify for alerts failed" err="webhook[0]: Post \"http://pager-relai:8080/hooks\": dial tcp: lookup pager-relai on 10.96.0.10:53: no such host"`+"\n", 3)},
			rule: "dependency-host-unknown", culprit: "Secret/notifier-config", terms: []string{"notifier.yaml", "pager-relai"}},
	}
	runDepCases(t, cases)
}
