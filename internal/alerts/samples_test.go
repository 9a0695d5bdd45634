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

package alerts

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The samples in config/samples/alertmanager must stay usable as the code changes.
func TestSamples(t *testing.T) {
	dir := "../../config/samples/alertmanager/"
	read := func(name string) []byte {
		b, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(read("policy-configmap.yaml"), &cm); err != nil {
		t.Fatal(err)
	}
	p, err := ParsePolicy([]byte(cm.Data[PolicyKey]), DefaultPolicy())
	if err != nil {
		t.Fatalf("sample policy: %v", err)
	}
	c, err := p.Compile()
	if err != nil {
		t.Fatalf("sample policy: %v", err)
	}
	if c.Investigate(map[string]string{"alertname": "Watchdog", "severity": "critical"}) || !c.Investigate(map[string]string{"alertname": "X", "severity": "critical"}) {
		t.Error("sample policy matchers do not do what its comments say")
	}

	var sec corev1.Secret
	if err := yaml.UnmarshalStrict(read("token-secret.yaml"), &sec); err != nil {
		t.Fatal(err)
	}
	if _, err := checkToken([]byte(sec.StringData[TokenKey])); err != nil {
		t.Errorf("sample token: %v", err)
	}

	var am struct {
		Receivers []struct {
			Name           string `json:"name"`
			WebhookConfigs []struct {
				URL          string `json:"url"`
				SendResolved bool   `json:"send_resolved"`
				MaxAlerts    int    `json:"max_alerts"`
				HTTPConfig   struct {
					Authorization struct {
						Type            string `json:"type"`
						CredentialsFile string `json:"credentials_file"`
					} `json:"authorization"`
				} `json:"http_config"`
			} `json:"webhook_configs"`
		} `json:"receivers"`
	}
	if err := yaml.Unmarshal(read("alertmanager.yml.example"), &am); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range am.Receivers {
		for _, w := range r.WebhookConfigs {
			found = true
			if !strings.HasSuffix(w.URL, Path) || !w.SendResolved || w.MaxAlerts > DefaultMaxAlerts || w.HTTPConfig.Authorization.Type != "Bearer" {
				t.Errorf("sample webhook config %+v", w)
			}
		}
	}
	if !found {
		t.Error("sample Alertmanager config has no webhook receiver")
	}
}
