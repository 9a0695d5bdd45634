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

// A client configured with a Service that then fails on localhost:PORT got that address from
// the server: the server's advertised address is the culprit, wherever it is set.
func TestServerAdvertisesLoopback(t *testing.T) {
	cluster := func(brokerSpec func(*corev1.PodSpec), extra ...runtime.Object) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("consumer", 1, withEnv("SPRING_KAFKA_BOOTSTRAP_SERVERS", "events:9092"), crashing)
			o = append(o, app("events-broker", 1, brokerSpec, nil)...)
			return append(append(o, svcAt("events", "10.96.9.2", map[string]string{"app": "events-broker"}, 9092), fx.Node("node-1")), extra...)
		}
	}
	line := "WARN [Consumer clientId=c-1, groupId=g] Connection to node 0 (localhost/127.0.0.1:9092) could not be established. Broker may not be available.\n"
	cases := []depCase{
		{name: "advertised listeners in the broker's env", problem: "consumer lag grows",
			objs: cluster(withEnv("KAFKA_CFG_LISTENERS", "PLAINTEXT://:9092", "KAFKA_CFG_ADVERTISED_LISTENERS", "PLAINTEXT://localhost:9092")),
			logs: logBook{"consumer-": line + line},
			rule: "server-advertises-loopback", culprit: "Deployment/events-broker", affected: []string{"Deployment/consumer", "Service/events"}, terms: []string{"ADVERTISED_LISTENERS", "localhost:9092"}},
		{name: "advertised listeners in the broker's ConfigMap", problem: "consumer lag grows",
			objs: cluster(envFrom("broker-env"), cmWith("broker-env", "KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://127.0.0.1:9092", "KAFKA_BROKER_ID", "1")),
			logs: logBook{"consumer-": "ERROR Connection to node 1 (/127.0.0.1:9092) could not be established. Broker may not be available.\n"},
			rule: "server-advertises-loopback", culprit: "ConfigMap/broker-env", affected: []string{"Service/events"}, terms: []string{"KAFKA_ADVERTISED_LISTENERS"}},
	}
	runDepCases(t, cases)
}

// A server error that quotes one of the server's own settings leads to where the server's
// backends set it.
func TestServerSettingQuotedByClient(t *testing.T) {
	mounted := func(cm string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/conf"}}
		}
	}
	cases := []depCase{
		{name: "redis maxmemory quoted by a crashing client", problem: "background jobs are stuck",
			objs: func() []runtime.Object {
				o := app("exports", 1, withEnv("CELERY_BROKER_URL", "redis://jobs-redis:6379/0"), crashing)
				o = append(o, app("jobs-redis", 1, mounted("jobs-redis-config"), nil)...)
				return append(o, cmWith("jobs-redis-config", "redis.conf", "port 6379\nmaxmemory 64mb\nmaxmemory-policy noeviction\n"), svcAt("jobs-redis", "10.96.4.1", map[string]string{"app": "jobs-redis"}, 6379), fx.Node("node-1"))
			},
			logs: logBook{"exports-": "ERROR redis.exceptions.OutOfMemoryError: command not allowed when used memory > 'maxmemory'.\nERROR redis.exceptions.OutOfMemoryError: command not allowed when used memory > 'maxmemory'.\n"},
			rule: "provider-setting-limit", culprit: "ConfigMap/jobs-redis-config", affected: []string{"Service/jobs-redis"}, terms: []string{"maxmemory 64mb"}},
		{name: "MySQL max_allowed_packet quoted by a crashing client", problem: "imports fail",
			objs: func() []runtime.Object {
				o := app("importer", 1, withEnv("DB_HOST", "catalog-mysql"), crashing)
				o = append(o, app("catalog-mysql", 1, mounted("mysql-cnf"), nil)...)
				return append(o, cmWith("mysql-cnf", "my.cnf", "[mysqld]\nmax_allowed_packet = 1M\n"), svcAt("catalog-mysql", "10.96.4.2", map[string]string{"app": "catalog-mysql"}, 3306), fx.Node("node-1"))
			},
			logs: logBook{"importer-": "FATAL (1153, \"Got a packet bigger than 'max_allowed_packet' bytes\")\n"},
			rule: "provider-setting-limit", culprit: "ConfigMap/mysql-cnf", affected: []string{"Service/catalog-mysql"}, terms: []string{"max_allowed_packet"}},
	}
	runDepCases(t, cases)
}

// Without a word from anyone (logs unreachable, no termination message), a server's own
// settings still show an address handed out that no other pod can call: blamed on the server
// that fails quietly, and on the healthy server behind the Service a quiet client is
// configured with. Binding 0.0.0.0, or advertising a routable name, is no fault.
func TestHandedOutAddressWithoutLogs(t *testing.T) {
	mount := func(cm, at, sub string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}})
			s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "conf", MountPath: at, SubPath: sub})
		}
	}
	probing := func(p *corev1.Pod) { fx.SetNotReady(p) }
	unhealthy := func(o []runtime.Object, app string) []runtime.Object {
		for _, x := range o {
			if p, ok := x.(*corev1.Pod); ok && p.Labels["app"] == app {
				o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, 0))
			}
		}
		return o
	}
	runDepCases(t, []depCase{
		{name: "a quietly crashing cache announces 0.0.0.0 in the redis.conf it mounts", problem: "sessions are lost",
			objs: func() []runtime.Object {
				o := app("session-cache", 1, mount("session-cache-conf", "/usr/local/etc/redis/redis.conf", "redis.conf"), crashing)
				o = append(o, app("web", 1, withEnv("REDIS_ADDR", "session-cache:6379"), nil)...)
				return append(o, svcAt("session-cache", "10.96.0.31", map[string]string{"app": "session-cache"}, 6379),
					cmWith("session-cache-conf", "redis.conf", "bind 0.0.0.0\nport 6379\ncluster-enabled yes\ncluster-announce-ip 0.0.0.0\nappendonly yes\n"), fx.Node("node-1"))
			},
			rule: "server-advertises-loopback", culprit: "ConfigMap/session-cache-conf", terms: []string{"cluster-announce-ip", "0.0.0.0"}},
		{name: "a quiet client of a healthy search node that publishes 127.0.0.1", problem: "catalog never becomes ready",
			objs: func() []runtime.Object {
				o := app("search", 1, withEnv("network.host", "0.0.0.0", "network.publish_host", "127.0.0.1", "discovery.type", "single-node"), nil)
				o = append(o, app("catalog", 2, withEnv("SEARCH_URL", "http://search:9200"), probing)...)
				return append(unhealthy(o, "catalog"), svcAt("search", "10.96.0.32", map[string]string{"app": "search"}, 9200), fx.Node("node-1"))
			},
			rule: "server-advertises-loopback", culprit: "Deployment/search", affected: []string{"Service/search"}, terms: []string{"network.publish_host", "127.0.0.1"}},
		{name: "binding every address and advertising the pod's name is no fault", problem: "sessions are lost",
			objs: func() []runtime.Object {
				o := app("session-cache", 1, mount("session-cache-conf", "/usr/local/etc/redis/redis.conf", "redis.conf"), crashing)
				return append(o, cmWith("session-cache-conf", "redis.conf", "bind 0.0.0.0\nport 6379\nreplica-announce-ip session-cache-0.session-cache\n"), fx.Node("node-1"))
			},
			rule: "crash-loop", culprit: "Deployment/session-cache"},
	})
}
