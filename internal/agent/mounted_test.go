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
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHostsInFile(t *testing.T) {
	cases := []struct {
		name, file string
		want       []string // host[:port]
	}{
		{"nginx proxy_pass with a port", "server {\n  listen 8080;\n  server_name shop.example.com;\n  location /api/ { proxy_pass http://orders:8080; }\n}\n", []string{"orders:8080"}},
		{"nginx upstream block name is still read, without a port", "upstream backend { server api:80; }\nlocation / { proxy_pass http://backend; }\n", []string{"api:80", "backend"}},
		{"ADO.NET connection string in JSON", `{"ConnectionStrings":{"Db":"Server=ledger-sql,1433;Database=ledger;User Id=app"}}`, []string{"ledger-sql:1433"}},
		{"Npgsql keywords", "Host=pg-main;Port=5432;Database=orders", []string{"pg-main"}},
		{"Data Source with tcp:", "Data Source=tcp:reports-db,1433;Initial Catalog=r", []string{"reports-db:1433"}},
		{"YAML URL", "spring:\n  datasource:\n    url: jdbc:postgresql://billing-pg:5432/billing\n", []string{"billing-pg:5432"}},
		{"comments are skipped", "# upstream old-api:8080 was retired\n// also legacy-db:5432\nredis: cache:6379\n", []string{"cache:6379"}},
		{"JSON keys and numbers are not hosts", `{"port":8080,"timeout":"30s","version":"1.2.3"}`, nil},
		{"localhost is ignored", "listen http://localhost:9090\n", nil},
		{"a hostile line stays bounded", strings.Repeat("http://a:1 ", 5000), []string{"a:1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, h := range hostsInFile(tc.file) {
				got = append(got, h.String())
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	var big strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&big, "peer-%d:7000\n", i)
	}
	if n := len(hostsInFile(big.String())); n != maxHostsPerFile {
		t.Fatalf("a file naming 5000 peers gave %d hosts, want the cap %d", n, maxHostsPerFile)
	}
}

func TestHostsInValueConnectionStrings(t *testing.T) {
	hs, form := hostsInValue("Server=catalog-db,1433;Database=catalog;TrustServerCertificate=True")
	if len(hs) != 1 || hs[0].String() != "catalog-db:1433" || !form {
		t.Fatalf("got %v (address form %t)", hs, form)
	}
}

// Service-discovery address forms (Thanos, Cortex, Loki) name their host after the prefix and
// the SRV labels.
func TestHostsInDiscoveryAddresses(t *testing.T) {
	for v, want := range map[string]string{
		"dnssrv+_grpc._tcp.prometheus-thanos-discovery": "prometheus-thanos-discovery",
		"dns+store-gateway:10901":                       "store-gateway:10901",
		"dnssrvnoa+_grpc._tcp.ingester-headless":        "ingester-headless",
	} {
		if hs, _ := hostsInValue(v); len(hs) == 0 || hs[0].String() != want {
			t.Errorf("hostsInValue(%q) = %v, want %s", v, hs, want)
		}
	}
	if hs, _ := hostsInValue("dns+a:1,dns+b:2"); len(hs) != 2 || hs[1].String() != "b:2" {
		t.Errorf("a list of discovery addresses gave %v", hs)
	}
}

func TestNameStem(t *testing.T) {
	cases := []struct {
		a, b string
		same bool
	}{
		{"notification-svc", "notifications", true},
		{"payments-service", "payments", true},
		{"ordersvc", "orders", true},
		{"redis-svc", "redis", true},
		{"orders", "order", true},
		{"orders", "payments", false},
		{"api-svc", "api", false}, // too short a stem to be sure
		{"postgres", "postgres", false},
		{"class", "clas", false},
	}
	for _, tc := range cases {
		if got := sameStem(tc.a, tc.b); got != tc.same {
			t.Errorf("sameStem(%q, %q) = %t, want %t", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestMountedConfigMaps(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{
			{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-conf"}}}},
			{Name: "all", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "shared"}}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}}},
			}}}},
			{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		Containers: []corev1.Container{{Name: "app", VolumeMounts: []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/web"}, {Name: "all", MountPath: "/etc/all"}, {Name: "tmp", MountPath: "/tmp"}}}},
	}}
	names, paths := mountedConfigMaps(p.Spec.Containers[0], p)
	if fmt.Sprint(names, paths) != "[web-conf shared] [/etc/web /etc/all]" {
		t.Fatalf("got %v %v", names, paths)
	}
}

func TestParseWords(t *testing.T) {
	for line, want := range map[string]bool{
		`level=fatal msg="failed to load configuration" error="yaml: line 14: mapping values are not allowed in this context"`: true,
		`json: cannot unmarshal string into Go struct field Config.port of type int`:                                           true,
		`toml: line 3 (last key "db"): expected a top-level item to end with a newline`:                                        true,
		`error parsing /etc/app/config.json`:                                                                                   true,
		`open /etc/app/config.yaml: no such file or directory`:                                                                 false,
		`myyaml:thing is fine`: false,
	} {
		if got := parseWords.MatchString(line); got != want {
			t.Errorf("parseWords(%q) = %t, want %t", line, got, want)
		}
	}
}

func TestServerWord(t *testing.T) {
	cases := []struct {
		line  string
		names []string
		want  string
	}{
		{"DCSError: etcdserver: mvcc: database space exceeded", []string{"etcd", imageBase("quay.io/coreos/etcd:v3.5.15")}, "etcdserver"},
		{"search failed: elasticsearch cluster_block_exception", []string{"search-data", imageBase("docker.elastic.co/elasticsearch/elasticsearch@sha256:abc")}, "elasticsearch"},
		{"upstream payments-api returned 500", []string{"api"}, ""},
		{"panic: nil map", []string{"redis"}, ""},
	}
	for _, tc := range cases {
		if got := serverWord(tc.line, tc.names...); got != tc.want {
			t.Errorf("serverWord(%q, %v) = %q, want %q", tc.line, tc.names, got, tc.want)
		}
	}
}
