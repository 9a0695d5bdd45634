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

import (
	"reflect"
	"testing"
)

// The reader of a summary's object mentions: each spelling a rule writes, words after a kind
// that are no names, kinds inside longer kinds.
func TestSummaryRefs(t *testing.T) {
	real := map[string]bool{
		"ConfigMap/search-sync-config": true, "ClusterRole/dns-sync": true, "RoleBinding/ci-read": true,
		"Secret/pg.creds": true, "NetworkPolicy/deny-all": true, "Ingress/shop": true, "Service/api": true,
		"ConfigMap/loki": true,
	}
	ok := func(kind, name string) bool { return real[kind+"/"+name] }
	cases := []struct {
		text string
		want []string
	}{
		{"the client sets SEARCH_SYNC_TOPIC = catalog.x in ConfigMap search-sync-config.", []string{"ConfigMap/search-sync-config"}},
		{"ClusterRole dns-sync grants ingresses; RoleBinding ci-read binds Role viewer", []string{"ClusterRole/dns-sync", "RoleBinding/ci-read"}},
		{`secret "pg.creds" not found; Secret "pg.creds" holds PGPASSWORD`, []string{"Secret/pg.creds"}},
		{"Ingress/shop routes /api (Exact) to Service api; NetworkPolicy 'deny-all' drops it", []string{"Ingress/shop", "Service/api", "NetworkPolicy/deny-all"}},
		{"the Secret key PASSWORD, the Secret Key, a Service_NAME, MyConfigMap loki", nil},
		{"loki reads ingestion_rate_mb: 4 from ConfigMap loki (limits_config)", []string{"ConfigMap/loki"}},
		{"ConfigMap -loki and ConfigMap", nil},
	}
	for _, c := range cases {
		var got []string
		for _, r := range summaryRefs(c.text, ok) {
			got = append(got, r.Kind+"/"+r.Name)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.text, got, c.want)
		}
	}
}
