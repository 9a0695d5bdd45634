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

	fx "github.com/kubage/kubage/test/fixtures"
)

// TLS spoken to a plain port, or plain HTTP to a TLS port, in several clients' words: the
// setting holding the address is the culprit, not a certificate.
func TestProtocolMismatch(t *testing.T) {
	healthy := func(client string, spec func(*corev1.PodSpec), extra ...runtime.Object) func() []runtime.Object {
		return func() []runtime.Object {
			o := app(client, 1, spec, crashing)
			o = append(o, app("catalog", 1, nil, nil)...)
			return append(append(o, svcAt("catalog", "10.96.2.2", map[string]string{"app": "catalog"}, 8080), fx.Node("node-1")), extra...)
		}
	}
	cases := []depCase{
		{name: "Go client, https to a plain port", problem: "shop pages fail",
			objs: healthy("shop", withEnv("CATALOG_URL", "https://catalog:8080/v1")),
			logs: logBook{"shop-": "FATAL Get \"https://catalog:8080/v1/items\": http: server gave HTTP response to HTTPS client\n"},
			rule: "dependency-protocol-mismatch", culprit: "Deployment/shop", terms: []string{"CATALOG_URL", "https://catalog:8080/v1"}},
		{name: "OpenSSL wrong version number, address in a ConfigMap, no host in the text", problem: "shop pages fail",
			objs: healthy("shop", envFrom("shop-env"), cmWith("shop-env", "CATALOG_ENDPOINT", "https://catalog.payments.svc:8080")),
			logs: logBook{"shop-": "curl: (35) error:0A00010B:SSL routines::wrong version number\n"},
			rule: "dependency-protocol-mismatch", culprit: "ConfigMap/shop-env", affected: []string{"Deployment/shop"}, terms: []string{"CATALOG_ENDPOINT"}},
		{name: "nginx answers 400 to plain HTTP on its TLS port", problem: "shop pages fail",
			objs: healthy("shop", withArgs("--catalog=http://catalog:8080")),
			logs: logBook{"shop-": "ERROR catalog replied 400: <center>The plain HTTP request was sent to HTTPS port</center>\n"},
			rule: "dependency-protocol-mismatch", culprit: "Deployment/shop", terms: []string{"plain HTTP", "http://catalog:8080"}},
		{name: "the Service's https port targets the pods' plain port", problem: "checkout fails at startup",
			objs: func() []runtime.Object {
				o := app("checkout", 1, withEnv("LEDGER_URL", "https://ledger:8443"), crashing)
				o = append(o, app("ledger", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "https", ContainerPort: 8443}}
				}, nil)...)
				svc := svcAt("ledger", "10.96.2.9", map[string]string{"app": "ledger"}, 8443)
				svc.Spec.Ports[0].Name = "https"
				return append(o, svc, fx.Node("node-1"))
			},
			logs: logBook{"checkout-": "ERROR dependency check failed error=Get \"https://ledger:8443/healthz\": http: server gave HTTP response to HTTPS client\n"},
			rule: "dependency-protocol-mismatch", culprit: "Service/ledger", affected: []string{"Deployment/checkout"}, terms: []string{"targetPort", "https"}},
	}
	runDepCases(t, cases)
}
