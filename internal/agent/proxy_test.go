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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A container given an HTTP proxy calls a cluster Service through it when NO_PROXY does not
// cover the Service's name: NO_PROXY's source is the culprit, not the healthy Service. A
// NO_PROXY that covers the name, or a non-HTTP client, leaves the proxy out of it.
func TestProxySettingsDivertClusterCalls(t *testing.T) {
	squid := logBook{"web-": "INFO starting\nWARN dependency check failed: GET http://api:8080/healthz: 503 Service Unavailable (X-Squid-Error: ERR_DNS_FAIL 0; Via: 1.1 egress.corp.example (squid/5.7))\n"}
	objs := func(noProxy string, envEntry bool) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("web", 1, func(s *corev1.PodSpec) {
				envFrom("corp-proxy")(s)
				if envEntry {
					s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: "NO_PROXY", Value: noProxy})
				}
			}, crashing)
			o = append(o, app("api", 2, nil, nil)...)
			cm := cmWith("corp-proxy", "HTTP_PROXY", "http://egress.corp.example:3128", "HTTPS_PROXY", "http://egress.corp.example:3128")
			if !envEntry {
				cm.Data["NO_PROXY"] = noProxy
			}
			return append(o, cm, svcAt("api", "10.96.0.20", map[string]string{"app": "api"}, 8080), fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "NO_PROXY in the shared ConfigMap lacks the Service name", problem: "checkout fails since the platform change",
			objs: objs("localhost,127.0.0.1,.corp.example", false), logs: squid,
			rule: "proxy-intercepts-cluster-call", culprit: "ConfigMap/corp-proxy", affected: []string{"Deployment/web"},
			terms: []string{"NO_PROXY", "HTTP_PROXY", "api", "corp-proxy"}},
		{name: "an env entry overrides the ConfigMap's NO_PROXY", problem: "checkout fails since the platform change",
			objs: objs("localhost", true), logs: squid,
			rule: "proxy-intercepts-cluster-call", culprit: "Deployment/web", terms: []string{"NO_PROXY", "the env of Deployment web"}},
	})
	for _, tc := range []struct {
		name, noProxy string
		logs          logBook
	}{
		{name: "NO_PROXY covers the short name", noProxy: "localhost,api,.svc,.cluster.local", logs: squid},
		{name: "a wildcard covers everything", noProxy: "*", logs: squid},
		{name: "a database client ignores the proxy", noProxy: "localhost", logs: logBook{"web-": "FATAL: could not connect to server: dial tcp 10.96.0.20:8080: connect: connection refused\n"}},
	} {
		e := agent.NewRuleEngine(fake.NewClientset(objs(tc.noProxy, false)()...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = tc.logs.source()
		if rc := drive(t, e, agent.Session{ID: "t", Problem: "checkout fails", Namespace: ns}).RootCause; rc.Rule == "proxy-intercepts-cluster-call" {
			t.Errorf("%s: the proxy was blamed: %s", tc.name, rc.Summary)
		}
	}
}
