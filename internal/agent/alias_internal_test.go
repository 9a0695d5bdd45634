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

package agent

import "testing"

func TestClusterDomainMisspelt(t *testing.T) {
	for host, want := range map[string]string{
		"postfix.mail-infra.svc.cluster.locl":   "svc.cluster.locl",
		"postfix.mail-infra.svc.cluser.local":   "svc.cluser.local",
		"pg.data.svc.cluster.lcoal.":            "svc.cluster.lcoal",
		"pg.data.svc.clusterlocal":              "svc.clusterlocal",
		"pg.data.svc.cluster.local":             "",
		"pg.data.svc.cluster.local.":            "",
		"pg.data.svc":                           "",
		"pg.data":                               "",
		"db.eu-west-1.rds.amazonaws.com":        "",
		"smtp.example.com":                      "",
		"pg.data.svc.k8s.internal":              "",
		"kafka-0.kafka.events.svc.cluster.locl": "svc.cluster.locl",
	} {
		got, ok := clusterDomainMisspelt(host)
		if got != want || ok != (want != "") {
			t.Errorf("clusterDomainMisspelt(%q) = %q, %v; want %q", host, got, ok, want)
		}
	}
}
