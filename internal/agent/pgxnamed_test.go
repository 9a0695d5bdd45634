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

// With the connection URL in a Secret (never read), the server a well-known error comes
// from is the one the error names (pgx writes "IP:port (name)"), not the client's own
// Service that its structured log names as service=...
func TestKnownErrorServerNamedByTheErrorItself(t *testing.T) {
	runDepCases(t, []depCase{
		{name: "pg_hba refuses the pod network; the URL is in a Secret", problem: "orders-api crash-loops since the database moved into the cluster",
			objs: func() []runtime.Object {
				o := app("orders-api", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "DATABASE_URL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "orders-api-db"}, Key: "DATABASE_URL"}}}}
				}, crashing)
				o = append(o, app("orders-pg", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Image = "postgres:16.4"
					s.Containers[0].Args = []string{"-c", "hba_file=/etc/pg/pg_hba.conf"}
					mountCMAs("cfg", "orders-pg-conf", "/etc/pg")(s)
				}, nil)...)
				return append(o, cmWith("orders-pg-conf", "pg_hba.conf", "# TYPE DATABASE USER ADDRESS METHOD\nlocal all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\nhost replication all 127.0.0.1/32 trust\nhost all all 192.168.0.0/16 scram-sha-256\n"),
					fx.Secret(ns, "orders-api-db", "DATABASE_URL"),
					svcAt("orders-pg", "10.96.0.71", map[string]string{"app": "orders-pg"}, 5432), svcAt("orders-api", "10.96.0.72", map[string]string{"app": "orders-api"}, 80), fx.Node("node-1"))
			},
			logs: logBook{"orders-api-": `{"level":"error","service":"orders-api","error":"failed to connect to ` + "`user=orders database=orders`" + `: 10.96.9.9:5432 (orders-pg): server error: FATAL: no pg_hba.conf entry for host \"10.244.1.9\", user \"orders\", database \"orders\", no encryption (SQLSTATE 28000)"}` + "\n"},
			rule: "server-access-rule", culprit: "ConfigMap/orders-pg-conf", affected: []string{"Service/orders-pg", "Deployment/orders-api"},
			terms: []string{"pg_hba.conf", "192.168.0.0/16"}},
	})
	c := agent.ExtractClues([]string{`failed to connect to user=x: 10.96.9.9:5432 (orders-pg): server error`})
	found := false
	for _, h := range c.Hosts {
		found = found || h.Host == "orders-pg" && h.Port == "5432" && !h.Weak
	}
	if !found {
		t.Errorf("pgx's named server not among the hosts: %+v", c.Hosts)
	}
}
