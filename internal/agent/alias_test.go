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

// A name that misspells the cluster domain resolves nowhere: blamed on the ExternalName alias
// or the setting that holds it, from the client's lookup error or, with no word from the
// client, from its configuration alone. A correctly spelt alias is not blamed for it.
func TestClusterDomainMisspeltNames(t *testing.T) {
	alias := func(name, target string) *corev1.Service {
		s := svcAt(name, "", nil, 587)
		s.Spec.Type, s.Spec.ClusterIP, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "", target
		return s
	}
	mailer := func(target string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("newsletter", 1, withEnv("SMTP_HOST", "smtp-relay", "SMTP_PORT", "587"), crashing)
			return append(o, alias("smtp-relay", target), fx.Node("node-1"))
		}
	}
	lookup := "INFO connecting to SMTP relay smtp-relay:587\nERROR socket.gaierror: [Errno -2] Name or service not known\n"
	runDepCases(t, []depCase{
		{name: "alias misspelt, the client's lookup error", problem: "the newsletter is not sent",
			objs: mailer("postfix.mail-infra.svc.cluster.locl"), logs: logBook{"newsletter-": lookup},
			rule: "dependency-host-unknown", culprit: "Service/smtp-relay", affected: []string{"Deployment/newsletter"},
			terms: []string{"postfix.mail-infra.svc.cluster.locl", "svc.cluster.locl", "postfix.mail-infra.svc.cluster.local"}},
		{name: "alias misspelt, logs unreachable", problem: "the newsletter is not sent",
			objs: mailer("postfix.mail-infra.svc.cluser.local"),
			rule: "dependency-host-unknown", culprit: "Service/smtp-relay", affected: []string{"Deployment/newsletter"},
			terms: []string{"svc.cluser.local", "externalName"}},
		{name: "a misspelt name in a ConfigMap, the client's lookup error", problem: "orders keep crashing",
			objs: func() []runtime.Object {
				o := app("orders", 1, envFrom("orders-env"), crashing)
				return append(o, cmWith("orders-env", "DB_HOST", "pg.data.svc.cluster.lcoal", "DB_PORT", "5432"), fx.Node("node-1"))
			},
			logs: logBook{"orders-": "FATAL could not translate host name \"pg.data.svc.cluster.lcoal\" to address: Name or service not known\n"},
			rule: "dependency-host-unknown", culprit: "ConfigMap/orders-env", affected: []string{"Deployment/orders"},
			terms: []string{"pg.data.svc.cluster.lcoal", "DB_HOST"}},
		{name: "a misspelt name in env, logs unreachable", problem: "orders keep crashing",
			objs: func() []runtime.Object {
				return append(app("orders", 1, withEnv("DB_HOST", "pg.data.svc.clusterlocal"), crashing), fx.Node("node-1"))
			},
			rule: "dependency-host-unknown", culprit: "Deployment/orders", terms: []string{"pg.data.svc.clusterlocal", "DB_HOST"}},
	})
}
