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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestProbeListenPort(t *testing.T) {
	c := corev1.Container{Name: "app", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}}}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}}
	refused := `Get "http://10.244.1.37:80/healthz": dial tcp 10.244.1.37:80: connect: connection refused`
	cases := []struct {
		name  string
		msg   string
		lines []string
		want  string
	}{
		{"kestrel on another port", refused, []string{"info: Microsoft.Hosting.Lifetime[14]", "      Now listening on: http://[::]:8080", "info: Application started."}, "listens on port 8080"},
		{"node on another port", refused, []string{"Listening on port 3000"}, "not on port 80"},
		{"it does listen on the probed port", refused, []string{"metrics listening on :9090", "Now listening on: http://[::]:80"}, ""},
		{"no announcement", refused, []string{"GET /orders 200 12ms"}, ""},
		{"a refusal is needed", "HTTP probe failed with statuscode: 503", []string{"Listening on port 3000"}, ""},
	}
	for _, tc := range cases {
		got := probeListenPort(probe, tc.msg, c, tc.lines)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestJudgedValue(t *testing.T) {
	cases := []struct{ line, found, want string }{
		{`IMPORTANT! Eviction policy is allkeys-lru. It should be "noeviction"`, "allkeys-lru", "noeviction"},
		{`sslmode is disable, must be require`, "disable", "require"},
		{`invalid api version: expected v2, got v1beta1`, "v1beta1", "v2"},
		{`connection refused`, "", ""},
		{`the value should be set`, "", ""},
	}
	for _, tc := range cases {
		f, w := judgedValue(tc.line)
		if f != tc.found || w != tc.want {
			t.Errorf("%q: got (%q, %q), want (%q, %q)", tc.line, f, w, tc.found, tc.want)
		}
	}
}

func TestUnevenTrafficQuestion(t *testing.T) {
	for q, want := range map[string]bool{
		"two of the three pricing pods never get any requests":     true,
		"all the traffic goes to one pod":                          true,
		"load is not evenly spread across replicas":                true,
		"only one replica serves anything":                         true,
		"why does traffic never reach two of the pods?":            true,
		"every checkout request lands on the same pod":             true,
		"the pricing pods crash-loop since the release":            false,
		"requests to pricing time out":                             false,
		"checkout gets no response from pricing, connection reset": false,
	} {
		if got := unevenTraffic.MatchString(q); got != want {
			t.Errorf("%q: got %v, want %v", q, got, want)
		}
	}
}
