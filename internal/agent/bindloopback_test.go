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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A client refused at a Service whose Ready server logs that it listens on localhost at the
// target port is answered with the server's configuration; a server listening on 0.0.0.0 is
// not blamed for it.
func TestProviderListensOnLoopback(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("checkout", 1, withEnv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317"), nil)
		o = append(o, app("otel-collector", 1, func(s *corev1.PodSpec) {
			mountCM("otel-collector-config", "/conf")(s)
			s.Containers[0].Ports = []corev1.ContainerPort{{Name: "otlp-grpc", ContainerPort: 4317}}
		}, nil)...)
		svc := svcAt("otel-collector", "10.96.4.17", map[string]string{"app": "otel-collector"}, 4317)
		svc.Spec.Ports[0].TargetPort = intstr.FromString("otlp-grpc")
		return append(o, svc, cmWith("otel-collector-config", "config.yaml", "receivers:\n  otlp:\n    protocols:\n      grpc:\n      http:\n        endpoint: 0.0.0.0:4318\n"), fx.Node("node-1"))
	}
	client := strings.Repeat(`2026/11/29 09:20:40 traces export: context deadline exceeded: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.96.141.22:4317: connect: connection refused"`+"\n", 4)
	server := func(addr string) string {
		return "2026-11-29T09:20:11.407Z\tinfo\tservice@v0.104.0/service.go:193\tStarting otelcol-contrib...\n" +
			"2026-11-29T09:20:11.409Z\tinfo\totlpreceiver@v0.104.0/otlp.go:102\tStarting GRPC server\t{\"kind\": \"receiver\", \"name\": \"otlp\", \"endpoint\": \"" + addr + ":4317\"}\n" +
			"2026-11-29T09:20:11.409Z\tinfo\totlpreceiver@v0.104.0/otlp.go:152\tStarting HTTP server\t{\"kind\": \"receiver\", \"name\": \"otlp\", \"endpoint\": \"0.0.0.0:4318\"}\n"
	}
	runDepCases(t, []depCase{
		{name: "the collector's gRPC receiver on localhost", problem: "checkout traces are missing", objs: objs, logs: logBook{"checkout-": client, "otel-collector-": server("localhost")},
			rule: "provider-listens-loopback", culprit: "ConfigMap/otel-collector-config", affected: []string{"Service/otel-collector"}, terms: []string{"localhost:4317", "0.0.0.0:4317"}},
	})
	// Listening on every interface, the server is not the cause.
	e := engine(objs()...)
	e.Logs = logBook{"checkout-": client, "otel-collector-": server("0.0.0.0")}.source()
	if c := drive(t, e, sessionFor("checkout traces are missing")); c.RootCause.Rule == "provider-listens-loopback" {
		t.Errorf("blamed a server listening on 0.0.0.0: %s", c.RootCause.Summary)
	}
}

// A server that never announces its address (php-fpm says only "ready to handle connections")
// is read from its configuration: a pool whose listen line is on loopback at the port the
// Service targets refuses every other pod. A pool listening on the port alone is not blamed.
func TestProviderConfiguredOnLoopback(t *testing.T) {
	objs := func(listen string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("shop-web", 1, func(s *corev1.PodSpec) {
				s.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
			}, func(p *corev1.Pod) {
				fx.SetNotReady(p)
				p.Status.ContainerStatuses[0].RestartCount = 0
			})
			for _, x := range o {
				if p, ok := x.(*corev1.Pod); ok {
					o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 502", 20, time.Minute))
				}
			}
			o = append(o, app("shop-fpm", 1, func(s *corev1.PodSpec) {
				mountCM("shop-fpm-pool", "/usr/local/etc/php-fpm.d")(s)
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "fastcgi", ContainerPort: 9000}}
			}, nil)...)
			svc := svcAt("shop-fpm", "10.96.0.141", map[string]string{"app": "shop-fpm"}, 9000)
			svc.Spec.Ports[0].TargetPort = intstr.FromInt32(9000)
			return append(withEndpoints(o, svc, "shop-fpm-"), cmWith("shop-fpm-pool", "www.conf", "[www]\nuser = www-data\nlisten = "+listen+"\npm = dynamic\npm.max_children = 10\n"), fx.Node("node-1"))
		}
	}
	logs := logBook{
		"shop-web-": `2026/11/29 09:00:01 [error] 21#21: *1 connect() failed (111: Connection refused) while connecting to upstream, client: 10.244.1.1, server: _, request: "GET /healthz HTTP/1.1", upstream: "fastcgi://10.96.0.141:9000", host: "10.244.1.23:8080"` + "\n",
		"shop-fpm-": "[29-Nov-2026 09:00:00] NOTICE: fpm is running, pid 1\n[29-Nov-2026 09:00:00] NOTICE: ready to handle connections\n",
	}
	runDepCases(t, []depCase{
		{name: "the pool listens on 127.0.0.1:9000", problem: "shop-web answers 502", objs: objs("127.0.0.1:9000"), logs: logs,
			rule: "provider-listens-loopback", culprit: "ConfigMap/shop-fpm-pool", affected: []string{"Service/shop-fpm"}, terms: []string{"listen = 127.0.0.1:9000", "0.0.0.0:9000"}},
	})
	e := engine(objs("9000")()...)
	e.Logs = logs.source()
	if c := drive(t, e, sessionFor("shop-web answers 502")); c.RootCause.Rule == "provider-listens-loopback" {
		t.Errorf("blamed a pool listening on every interface: %s", c.RootCause.Summary)
	}
}

// A client whose resolver (a CoreDNS Deployment it names as nameserver) crash-loops on its loop
// plugin is answered with the resolver's Corefile, not with a loopback default of the client.
func TestCoreDNSLoopNamesTheCorefile(t *testing.T) {
	corefile := "corp.internal:53 {\n    errors\n    forward . 10.20.0.53\n}\n.:53 {\n    errors\n    health :8080\n    forward . /etc/resolv.conf\n    cache 30\n    loop\n}\n"
	objs := func() []runtime.Object {
		o := app("corp-dns", 1, func(s *corev1.PodSpec) {
			mountCM("corp-dns", "/etc/coredns")(s)
			s.Containers[0].Image = "registry.k8s.io/coredns/coredns:v1.11.3"
			s.Containers[0].Args = []string{"-conf", "/etc/coredns/Corefile"}
		}, crashing)
		return append(o, cmWith("corp-dns", "Corefile", corefile), fx.Node("node-1"))
	}
	runDepCases(t, []depCase{
		{name: "CoreDNS forwards . to /etc/resolv.conf", problem: "corp-dns keeps restarting", objs: objs,
			logs: logBook{"corp-dns-": ".:53\ncorp.internal.:53\nCoreDNS-1.11.3\nlinux/amd64, go1.21.11\n[FATAL] plugin/loop: Loop (127.0.0.1:51284 -> :53) detected for zone \".\", see https://coredns.io/plugins/loop#troubleshooting. Query: \"HINFO 3256798184416357211.8820197746530115212.\"\n"},
			rule: "client-connection-setting", culprit: "ConfigMap/corp-dns", terms: []string{"/etc/resolv.conf", "loop"}},
	})
}
