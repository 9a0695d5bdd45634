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
	"context"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A Running, Ready pod with helpers around the application (a mesh proxy, a secret agent, a
// config reloader, an exporter) listed first: the application's container, or the one the
// problem or the default-container annotation names, is read, and its error is quoted.
func TestLogsOfTheApplicationContainerFirst(t *testing.T) {
	cases := []struct {
		name, workload, problem string
		containers              [][2]string // name, image
		annotation, failing     string
		term                    string
	}{
		{name: "mesh proxy and secret agent first", workload: "checkout", problem: "checkout returns 500 on payment",
			containers: [][2]string{{"istio-proxy", "docker.io/istio/proxyv2:1.22"}, {"vault-agent", "hashicorp/vault:1.17"}, {"app", "registry.example/checkout:3"}},
			failing:    "app", term: "unexpected token in template"},
		{name: "reloader and exporter first", workload: "ledger", problem: "ledger postings are missing",
			containers: [][2]string{{"config-reloader", "quay.io/prometheus-operator/prometheus-config-reloader:v0.75"}, {"stats", "prom/statsd-exporter:v0.26"}, {"ledger", "registry.example/ledger:9"}},
			failing:    "ledger", term: "unexpected token in template"},
		{name: "the container the problem names", workload: "media", problem: "the transcoder container of media logs errors",
			containers: [][2]string{{"web", "nginx:1.27"}, {"uploader", "registry.example/uploader:2"}, {"transcoder", "registry.example/transcoder:5"}},
			failing:    "transcoder", term: "unexpected token in template"},
		{name: "the default-container annotation", workload: "search", problem: "search results are empty",
			containers: [][2]string{{"warmup", "registry.example/warmup:1"}, {"indexer", "registry.example/indexer:1"}, {"query", "registry.example/query:4"}},
			annotation: "query", failing: "query", term: "unexpected token in template"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := app(tc.workload, 1, func(s *corev1.PodSpec) {
				s.Containers = nil
				for _, c := range tc.containers {
					s.Containers = append(s.Containers, fx.Container(c[0], c[1]))
				}
			}, nil)
			for _, o := range objs {
				if p, ok := o.(*corev1.Pod); ok && tc.annotation != "" {
					p.Annotations = map[string]string{"kubectl.kubernetes.io/default-container": tc.annotation}
				}
			}
			e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = func(_ context.Context, _, _ string, o *corev1.PodLogOptions) (io.ReadCloser, error) {
				txt := "INFO ready\n"
				if o.Container == tc.failing {
					txt = strings.Repeat("ERROR render page: unexpected token in template at line 4\n", 3)
				}
				return io.NopCloser(strings.NewReader(txt)), nil
			}
			c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns})
			rc := c.RootCause
			if rc.Rule != "app-error-logged" || rc.Culprit.Name != tc.workload || !strings.Contains(rc.Summary, tc.term) || !strings.Contains(rc.Summary, "Container "+tc.failing) {
				t.Fatalf("got %s on %s, want app-error-logged on Deployment/%s quoting container %s\nsummary: %s", rc.Rule, rc.Culprit.Name, tc.workload, tc.failing, rc.Summary)
			}
		})
	}
}
