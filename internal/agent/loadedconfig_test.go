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

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A setting the application refuses to start without (or with its default value) belongs in
// the configuration file its log says it loads, when that file is a mounted ConfigMap or
// Secret key; without such a line the envFrom source stays the place to add it.
func TestSettingBelongsInTheFileTheLogLoads(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("ledger", 1, func(s *corev1.PodSpec) {
			mountCMAs("settings", "ledger-settings", "/etc/ledger")(s)
			s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ledger-env"}}}}
		}, crashing)
		return append(o, cmWith("ledger-settings", "settings.toml", "[http]\nport = 8080\n"), cmWith("ledger-env", "LOG_LEVEL", "info"), fx.Node("node-1"))
	}
	secretObjs := func() []runtime.Object {
		o := app("reports", 1, mountSecretAt("conf", "reports-conf", "/app/conf"), crashing)
		s := fx.Secret(ns, "reports-conf")
		s.Data = map[string][]byte{"local_settings.py": []byte("DEBUG = False\n")}
		return append(o, s, fx.Node("node-1"))
	}
	runDepCases(t, []depCase{
		{name: "a default value refused, the mounted file named by its path", problem: "ledger never starts",
			objs: objs,
			logs: logBook{"ledger-": "ledger 4.2 booting\nloading configuration from /etc/ledger/settings.toml\nA default JWT_SECRET was detected, set your own\nRefusing to start with insecure JWT_SECRET\nexiting\n"},
			rule: "config-value-missing", culprit: "ConfigMap/ledger-settings", affected: []string{"Deployment/ledger"},
			terms: []string{"JWT_SECRET", "settings.toml", "ledger-settings"}},
		{name: "a Secret's file named only by its bare name", problem: "reports crash since the upgrade",
			objs: secretObjs,
			logs: logBook{"reports-": "WARNING: a default SIGNING_KEY is in use, please use local_settings.py to override it\nRefusing to start due to insecure SIGNING_KEY\n"},
			rule: "config-value-missing", culprit: "Secret/reports-conf", affected: []string{"Deployment/reports"},
			terms: []string{"SIGNING_KEY", "local_settings.py"}},
		{name: "no file named: the ConfigMap loaded as env", problem: "ledger never starts",
			objs: objs,
			logs: logBook{"ledger-": "ledger 4.2 booting\nRefusing to start with insecure JWT_SECRET\nexiting\n"},
			rule: "config-value-missing", culprit: "ConfigMap/ledger-env", affected: []string{"Deployment/ledger"},
			terms: []string{"JWT_SECRET", "ledger-env"}},
	})
}

// "Refusing to start" is an error line, and a setting judged by its value is a key.
func TestRefusalNamesItsSetting(t *testing.T) {
	c := agent.ExtractClues([]string{"[INFO] Booting worker", "Refusing to start due to insecure SECRET_KEY", "[ERROR] Reason: Worker failed to boot."})
	if c.Line != "Refusing to start due to insecure SECRET_KEY" {
		t.Errorf("clue line %q, want the refusal", c.Line)
	}
	if !contains(c.Keys, "SECRET_KEY") {
		t.Errorf("keys %v lack SECRET_KEY", c.Keys)
	}
}
