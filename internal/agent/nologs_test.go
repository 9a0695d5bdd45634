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
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// withEndpoints adds Service s with an EndpointSlice over the pods whose names start with prefix.
func withEndpoints(o []runtime.Object, s *corev1.Service, prefix string) []runtime.Object {
	var pods []*corev1.Pod
	for _, x := range o {
		if p, ok := x.(*corev1.Pod); ok && strings.HasPrefix(p.Name, prefix) {
			pods = append(pods, p)
		}
	}
	return append(o, s, fx.EndpointSlice(s, pods...))
}

// readOnlyEmptyDir mounts an emptyDir read-only at path in the first container.
func readOnlyEmptyDir(path string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "scratch", MountPath: path, ReadOnly: true})
	}
}

// waitingInit gives the pod template an init container running cmd, and its pods an init
// container that has been running for ran.
func waitingInit(ran time.Duration, sidecar bool, cmd ...string) (func(*corev1.PodSpec), func(*corev1.Pod)) {
	return func(s *corev1.PodSpec) {
			c := corev1.Container{Name: "wait", Image: "busybox:1.36", Command: cmd}
			if sidecar {
				c.RestartPolicy = fx.Ptr(corev1.ContainerRestartPolicyAlways)
			}
			s.InitContainers = []corev1.Container{c}
		}, func(p *corev1.Pod) {
			st := corev1.ContainerStatus{Name: "wait", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(ran)}}}
			if sidecar {
				st.Ready, st.Started = true, fx.Ptr(true)
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{st}
				return
			}
			fx.SetNotReady(p)
			p.Status.Phase = corev1.PodPending
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{st}
			p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}
		}
}

// An init container that never finishes is a wait for something: what it waits for is
// matched against the namespace, with or without its log.
func TestInitContainerWaits(t *testing.T) {
	spec, pod := waitingInit(15*time.Minute, false, "sh", "-c", "until nslookup mydb.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for mydb; sleep 2; done")
	ncSpec, ncPod := waitingInit(15*time.Minute, false, "sh", "-c", "until nc -z -w 2 orders-db 5432; do sleep 2; done")
	loneSpec, lonePod := waitingInit(15*time.Minute, false, "/bin/prepare-assets", "--all")
	carSpec, carPod := waitingInit(15*time.Minute, true, "sh", "-c", "while true; do nslookup mydb; sleep 30; done")
	for _, logs := range []logBook{nil, {"web-": "waiting for mydb\nwaiting for mydb\n"}} {
		runDepCases(t, []depCase{
			{name: "an init container waits for a name no Service has", problem: "web never starts",
				objs: func() []runtime.Object { return append(app("web", 1, spec, pod), fx.Node("node-1")) },
				logs: logs, rule: "dependency-host-unknown", culprit: "Deployment/web", affected: []string{"Service/mydb"},
				terms: []string{"mydb", "init container", "create Service mydb"}},
			{name: "an init container waits for a Service whose pods crash", problem: "web never starts",
				objs: func() []runtime.Object {
					o := app("web", 1, ncSpec, ncPod)
					o = append(o, app("orders-db", 1, nil, crashing)...)
					return append(o, svcAt("orders-db", "10.96.0.9", map[string]string{"app": "orders-db"}, 5432), fx.Node("node-1"))
				},
				logs: logs, rule: "crash-loop", culprit: "Deployment/orders-db", affected: []string{"Deployment/web", "Service/orders-db"}},
			{name: "an init container that waits for nothing known is reported with its command", problem: "web never starts",
				objs: func() []runtime.Object { return append(app("web", 1, loneSpec, lonePod), fx.Node("node-1")) },
				logs: logs, rule: "init-container-blocked", culprit: "Deployment/web", terms: []string{"/bin/prepare-assets --all", "15m0s"}},
			{name: "a sidecar init container runs for good and is not blamed", problem: "is anything wrong?",
				objs: func() []runtime.Object { return append(app("web", 1, carSpec, carPod), fx.Node("node-1")) },
				logs: logs, rule: "no-problem-found"},
		})
	}
}

// Logs unreachable (a nil logBook): what the pod's files, names and mounts say still
// leads to the fault, and the summary says the logs could not be read.
func TestNoLogsStructuralEvidence(t *testing.T) {
	db := map[string]string{"app": "ledger-mssql"}
	api := map[string]string{"app": "api"}
	runDepCases(t, []depCase{
		{name: "quiet crash: the connection string in a mounted appsettings.json names a near miss of a Service", problem: "ledger does not start",
			objs: func() []runtime.Object {
				o := app("ledger", 1, mountCM("ledger-appsettings", "/app/config"), crashing)
				o = append(o, app("ledger-mssql", 1, nil, nil)...)
				return append(withEndpoints(o, svcAt("ledger-mssql", "10.96.0.50", db, 1433), "ledger-mssql-"),
					cmWith("ledger-appsettings", "appsettings.json", `{"ConnectionStrings":{"Ledger":"Server=ledger-sql,1433;Database=ledger"},"Logging":{"LogLevel":{"Default":"Information"}}}`), fx.Node("node-1"))
			},
			logs: nil,
			rule: "dependency-host-unknown", culprit: "ConfigMap/ledger-appsettings", affected: []string{"Deployment/ledger", "Service/ledger-mssql"},
			terms: []string{"ledger-sql", "ledger-mssql", "appsettings.json"}},
		{name: "Running proxy: its mounted nginx.conf calls a port the Service does not expose", problem: "the shop's /api calls fail",
			objs: func() []runtime.Object {
				o := app("proxy", 1, mountCM("proxy-conf", "/etc/nginx"), nil)
				o = append(o, app("api", 1, nil, nil)...)
				return append(withEndpoints(o, svcAt("api", "10.96.0.51", api, 80), "api-"),
					cmWith("proxy-conf", "nginx.conf", "http {\n  server {\n    listen 8080;\n    location /api/ { proxy_pass http://api:9000; }\n  }\n}\n"), fx.Node("node-1"))
			},
			logs: nil,
			rule: "dependency-port-mismatch", culprit: "ConfigMap/proxy-conf", affected: []string{"Deployment/proxy", "Service/api"},
			terms: []string{"9000", "logs unavailable"}},
		{name: "Running client: its URL names the Service with a -svc suffix it does not have", problem: "webhooks stopped",
			objs: func() []runtime.Object {
				o := app("hooks", 1, envFrom("hooks-env"), nil)
				o = append(o, app("billing", 1, nil, nil)...)
				return append(withEndpoints(o, svcAt("billing", "10.96.0.52", map[string]string{"app": "billing"}, 3000), "billing-"),
					cmWith("hooks-env", "TARGET_URL", "http://billing-svc:3000/events"), fx.Node("node-1"))
			},
			logs: nil,
			rule: "dependency-host-unknown", culprit: "ConfigMap/hooks-env", affected: []string{"Deployment/hooks", "Service/billing"},
			terms: []string{"billing-svc", "did you mean billing"}},
		{name: "Running worker: an emptyDir mounted read-only that nothing can write", problem: "thumbnails are missing",
			objs: func() []runtime.Object {
				return append(app("resizer", 1, readOnlyEmptyDir("/var/cache/resizer"), nil), fx.Node("node-1"))
			},
			logs: nil,
			rule: "mount-not-writable", culprit: "Deployment/resizer",
			terms: []string{"read-only file system", "/var/cache/resizer", "logs unavailable"}},
		{name: "quiet crash: an emptyDir mounted read-only", problem: "the resizer keeps restarting",
			objs: func() []runtime.Object {
				return append(app("resizer", 1, readOnlyEmptyDir("/var/cache/resizer"), crashing), fx.Node("node-1"))
			},
			logs: nil,
			rule: "mount-not-writable", culprit: "Deployment/resizer", terms: []string{"read-only file system"}},
		{name: "a read-only emptyDir of a Running pod whose log reads clean is not blamed", problem: "is anything wrong?",
			objs: func() []runtime.Object {
				return append(app("resizer", 1, readOnlyEmptyDir("/var/cache/resizer"), nil), fx.Node("node-1"))
			},
			logs: logBook{}, rule: "no-problem-found"},
		{name: "a read-only emptyDir another container writes is fine", problem: "is anything wrong?",
			objs: func() []runtime.Object {
				return append(app("resizer", 1, func(s *corev1.PodSpec) {
					readOnlyEmptyDir("/var/cache/resizer")(s)
					s.InitContainers = []corev1.Container{{Name: "warm", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: "/cache"}}}}
				}, nil), fx.Node("node-1"))
			},
			logs: nil, rule: "no-problem-found"},
		{name: "a Running proxy whose upstream block and Service port agree is not blamed", problem: "is anything wrong?",
			objs: func() []runtime.Object {
				o := app("proxy", 1, mountCM("proxy-conf", "/etc/nginx"), nil)
				o = append(o, app("api", 1, nil, nil)...)
				return append(withEndpoints(o, svcAt("api", "10.96.0.51", api, 80), "api-"),
					cmWith("proxy-conf", "nginx.conf", "upstream backend { server api:80; }\nserver { location / { proxy_pass http://backend; } }\n"), fx.Node("node-1"))
			},
			logs: nil, rule: "no-problem-found"},
		{name: "quiet crash with exit code 2: the summary quotes the command line it rejected", problem: "the api keeps restarting",
			objs: func() []runtime.Object {
				return append(app("api", 1, func(s *corev1.PodSpec) { s.Containers[0].Args = []string{"serve", "--listen-addres=:8080"} },
					func(p *corev1.Pod) { fx.CrashLoop(p, 2, "Error", 5) }), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/api", terms: []string{"--listen-addres=:8080", "exit code 2", "logs unavailable"}},
		{name: "quiet crash with exit code 127 names the command", problem: "the api keeps restarting",
			objs: func() []runtime.Object {
				return append(app("api", 1, func(s *corev1.PodSpec) { s.Containers[0].Command = []string{"/app/bin/serve"} },
					func(p *corev1.Pod) { fx.CrashLoop(p, 127, "Error", 5) }), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/api", terms: []string{"/app/bin/serve could not be run"}},
		{name: "a failing readiness probe without logs says so, and quotes the kubelet's message once", problem: "web gets no traffic",
			objs: func() []runtime.Object {
				o := app("web", 1, nil, func(p *corev1.Pod) { fx.SetNotReady(p) })
				ev := fx.Event(ns, "Pod", "", "Warning", "Unhealthy", "Readiness probe failed: Readiness probe failed: HTTP probe failed with statuscode: 500", 40, time.Minute)
				for _, x := range o {
					if p, ok := x.(*corev1.Pod); ok {
						p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
						ev.InvolvedObject.Name, ev.Name = p.Name, p.Name+".unhealthy"
					}
				}
				return append(o, ev, fx.Node("node-1"))
			},
			logs: nil, rule: "readiness-probe-failing", culprit: "Deployment/web",
			terms: []string{"fails (x40): HTTP probe failed with statuscode: 500", "log cannot be read"}},
		{name: "a quiet crash does not blame an nginx upstream block name", problem: "the proxy keeps restarting",
			objs: func() []runtime.Object {
				o := app("proxy", 1, mountCM("proxy-conf", "/etc/nginx"), crashing)
				return append(o, cmWith("proxy-conf", "nginx.conf", "upstream backend { server 10.0.0.9:80; }\nserver { location / { proxy_pass http://backend; } }\n"), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/proxy"},
	})
}

// A peer's stable DNS name (pod.service) that does not resolve because the StatefulSet's
// governing Service is gone: the name reads like "pod in namespace service", but the Service
// is the fault, whether or not the log can be read.
func TestPeerNamesUnderAMissingGoverningService(t *testing.T) {
	mesh := func() []runtime.Object {
		d := fx.Deployment(ns, "mesh", 2, "registry.example/mesh:1")
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "mesh", Namespace: ns, UID: fx.UID("StatefulSet", "mesh")}, Spec: appsv1.StatefulSetSpec{Replicas: fx.Ptr(int32(2)),
			ServiceName: "mesh-peers", Selector: d.Spec.Selector, Template: d.Spec.Template}, Status: appsv1.StatefulSetStatus{Replicas: 2, ReadyReplicas: 2}}
		sts.Spec.Template.Spec.Containers[0].Args = []string{"--peer=mesh-0.mesh-peers:7946", "--peer=mesh-1.mesh-peers:7946"}
		o := []runtime.Object{sts, svcAt("mesh", "10.96.0.60", d.Spec.Template.Labels, 80), fx.Node("node-1")}
		for i := 0; i < 2; i++ {
			o = append(o, fx.Pod(ns, fmt.Sprintf("mesh-%d", i), d.Spec.Template.Labels, sts.Spec.Template.Spec, sts, "StatefulSet"))
		}
		return o
	}
	log := logBook{"mesh-": "level=info msg=starting\nlevel=warn msg=\"failed to join cluster\" err=\"lookup mesh-1.mesh-peers on 10.96.0.10:53: no such host\"\nlevel=warn msg=\"failed to join cluster\" err=\"lookup mesh-1.mesh-peers on 10.96.0.10:53: no such host\"\n"}
	for _, logs := range []logBook{log, nil} {
		for _, target := range []*agent.Target{nil, {Kind: "StatefulSet", Name: "mesh"}} {
			e := agent.NewRuleEngine(fake.NewClientset(mesh()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logs.source()
			rc := drive(t, e, agent.Session{ID: "t", Problem: "a member has not found the other cluster members", Namespace: ns, Target: target}).RootCause
			var aff []string
			for _, r := range rc.AffectedObjects {
				aff = append(aff, r.Kind+"/"+r.Name)
			}
			if rc.Culprit.Kind != "Service" || rc.Culprit.Name != "mesh-peers" || !contains(aff, "StatefulSet/mesh") || !strings.Contains(rc.Summary, "mesh-peers") {
				t.Errorf("logs %t, target %v: got %s on %s/%s (affected %v): %s", logs != nil, target, rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, aff, rc.Summary)
			}
		}
	}
}

// A parser's error about a mounted file leads to the ConfigMap key holding it.
func TestParserErrorNamesTheMountedConfigMap(t *testing.T) {
	runDepCases(t, []depCase{{name: "yaml: line N in the log", problem: "logins fail, the auth pods crash-loop",
		objs: func() []runtime.Object {
			o := app("auth", 1, mountCM("auth-config", "/etc/auth"), crashing)
			return append(o, cmWith("auth-config", "config.yaml", "server:\n  port: 8080\nfeatures:\n  strategy: adaptive: true\n"), fx.Node("node-1"))
		},
		logs: logBook{"auth-": "level=info msg=\"loading configuration\" path=/etc/auth/config.yaml\nlevel=fatal msg=\"failed to load configuration\" error=\"yaml: line 4: mapping values are not allowed in this context\" path=/etc/auth/config.yaml\nlevel=info msg=\"shutdown complete\"\n"},
		rule: "config-file-invalid", culprit: "ConfigMap/auth-config", affected: []string{"Deployment/auth"},
		terms: []string{"mapping values are not allowed", "config.yaml"}}})
}

// A Ready provider that answers with its own error: the client's error names the provider's
// software, and the provider is blamed, quoting its log when it can be read.
func TestServerErrorNamesTheProvider(t *testing.T) {
	kv := map[string]string{"app": "kvstore"}
	objs := func() []runtime.Object {
		o := app("ledger", 1, func(s *corev1.PodSpec) {
			s.Containers[0].Env = []corev1.EnvVar{{Name: "KV_HOSTS", Value: "kv-client:2379"}}
		}, func(p *corev1.Pod) {
			crashing(p)
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "DCSError: failed to update leader key /service/ledger/leader: kvstoreserver: mvcc: database space exceeded"
		})
		o = append(o, app("kvstore", 2, nil, nil)...)
		return append(withEndpoints(o, svcAt("kv-client", "10.96.0.70", kv, 2379), "kvstore-"), fx.Node("node-1"))
	}
	runDepCases(t, []depCase{
		{name: "logs unreachable: the client's termination message names the provider's software", problem: "ledger has no leader",
			objs: objs, logs: nil, rule: "dependency-unreachable", culprit: "Deployment/kvstore", affected: []string{"Deployment/ledger"},
			terms: []string{"database space exceeded", "kvstoreserver", "cannot be read"}},
		{name: "the provider's own log is quoted", problem: "ledger has no leader",
			objs: objs, logs: logBook{"kvstore-": "level=warn msg=\"alarm raised\" alarm=NOSPACE error=\"mvcc: database space exceeded\"\n", "ledger-": ""},
			rule: "dependency-unreachable", culprit: "Deployment/kvstore", terms: []string{"database space exceeded", "NOSPACE"}},
	})
}

// Logs unreachable and a probe answering 503: a setting whose name holds a server's word but
// whose last word says it holds something else (a state, a master's name) is no address, so
// its value is not blamed as a missing Service.
func TestNoLogsSettingThatIsNoAddress(t *testing.T) {
	unready := func(p *corev1.Pod) {
		fx.SetNotReady(p)
		p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
	}
	env := func(kv ...string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			for i := 0; i+1 < len(kv); i += 2 {
				s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
			}
		}
	}
	probeEvent := func(o []runtime.Object, prefix string) []runtime.Object {
		for _, x := range o {
			if p, ok := x.(*corev1.Pod); ok && strings.HasPrefix(p.Name, prefix) {
				o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, time.Minute))
			}
		}
		return o
	}
	runDepCases(t, []depCase{
		{name: "etcd's initial cluster state is not a host", problem: "the gateway's etcd is never ready",
			objs: func() []runtime.Object {
				o := probeEvent(app("etcd", 1, env("ETCD_INITIAL_CLUSTER_STATE", "existing", "ETCD_NAME", "etcd-0"), unready), "etcd-")
				return append(o, svcAt("etcd", "10.96.0.80", map[string]string{"app": "etcd"}, 2379), fx.Node("node-1"))
			},
			logs: nil, rule: "readiness-probe-failing", culprit: "Deployment/etcd"},
		{name: "a sentinel's master name is not a host", problem: "session-api is not ready",
			objs: func() []runtime.Object {
				o := probeEvent(app("session-api", 1, env("REDIS_SENTINEL_MASTER", "sessions", "REDIS_SENTINEL_HOSTS", "sessions-redis:26379"), unready), "session-api-")
				o = append(o, app("sessions-redis", 1, nil, nil)...)
				return append(withEndpoints(o, svcAt("sessions-redis", "10.96.0.82", map[string]string{"app": "sessions-redis"}, 26379), "sessions-redis-"), fx.Node("node-1"))
			},
			logs: nil, rule: "readiness-probe-failing", culprit: "Deployment/session-api"},
	})
}

// An ExternalName Service whose externalName is an IP address resolves to nothing (cluster
// DNS answers with a CNAME to a name of digits): found from the client's error, and from its
// configuration alone when the logs cannot be read.
func TestExternalNameHoldingAnAddress(t *testing.T) {
	objs := func(target string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("fulfilment-sync", 1, withEnv("Wms__BaseUrl", "https://wms-legacy:8443/api/v2"), crashing)
			s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "wms-legacy"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target,
				Ports: []corev1.ServicePort{{Name: "https", Port: 8443}}}}
			return append(o, s, fx.Node("node-1"))
		}
	}
	for _, logs := range []logBook{nil, {"fulfilment-sync-": "fail: Wms.Client[0]\n      System.Net.Http.HttpRequestException: Name or service not known (wms-legacy:8443)\n"}} {
		runDepCases(t, []depCase{
			{name: "externalName 10.40.12.7", problem: "fulfilment-sync keeps crashing", objs: objs("10.40.12.7"), logs: logs,
				rule: "dependency-host-unknown", culprit: "Service/wms-legacy", terms: []string{"ExternalName", "10.40.12.7", "IP address"}},
		})
	}
	rc := drive(t, engine(objs("wms.corp.example.com")()...), sessionFor("fulfilment-sync keeps crashing")).RootCause
	if strings.Contains(rc.Summary, "IP address") {
		t.Errorf("a DNS name in externalName was called an address: %s", rc.Summary)
	}
}
