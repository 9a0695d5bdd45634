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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// The provider's own log. A consumer's error is attributed to the Service it calls; the
// provider's pods are Running and Ready, yet their log says why they fail their clients
// (a data file they cannot write, a full volume). That line is read and followed with the
// provider's own spec, whatever the software and however the consumer reports it.
func TestProviderLogExplainsTheConsumer(t *testing.T) {
	// store is a StatefulSet whose data volume is a claim mounted at dataDir, run as uid,
	// behind a Service of the same name on port.
	store := func(name, image, dataDir string, uid int64, fsGroup bool, ip string, port int32) []runtime.Object {
		s := statefulSet(name, 1, 1, func(s *appsv1.StatefulSet) {
			spec := &s.Spec.Template.Spec
			spec.Containers[0].Image = image
			spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: dataDir}}
			spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + name + "-0"}}}}
			spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: fx.Ptr(uid)}
			if fsGroup {
				spec.SecurityContext.FSGroup = fx.Ptr(uid)
			}
		})
		p := stsPod(s, 0)
		claim := fx.PVC(ns, "data-"+name+"-0", fx.Ptr("standard"), corev1.ClaimBound)
		claim.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
		svc := svcAt(name, ip, map[string]string{"app": name}, port)
		return []runtime.Object{s, p, claim, svc, fx.EndpointSlice(svc, p)}
	}
	cases := []depCase{
		{name: "a Node API's uploads get a 500 from a blob server that cannot write its objects: uid without fsGroup", problem: "uploads fail",
			objs: func() []runtime.Object {
				o := app("alerts-api", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "BLOB_HOST", Value: "alerts-blobs"}, {Name: "BLOB_PORT", Value: "7070"}}
				}, nil)
				o = append(o, store("alerts-blobs", "registry.example/blobd:2.4", "/var/lib/blobd", 1001, false, "10.96.0.40", 7070)...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{
				"alerts-api-": strings.Repeat("2026-01-01T10:00:00.000Z ERROR POST /v1/attachments failed: blobd replied 500: internal error while storing the object\n", 3),
				"alerts-blobs-": "time=2026-01-01T10:00:00Z level=info msg=\"blobd listening\" addr=:7070\n" +
					strings.Repeat("time=2026-01-01T10:00:05Z level=error msg=\"store failed\" err=\"create /var/lib/blobd/objects/tmp-8812: permission denied\"\n", 3),
			},
			rule: "mount-not-writable", culprit: "StatefulSet/alerts-blobs", affected: []string{"Deployment/alerts-api"},
			terms: []string{"permission denied", "fsGroup", "1001"}},
		{name: "a Python job's writes fail at InfluxDB; InfluxDB's WAL claim is full", problem: "dashboards show no new data",
			objs: func() []runtime.Object {
				o := app("report-builder", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "INFLUX_URL", Value: "http://metrics-store:8086"}}
				}, nil)
				o = append(o, store("metrics-store", "influxdb:2.7-alpine", "/var/lib/influxdb2", 1000, true, "10.96.0.41", 8086)...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{
				"report-builder-": strings.Repeat("2026-01-01 10:00:00,000 ERROR flush failed: influxdb write to http://metrics-store:8086/api/v2/write returned 500: internal error\n", 3),
				"metrics-store-": strings.Repeat(`ts=2026-01-01T10:00:00.000000Z lvl=info msg="Write request" service=http`+"\n"+
					`ts=2026-01-01T10:00:00.100000Z lvl=error msg="Failed to write" service=storage-engine err="write /var/lib/influxdb2/engine/wal/0a1b/autogen/12/_00041.wal: no space left on device"`+"\n", 3),
			},
			rule: "volume-full", culprit: "PersistentVolumeClaim/data-metrics-store-0", affected: []string{"StatefulSet/metrics-store", "Deployment/report-builder"},
			terms: []string{"no space left on device", "data-metrics-store-0"}},
		{name: "a Go client times out on a search cluster that cannot write its data: a readOnly mount, Java's AccessDeniedException", problem: "search is slow",
			objs: func() []runtime.Object {
				o := app("catalog-web", 1, nil, crashing)
				st := store("search", "opensearchproject/opensearch:2.13.0", "/usr/share/opensearch/data", 1000, true, "10.96.0.42", 9200)
				st[0].(*appsv1.StatefulSet).Spec.Template.Spec.Containers[0].VolumeMounts[0].ReadOnly = true
				st[1].(*corev1.Pod).Spec.Containers[0].VolumeMounts[0].ReadOnly = true
				return append(append(o, st...), fx.Node("node-1"))
			},
			logs: logBook{
				"catalog-web-": "level=error msg=\"index query failed\" err=\"Get \\\"http://search:9200/products/_search\\\": context deadline exceeded\"\n",
				"search-": strings.Repeat("[2026-01-01T10:00:00,000][WARN ][o.o.c.c.ClusterFormationFailureHelper] [search-0] cluster-manager not discovered yet\n"+
					"[2026-01-01T10:00:01,000][ERROR][o.o.g.GatewayMetaState ] [search-0] failed to write node state\njava.nio.file.AccessDeniedException: /usr/share/opensearch/data/nodes/0/_state/write.lock\n\tat sun.nio.fs.UnixException.translateToIOException(UnixException.java:90)\n", 3),
			},
			rule: "mount-not-writable", culprit: "StatefulSet/search", affected: []string{"Deployment/catalog-web"},
			terms: []string{"AccessDeniedException", "readOnly"}},
		{name: "a provider whose logged error its own objects do not explain is the application's own error", problem: "payments time out",
			objs: func() []runtime.Object {
				o := app("checkout", 1, nil, crashing)
				o = append(o, store("ledger", "registry.example/ledger:3.1", "/srv/ledger", 1000, true, "10.96.0.43", 8080)...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{
				"checkout-": "FATAL charge failed: Post \"http://ledger:8080/v1/entries\": dial tcp 10.96.0.43:8080: i/o timeout\n",
				"ledger-":   strings.Repeat("2026-01-01T10:00:00Z ERROR batch commit failed: deadlock detected while waiting for lock on entries\n", 3),
			},
			rule: "app-error-logged", culprit: "StatefulSet/ledger", affected: []string{"Service/ledger", "Deployment/checkout"},
			terms: []string{"deadlock detected"}},
		{name: "a server refusing clients at its own connection limit names the limit in its mounted config", problem: "the catalog is down",
			objs: func() []runtime.Object {
				o := app("catalog-api", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "MONGO_URL", Value: "mongodb://catalog-db:27017/catalog"}}
				}, crashing)
				st := store("catalog-db", "mongo:7.0.14", "/data/db", 999, true, "10.96.0.44", 27017)
				storeConfig(st, "catalog-db-conf", "/etc/mongo", "--config", "/etc/mongo/mongod.conf")
				conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "catalog-db-conf", Namespace: ns}, Data: map[string]string{
					"mongod.conf": "storage:\n  dbPath: /data/db\nnet:\n  bindIpAll: true\n  port: 27017\n  maxIncomingConnections: 40\n"}}
				return append(append(o, st...), conf, fx.ConfigMap(ns, "catalog-api-flags", "FEATURES"), fx.Node("node-1"))
			},
			logs: logBook{
				"catalog-api-": "ERROR catalog.db: MongoDB not reachable after 30s\n",
				"catalog-db-":  strings.Repeat(`{"t":{"$date":"2026-01-01T10:00:00.000+00:00"},"s":"I","c":"NETWORK","id":22942,"ctx":"listener","msg":"Connection refused because there are too many open connections","attr":{"remote":"10.244.1.52:51514","connectionCount":41}}`+"\n", 3),
			},
			rule: "dependency-connection-limit", culprit: "ConfigMap/catalog-db-conf", affected: []string{"StatefulSet/catalog-db"},
			terms: []string{"maxIncomingConnections = 40", "too many open connections"}},
		{name: "a Job whose connection is reset, and the database logs why: its own max_allowed_packet", problem: "the product import failed",
			objs: func() []runtime.Object {
				o := app("importer", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "SPRING_DATASOURCE_URL", Value: "jdbc:mysql://shop-mysql:3306/shop?rewriteBatchedStatements=true"}}
				}, crashing)
				st := store("shop-mysql", "mysql:8.0.39", "/var/lib/mysql", 999, true, "10.96.0.45", 3306)
				storeConfig(st, "shop-mysql-conf", "/etc/mysql/conf.d")
				conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-mysql-conf", Namespace: ns}, Data: map[string]string{
					"custom.cnf": "[mysqld]\nmax_connections = 300\nmax_allowed_packet = 1M\ninnodb_buffer_pool_size = 512M\n"}}
				return append(append(o, st...), conf, fx.Node("node-1"))
			},
			logs: logBook{
				"importer-":   "INFO batch 1/38: 500 products\nERROR batch 1/38 failed, rolling back\norg.springframework.dao.DataAccessResourceFailureException: Communications link failure\nCaused by: java.net.SocketException: Connection reset\n\tat java.base/sun.nio.ch.NioSocketImpl.implRead(NioSocketImpl.java:328)\n",
				"shop-mysql-": "2026-11-28T15:41:13.110390Z 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections.\n" + strings.Repeat("2026-11-28T16:00:10.009871Z 48 [Note] [MY-010914] [Server] Aborted connection 48 to db: 'shop' user: 'shop' host: '10.244.2.31' (Got a packet bigger than 'max_allowed_packet' bytes).\n", 3),
			},
			rule: "config-setting-named", culprit: "ConfigMap/shop-mysql-conf", affected: []string{"StatefulSet/shop-mysql"},
			terms: []string{"max_allowed_packet", "1M"}},
	}
	runDepCases(t, cases)
	// A session that targets the consumer reaches the same cause.
	for i, consumer := range []string{"alerts-api", "report-builder", "catalog-web", "checkout", "catalog-api", "importer"} {
		tc := cases[i]
		t.Run("targeted/"+tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = tc.logs.source()
			rc := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns, Target: deploy(consumer)}).RootCause
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != tc.rule || got != tc.culprit {
				t.Fatalf("got %s on %s, want %s on %s\nsummary: %s", rc.Rule, got, tc.rule, tc.culprit, rc.Summary)
			}
			var aff []string
			for _, r := range rc.AffectedObjects {
				aff = append(aff, r.Kind+"/"+r.Name)
			}
			for _, want := range tc.affected {
				if !contains(aff, want) {
					t.Errorf("affectedObjects %v lack %s", aff, want)
				}
			}
			for _, w := range tc.terms {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, rc.Summary)
				}
			}
		})
	}
}

// storeConfig mounts ConfigMap name at path into the StatefulSet and the pod that store
// returned (its first two objects), with args when given.
func storeConfig(st []runtime.Object, name, path string, args ...string) {
	for _, x := range st[:2] {
		var spec *corev1.PodSpec
		switch v := x.(type) {
		case *appsv1.StatefulSet:
			spec = &v.Spec.Template.Spec
		case *corev1.Pod:
			spec = &v.Spec
		}
		mountConfig(name, path)(spec)
		if len(args) > 0 {
			spec.Containers[0].Args = args
		}
	}
}

// A client refused by a Ready server whose log keeps warning why ("Memory usage is above soft
// limit. Refusing data.", at warn level): the warning is the server's answer, and the section
// of its configuration it names is quoted with its settings.
func TestProviderWarningsExplainARefusal(t *testing.T) {
	cfg := "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 0.0.0.0:4317\nprocessors:\n  memory_limiter:\n    check_interval: 1s\n    limit_mib: 64\n    spike_limit_mib: 48\n  batch:\n    timeout: 5s\nservice:\n  pipelines:\n    traces:\n      receivers: [otlp]\n      processors: [memory_limiter, batch]\n"
	warn := "2026-03-11T14:02:11.171Z\twarn\tmemorylimiter@v0.110.0/memorylimiter.go:210\tMemory usage is above soft limit. Refusing data.\t{\"kind\": \"processor\", \"name\": \"memory_limiter\", \"pipeline\": \"traces\", \"cur_mem_mib\": 36}\n"
	client := "2026/03/11 14:02:12 traces export: context deadline exceeded: rpc error: code = Unavailable desc = data refused due to high memory usage\n"
	objs := func() []runtime.Object {
		o := app("booking-api", 1, withEnv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317"), nil)
		o = append(o, app("otel-collector", 1, func(s *corev1.PodSpec) {
			mountCM("otel-collector-config", "/conf")(s)
			s.Containers[0].Ports = []corev1.ContainerPort{{Name: "otlp-grpc", ContainerPort: 4317}}
		}, nil)...)
		svc := svcAt("otel-collector", "10.96.4.17", map[string]string{"app": "otel-collector"}, 4317)
		svc.Spec.Ports[0].TargetPort = intstr.FromString("otlp-grpc")
		return append(withEndpoints(o, svc, "otel-collector-"), cmWith("otel-collector-config", "config.yaml", cfg), fx.Node("node-1"))
	}
	runDepCases(t, []depCase{
		{name: "the collector's memory limiter refuses spans", problem: "no booking-api traces reach Jaeger",
			objs: objs, logs: logBook{"booking-api-": client + client + client, "otel-collector-": "info Everything is ready.\n" + warn + warn + warn},
			rule: "config-setting-named", culprit: "ConfigMap/otel-collector-config", terms: []string{"memory_limiter", "limit_mib: 64", "warn"}},
	})
}
