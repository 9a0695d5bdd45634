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
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A sidecar that says the server beside it has "no external labels configured" names the
// ConfigMap key the server is started with, when that file has no such key; when it has
// one, the file is not blamed.
func TestSettingTheSidecarSaysIsAbsent(t *testing.T) {
	logs, err := os.ReadFile("../../hack/kwok/logs/w10a-thanos-sidecar-external-labels.log")
	if err != nil {
		t.Fatal(err)
	}
	objs := func(conf string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("metrics", 1, func(s *corev1.PodSpec) {
				s.Containers[0].Name = "server"
				s.Containers[0].Image = "quay.io/prometheus/prometheus:v2.54.1"
				s.Containers[0].Args = []string{"--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data"}
				mountCMAs("cfg", "metrics-config", "/etc/config")(s)
				s.Containers = append([]corev1.Container{{Name: "sidecar", Image: "quay.io/thanos/thanos:v0.36.1", Args: []string{"sidecar", "--prometheus.url=http://localhost:9090"}}}, s.Containers...)
			}, func(p *corev1.Pod) {
				fx.CrashLoop(p, 1, "Error", 6)
				p.Status.ContainerStatuses[0].Name = "sidecar"
			})
			return append(o, cmWith("metrics-config", "prometheus.yml", conf), fx.Node("node-1"))
		}
	}
	book := logBook{"metrics-": string(logs)}
	runDepCases(t, []depCase{
		{name: "prometheus.yml has no external_labels", problem: "long-term metrics stopped",
			objs: objs("global:\n  scrape_interval: 30s\nscrape_configs:\n- job_name: prometheus\n"), logs: book,
			rule: "config-value-missing", culprit: "ConfigMap/metrics-config", affected: []string{"Deployment/metrics"},
			terms: []string{"external_labels", "prometheus.yml"}},
	})
	e := engine(objs("global:\n  external_labels:\n    cluster: eu1\n")()...)
	e.Logs = book.source()
	if rc := drive(t, e, sessionFor("long-term metrics stopped")).RootCause; rc.Rule == "config-value-missing" && rc.Culprit.Name == "metrics-config" {
		t.Errorf("a file that sets external_labels was blamed: %s", rc.Summary)
	}
}
