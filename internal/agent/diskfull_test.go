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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A full volume whose error names no mounted path: the path is relative to the server's data
// directory (PostgreSQL's "pg_wal/xlogtemp.29", MySQL's "./binlog.000042"), or the error names
// no path at all. The relative path is resolved against the directories the container's env
// and workingDir name; failing that, the only writable persistent volume is the full one.
func TestFullVolumeWithoutAMountedPath(t *testing.T) {
	type vol struct{ name, path string }
	// server is a crash-looping StatefulSet with one claim per vol (data-<vol>-<name>-0), a
	// read-only ConfigMap mount, env and a Service on port.
	server := func(name string, vols []vol, env []corev1.EnvVar, workDir, ip string, port int32) []runtime.Object {
		s := statefulSet(name, 1, 0, func(s *appsv1.StatefulSet) {
			spec := &s.Spec.Template.Spec
			c := &spec.Containers[0]
			c.Env, c.WorkingDir = env, workDir
			for _, v := range vols {
				c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.name, MountPath: v.path})
				spec.Volumes = append(spec.Volumes, corev1.Volume{Name: v.name, VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v.name + "-" + name + "-0"}}})
			}
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "conf", MountPath: "/etc/" + name, ReadOnly: true})
			spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name + "-conf"}}}})
		})
		p := stsPod(s, 0)
		crashing(p)
		out := []runtime.Object{s, p, fx.ConfigMap(ns, name+"-conf", "server.conf"), svcAt(name, ip, map[string]string{"app": name}, port)}
		for _, v := range vols {
			claim := fx.PVC(ns, v.name+"-"+name+"-0", fx.Ptr("standard"), corev1.ClaimBound)
			claim.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
			out = append(out, claim)
		}
		return out
	}
	pgLog := "2026-01-01 10:00:00.000 UTC [1] LOG:  starting PostgreSQL 16.4\n" +
		"2026-01-01 10:00:00.100 UTC [29] LOG:  redo starts at 0/3A2F1B8\n" +
		"2026-01-01 10:00:01.000 UTC [29] PANIC:  could not write to file \"pg_wal/xlogtemp.29\": No space left on device\n" +
		"2026-01-01 10:00:01.010 UTC [1] LOG:  database system is shut down\n"
	cases := []depCase{
		{name: "PostgreSQL's WAL path is relative to PGDATA, which lies on the data claim, not the archive claim", problem: "orders API is down",
			objs: func() []runtime.Object {
				o := app("orders-api", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgres://orders@orders-db:5432/orders"}}
				}, crashing)
				o = append(o, server("orders-db", []vol{{"archive", "/archive"}, {"pgdata", "/var/lib/postgresql/data"}},
					[]corev1.EnvVar{{Name: "POSTGRES_DB", Value: "orders"}, {Name: "PGDATA", Value: "/var/lib/postgresql/data/pgdata"}}, "", "10.96.0.51", 5432)...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{
				"orders-api-": "FATAL: could not connect: dial tcp 10.96.0.51:5432: connect: connection refused\n",
				"orders-db-":  pgLog,
			},
			rule: "volume-full", culprit: "PersistentVolumeClaim/pgdata-orders-db-0",
			terms: []string{"No space left on device", "pgdata-orders-db-0", "PGDATA"}},
		{name: "MySQL's binlog path is relative to its working directory", problem: "shop checkout fails",
			objs: func() []runtime.Object {
				o := app("storefront", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "DB_HOST", Value: "shop-mysql"}}
				}, crashing)
				o = append(o, server("shop-mysql", []vol{{"binlogs", "/srv/mysql"}, {"backup", "/backup"}}, nil, "/srv/mysql", "10.96.0.52", 3306)...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{
				"storefront-": "Error: connect ECONNREFUSED 10.96.0.52:3306 (host shop-mysql)\n",
				"shop-mysql-": "2026-01-01T10:00:00.000000Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld starting as process 1\n2026-01-01T10:00:01.000000Z 0 [ERROR] [MY-000035] [Server] Error writing file './binlog.000042' (OS errno 28 - No space left on device)\n2026-01-01T10:00:01.100000Z 0 [ERROR] [MY-010119] [Server] Aborting\n",
			},
			rule: "volume-full", culprit: "PersistentVolumeClaim/binlogs-shop-mysql-0",
			terms: []string{"No space left on device", "binlogs-shop-mysql-0", "workingDir"}},
		{name: "a broker's error names no path; its only writable claim is the full one", problem: "events are not delivered",
			objs: func() []runtime.Object {
				o := app("notifier", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "BROKER_ADDR", Value: "events-broker:4222"}}
				}, crashing)
				o = append(o, server("events-broker", []vol{{"segments", "/data"}}, nil, "", "10.96.0.53", 4222)...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{
				"notifier-":      "level=fatal msg=\"publish failed\" err=\"dial tcp 10.96.0.53:4222: connect: connection refused\"\n",
				"events-broker-": "level=info msg=\"starting broker\"\nlevel=fatal msg=\"append to segment failed\" err=\"sync: no space left on device\"\n",
			},
			rule: "volume-full", culprit: "PersistentVolumeClaim/segments-events-broker-0",
			terms: []string{"no space left on device", "only writable persistent volume"}},
	}
	runDepCases(t, cases)

	// Two claims and nothing that says which one filled up: no claim is blamed.
	t.Run("two claims, no path", func(t *testing.T) {
		objs := app("notifier", 1, func(s *corev1.PodSpec) {
			s.Containers[0].Env = []corev1.EnvVar{{Name: "BROKER_ADDR", Value: "events-broker:4222"}}
		}, crashing)
		objs = append(objs, server("events-broker", []vol{{"segments", "/data"}, {"index", "/index"}}, nil, "", "10.96.0.53", 4222)...)
		objs = append(objs, fx.Node("node-1"))
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{
			"notifier-":      "level=fatal msg=\"publish failed\" err=\"dial tcp 10.96.0.53:4222: connect: connection refused\"\n",
			"events-broker-": "level=info msg=\"starting broker\"\nlevel=fatal msg=\"append to segment failed\" err=\"sync: no space left on device\"\n",
		}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "events are not delivered", Namespace: ns}).RootCause
		if rc.Culprit.Kind == "PersistentVolumeClaim" {
			t.Fatalf("blamed %s/%s with nothing to choose between two claims: %s", rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
		}
		if !strings.Contains(rc.Summary, "no space left on device") {
			t.Errorf("summary does not quote the error: %s", rc.Summary)
		}
	})
}
