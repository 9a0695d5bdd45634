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
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// "Only one ... can be marked as default" with two ConfigMaps each marking a default names
// both, the newest as the culprit; one default alone is no such fault.
func TestOnlyOneDefaultNamesTheNewestMarker(t *testing.T) {
	logs, err := os.ReadFile("../../hack/kwok/logs/w10a-grafana-datasource-default.log")
	if err != nil {
		t.Fatal(err)
	}
	objs := func(second bool) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("dashboards", 1, nil, crashing)
			first := cmWith("dashboards-datasources", "datasources.yaml", "apiVersion: 1\ndatasources:\n- name: Metrics\n  type: prometheus\n  isDefault: true\n")
			first.CreationTimestamp = fx.Ago(30 * 24 * time.Hour)
			o = append(o, first, fx.Node("node-1"))
			if second {
				c := cmWith("traces-datasource", "tempo.yaml", "apiVersion: 1\ndatasources:\n- name: Traces\n  type: tempo\n  isDefault: true\n")
				c.CreationTimestamp = fx.Ago(20 * time.Hour)
				o = append(o, c)
			}
			return o
		}
	}
	book := logBook{"dashboards-": string(logs)}
	runDepCases(t, []depCase{
		{name: "a second chart's datasource also marks itself default", problem: "dashboards answer 503 since yesterday",
			objs: objs(true), logs: book,
			rule: "config-value-rejected", culprit: "ConfigMap/traces-datasource", affected: []string{"ConfigMap/dashboards-datasources", "Deployment/dashboards"},
			terms: []string{"isDefault", "tempo.yaml"}},
	})
	e := engine(objs(false)()...)
	e.Logs = book.source()
	if rc := drive(t, e, sessionFor("dashboards answer 503 since yesterday")).RootCause; rc.Culprit.Name == "dashboards-datasources" && rc.Rule == "config-value-rejected" {
		t.Errorf("one default alone was blamed: %s", rc.Summary)
	}
}
