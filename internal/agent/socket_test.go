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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A proxy that cannot connect to the unix socket its configuration names, beside an app
// container whose configuration listens on TCP, names both ConfigMaps and both addresses.
func TestSocketTheServerDoesNotCreate(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("shop", 1, func(s *corev1.PodSpec) {
			mountCMAs("proxy", "shop-proxy", "/etc/proxy")(s)
			s.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health"}}}
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "appcfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "shop-app"}}}})
			s.Containers = append(s.Containers, corev1.Container{Name: "app", Image: "registry.example/shop:3", VolumeMounts: []corev1.VolumeMount{{Name: "appcfg", MountPath: "/etc/uwsgi"}}})
			s.Containers[0].Name = "proxy"
		}, func(p *corev1.Pod) { fx.SetNotReady(p) })
		for _, x := range o {
			if p, ok := x.(*corev1.Pod); ok {
				p.Status.ContainerStatuses[0].Name = "proxy"
				o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 502", 30, 0))
			}
		}
		return append(o, cmWith("shop-proxy", "shop.conf", "server {\n  listen 8080;\n  location / { uwsgi_pass unix:/run/app/uwsgi.sock; }\n}\n"),
			cmWith("shop-app", "uwsgi.ini", "[uwsgi]\nmodule = shop.wsgi\nsocket = 127.0.0.1:3031\nprocesses = 4\n"), fx.Node("node-1"))
	}
	runDepCases(t, []depCase{
		{name: "uwsgi listens on TCP while the proxy dials its socket", problem: "the shop answers 502",
			objs: objs, logs: logBook{"shop-": strings.Repeat("2026/11/27 23:05:44 [crit] 30#30: *7 connect() to unix:/run/app/uwsgi.sock failed (2: No such file or directory) while connecting to upstream, client: 10.244.1.6\n", 3)},
			rule: "config-value-rejected", culprit: "ConfigMap/shop-proxy", affected: []string{"ConfigMap/shop-app", "Deployment/shop"},
			terms: []string{"/run/app/uwsgi.sock", "127.0.0.1:3031", "uwsgi.ini"}},
	})
}
