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

// A database whose WAL filled its volume because archiving failed names the archiver's error
// and the Secret with its object-store credentials, beside the full claim; without archive
// failures in the log the full claim stands alone.
func TestWALArchiveFillsTheVolume(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("orders-db", 1, func(s *corev1.PodSpec) {
			s.Containers[0].Image = "postgres:16.4"
			s.Containers[0].Args = []string{"postgres", "-c", "archive_mode=on", "-c", "archive_command=pgbackrest archive-push %p"}
			s.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "orders-db-backup"}}},
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "orders-db-auth"}}}}
			s.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-orders-db-0"}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}
		}, crashing)
		return append(o, fx.Secret(ns, "orders-db-backup", "PGBACKREST_REPO1_S3_KEY", "PGBACKREST_REPO1_S3_KEY_SECRET"), fx.Secret(ns, "orders-db-auth", "POSTGRES_PASSWORD"),
			fx.PVC(ns, "data-orders-db-0", nil, corev1.ClaimBound, corev1.ReadWriteOnce), fx.Node("node-1"))
	}
	archiving := "2026-11-26 22:31:07.904 UTC [34] LOG:  archive command failed with exit code 82\n" +
		"ERROR: [082]: failed to upload 'archive/orders/16-1/0000000100000001/000000010000000100000042' to S3 bucket: AccessDenied\n"
	full := strings.Repeat("2026-11-27 03:10:21.902 UTC [2240] FATAL:  could not write to file \"pg_wal/xlogtemp.2240\": No space left on device\n", 2)
	runDepCases(t, []depCase{
		{name: "pgbackrest cannot push, pg_wal fills the claim", problem: "orders-db keeps restarting",
			objs: objs, logs: logBook{"orders-db-": archiving + archiving + full},
			rule: "volume-full", culprit: "PersistentVolumeClaim/data-orders-db-0", affected: []string{"Secret/orders-db-backup"},
			terms: []string{"archive command failed", "AccessDenied", "Secret orders-db-backup", "No space left on device"}},
	})
	e := engine(objs()...)
	e.Logs = logBook{"orders-db-": full}.source()
	if rc := drive(t, e, sessionFor("orders-db keeps restarting")).RootCause; strings.Contains(rc.Summary, "archive") || hasRef(rc.AffectedObjects, "Secret", "orders-db-backup") {
		t.Errorf("a full volume without archive failures was blamed on the archiver: %s", rc.Summary)
	}
}
