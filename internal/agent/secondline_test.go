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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A warning that a setting is missing, logged before the error its default causes: the
// setting, not the refused default address, is the fault, on any stack and whatever the
// symptom (a crash loop, a failing readiness probe).
func TestSecondLineNamesTheMissingSetting(t *testing.T) {
	readinessFails := func(o []runtime.Object) []runtime.Object {
		for _, x := range o {
			if p, ok := x.(*corev1.Pod); ok {
				fx.SetNotReady(p)
				p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
				o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, time.Minute))
			}
		}
		return o
	}
	cases := []depCase{
		{name: "Node and ioredis, readiness failing: the ConfigMap loaded with envFrom lacks the URL the app reads", problem: "checkout is not ready",
			objs: func() []runtime.Object {
				o := readinessFails(app("basket", 1, envFrom("basket-env"), nil))
				return append(o, cmWith("basket-env", "REDIS_HOST", "cache", "REDIS_PORT", "6379"), fx.Node("node-1"))
			},
			logs: logBook{"basket-": "> basket@2.1.0 start\n> node server.js\n\nREDIS_URL is not set, falling back to redis://127.0.0.1:6379\nbasket listening on :3000\n" +
				strings.Repeat("[ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n", 4)},
			rule: "config-value-missing", culprit: "ConfigMap/basket-env", affected: []string{"Deployment/basket"},
			terms: []string{"REDIS_URL", "basket-env", "ECONNREFUSED"}},
		{name: "a Go worker in a crash loop, logfmt, IPv6 loopback: the AMQP setting", problem: "ledger sync is down",
			objs: func() []runtime.Object {
				o := app("ledger-sync", 1, envFrom("ledger-sync-config"), crashing)
				return append(o, cmWith("ledger-sync-config", "AMQP_HOST", "mq", "LOG_LEVEL", "info"), fx.Node("node-1"))
			},
			logs: logBook{"ledger-sync-": "ts=2026-01-01T10:00:00Z level=warn msg=\"AMQP_URI not set, defaulting to amqp://localhost:5672\"\nts=2026-01-01T10:00:00Z level=info msg=\"connecting\"\n" +
				"ts=2026-01-01T10:00:01Z level=fatal msg=\"broker connection failed\" err=\"dial tcp [::1]:5672: connect: connection refused\"\n"},
			rule: "config-value-missing", culprit: "ConfigMap/ledger-sync-config", affected: []string{"Deployment/ledger-sync"},
			terms: []string{"AMQP_URI", "ledger-sync-config"}},
		{name: "a Python service with no envFrom: the Deployment's env lacks the setting", problem: "search indexer keeps restarting",
			objs: func() []runtime.Object {
				o := app("indexer", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "INDEX_NAME", Value: "products"}}
				}, crashing)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"indexer-": "WARNING:root:Environment variable ELASTICSEARCH_URL is missing; using http://localhost:9200\n" +
				"ERROR:indexer:bulk load failed: ConnectionError(<urllib3.connection.HTTPConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused)\n"},
			rule: "config-value-missing", culprit: "Deployment/indexer",
			terms: []string{"ELASTICSEARCH_URL", "Connection refused"}},
	}
	runDepCases(t, cases)
}

// The second line is distinct from the first and adds a fact; it is quoted beside the
// first, and a line that only repeats the first is not.
func TestSecondLineIsDistinctAndAddsAFact(t *testing.T) {
	cases := []struct {
		name, text, also string
		keys, paths      []string
	}{
		{name: "a setting warning before a refused connection",
			text: "WARN CACHE_ADDR is not set, using 127.0.0.1:11211\nERROR get session: dial tcp 127.0.0.1:11211: connect: connection refused",
			also: "CACHE_ADDR is not set", keys: []string{"CACHE_ADDR"}},
		{name: "repeats of the same error are not a second line",
			text: "ERROR dial tcp 10.96.0.9:5432: connect: connection refused\nERROR dial tcp 10.96.0.9:5432: connect: connection refused"},
		{name: "a file the program could not read, a warning above a refused default address",
			text: "W0101 10:00:00.000000 1 config.go:40] could not read /etc/billing/app.yaml, using built-in defaults\nE0101 10:00:01.000000 1 main.go:12] dial tcp 127.0.0.1:5432: connect: connection refused",
			also: "/etc/billing/app.yaml"},
		{name: "lines of the first line's family give their paths without a second line",
			text: "20:C 01 Jan 2026 10:00:00.001 # Failed opening the temp RDB file temp-20.rdb (in server root dir /bitnami/redis/data) for saving: Permission denied\n" +
				"1:M 01 Jan 2026 10:00:05.000 # Failed opening the RDB file dump.rdb (in server root dir /data/app) for saving: Permission denied",
			paths: []string{"/bitnami/redis/data", "/data/app"}},
		{name: "npm's pointer to its own debug log is no second line",
			text: "TypeError: Cannot read properties of undefined (reading 'port')\n    at Object.<anonymous> (/app/index.js:5:30)\nnpm ERR! code ELIFECYCLE\nnpm ERR! Failed at the api@1.0.0 start script.\nnpm ERR! A complete log of this run can be found in: /root/.npm/_logs/2026-01-01-debug.log"},
		{name: "a line with nothing new is not quoted",
			text: "INFO start\nERROR upstream failed: 503 Service Unavailable\nERROR giving up after 3 attempts"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := agent.ExtractClues(strings.Split(tc.text, "\n"))
			for _, p := range tc.paths {
				if !contains(c.Paths, p) {
					t.Errorf("paths %v lack %s", c.Paths, p)
				}
			}
			if tc.also == "" {
				if c.Also != "" {
					t.Fatalf("second line %q, want none (first %q)", c.Also, c.Line)
				}
				return
			}
			if !strings.Contains(c.Also, tc.also) || c.Also == c.Line {
				t.Fatalf("second line %q, want one carrying %q (first %q)", c.Also, tc.also, c.Line)
			}
			for _, k := range tc.keys {
				if !contains(c.Keys, k) {
					t.Errorf("keys %v lack %s", c.Keys, k)
				}
			}
		})
	}
}
