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

// A quietly crashing server whose mounted configuration names an upstream no Service has
// (the backend's Service was renamed) is explained by that configuration, without its log.
func TestQuietUpstreamNamesNoService(t *testing.T) {
	conf := func(upstream string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("frontend", 1, func(s *corev1.PodSpec) {
				s.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "frontend-nginx-conf"}}}}}
				s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/nginx/conf.d"}}
			}, crashing)
			o = append(o, app("backend", 2, nil, nil)...)
			return append(o, cmWith("frontend-nginx-conf", "frontend.conf", "upstream "+upstream+" {\n    server "+upstream+";\n}\n\nserver {\n    listen 80;\n    location / {\n        proxy_pass http://"+upstream+";\n    }\n}\n"),
				svcAt("greeter", "10.96.0.61", map[string]string{"app": "backend"}, 80), svcAt("frontend", "10.96.0.62", map[string]string{"app": "frontend"}, 80), fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "nginx upstream names the Service's old name", problem: "the frontend is down since the backend's release",
			objs: conf("hello"), rule: "dependency-host-unknown", culprit: "ConfigMap/frontend-nginx-conf", affected: []string{"Deployment/frontend"},
			terms: []string{"hello", "frontend-nginx-conf"}},
	})
	e := engine(conf("greeter")()...)
	e.Logs = logBook(nil).source()
	c := drive(t, e, sessionFor("the frontend is down since the backend's release"))
	if c.RootCause.Rule == "dependency-host-unknown" {
		t.Errorf("blamed an upstream that names an existing Service: %s", c.RootCause.Summary)
	}
}
