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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	fx "github.com/kubage/kubage/test/fixtures"
)

// Logs unreachable (a nil logBook): faults the spec shows on its face are named, and what
// only looks like one is not.
func TestNoLogsSpecFaults(t *testing.T) {
	envList := func(evs ...corev1.EnvVar) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) { s.Containers[0].Env = append(s.Containers[0].Env, evs...) }
	}
	lit := func(k, v string) corev1.EnvVar { return corev1.EnvVar{Name: k, Value: v} }
	redis := map[string]string{"app": "redis"}
	redisFor := func(o []runtime.Object) []runtime.Object {
		o = append(o, app("redis", 1, nil, nil)...)
		o = withEndpoints(o, svcAt("redis", "10.96.0.70", redis, 6379), "redis-")
		return withEndpoints(o, svcAt("redis-master", "10.96.0.71", redis, 6379), "redis-")
	}
	serverTLS := func(t *testing.T, notAfter time.Time) []runtime.Object {
		o := app("ledger", 1, mountSecretAt("tls", "ledger-tls", "/etc/ledger/tls"), nil)
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ledger-tls", Namespace: ns}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": certPEM(t, "ledger."+ns+".svc", fx.Now.Add(-400*24*time.Hour), notAfter), "tls.key": []byte("TOPSECRET")}}
		return append(withEndpoints(o, svcAt("ledger", "10.96.0.60", map[string]string{"app": "ledger"}, 8443), "ledger-"), sec)
	}
	runDepCases(t, []depCase{
		{name: "quiet crash: a URL uses $(DB_HOST), defined after it in the env list", problem: "invoices return 503",
			objs: func() []runtime.Object {
				return append(app("invoice-api", 1, envList(lit("DATABASE_URL", "postgresql://app@$(DB_HOST):5432/invoices"), lit("DB_HOST", "invoices-db")), crashing), fx.Node("node-1"))
			},
			logs: nil, rule: "config-value-missing", culprit: "Deployment/invoice-api", terms: []string{"$(DB_HOST)", "defined after it", "log cannot be read"}},
		{name: "quiet crash: $(DB_HOST) defined before it is expanded, nothing to blame", problem: "invoices return 503",
			objs: func() []runtime.Object {
				return append(app("invoice-api", 1, envList(lit("DB_HOST", "invoices-db"), lit("DATABASE_URL", "postgresql://app@$(DB_HOST):5432/invoices")), crashing), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/invoice-api"},
		{name: "quiet crash: REDIS_HOST set alone while Service redis makes the kubelet set REDIS_PORT", problem: "the worker crash-loops",
			objs: func() []runtime.Object {
				return append(redisFor(app("worker", 1, envList(lit("REDIS_HOST", "redis-master")), crashing)), fx.Node("node-1"))
			},
			logs: nil, rule: "service-link-collision", culprit: "Deployment/worker", affected: []string{"Service/redis"},
			terms: []string{"REDIS_PORT=tcp://10.96.0.70:6379", "enableServiceLinks"}},
		{name: "quiet crash: REDIS_HOST with its port is no collision", problem: "the worker crash-loops",
			objs: func() []runtime.Object {
				return append(redisFor(app("worker", 1, envList(lit("REDIS_HOST", "redis-master:6379")), crashing)), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/worker"},
		{name: "quiet crash: enableServiceLinks off is no collision", problem: "the worker crash-loops",
			objs: func() []runtime.Object {
				return append(redisFor(app("worker", 1, func(s *corev1.PodSpec) {
					s.EnableServiceLinks = ptr.To(false)
					envList(lit("REDIS_HOST", "redis-master"))(s)
				}, crashing)), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/worker"},
		{name: "quiet crash with a read-only root filesystem says so", problem: "the edge proxy crash-loops",
			objs: func() []runtime.Object {
				return append(app("edge", 1, func(s *corev1.PodSpec) {
					s.Containers[0].SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr.To(true)}
				}, crashing), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/edge", terms: []string{"readOnlyRootFilesystem: true", "writable mounts (none)"}},
		{name: "Running server: its mounted config calls host:port no Service answers to", problem: "alerts are not sent",
			objs: func() []runtime.Object {
				o := app("prometheus", 1, mountCM("prometheus-config", "/etc/prometheus"), nil)
				o = append(o, app("alertmanager-main", 1, nil, nil)...)
				o = withEndpoints(o, svcAt("alertmanager-operated", "10.96.0.80", map[string]string{"app": "alertmanager-main"}, 9093), "alertmanager-main-")
				return append(o, cmWith("prometheus-config", "prometheus.yml", "alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['alertmanager-main:9093']\n"), fx.Node("node-1"))
			},
			logs: nil, rule: "dependency-host-unknown", culprit: "ConfigMap/prometheus-config", terms: []string{"alertmanager-main", "logs unavailable"}},
		{name: "Running server whose log reads clean: the same address is not blamed", problem: "alerts are not sent",
			objs: func() []runtime.Object {
				o := app("prometheus", 1, mountCM("prometheus-config", "/etc/prometheus"), nil)
				return append(o, cmWith("prometheus-config", "prometheus.yml", "alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['alertmanager-main:9093']\n"), fx.Node("node-1"))
			},
			logs: logBook{}, rule: "no-problem-found"},
		{name: "Running client: the server it calls serves an expired certificate", problem: "payments can't reach the ledger",
			objs: func() []runtime.Object {
				o := app("payments", 1, withEnv("LEDGER_URL", "https://ledger:8443"), nil)
				return append(append(o, serverTLS(t, fx.Now.Add(-48*time.Hour))...), fx.Node("node-1"))
			},
			logs: nil, rule: "certificate-expired", culprit: "Secret/ledger-tls", terms: []string{"expired"}},
		{name: "Running client: a valid server certificate is not blamed", problem: "is anything wrong?",
			objs: func() []runtime.Object {
				o := app("payments", 1, withEnv("LEDGER_URL", "https://ledger:8443"), nil)
				return append(append(o, serverTLS(t, fx.Now.Add(48*time.Hour))...), fx.Node("node-1"))
			},
			logs: nil, rule: "no-problem-found"},
	})
}
