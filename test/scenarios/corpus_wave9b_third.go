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

package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

const (
	w9bSrcProbes          = "k8s-docs/concepts/configuration/liveness-readiness-startup-probes.md"
	w9bSrcReplicatedMySQL = "k8s-docs/tasks/run-application/run-replicated-stateful-application.md (clone-mysql skips the clone when the data directory exists) and k8s-docs/tasks/run-application/scale-stateful-set.md"
	w9bRedisReadinessExec = `response=$(timeout -s 3 "$1" redis-cli -h localhost -p "$REDIS_PORT" ping)
if [ "$?" -eq "124" ]; then echo "Timed out"; exit 1; fi
if [ "$response" != "PONG" ]; then echo "$response"; exit 1; fi
`
)

func wave9bThirdScenarios() []*Scenario {
	return []*Scenario{
		{
			// requirepass was turned on through the server's args; the readiness script the team
			// copied calls redis-cli without REDISCLI_AUTH, gets NOAUTH and fails: redis never
			// becomes ready, its Service has no ready endpoint, and sessions-api cannot connect.
			Name: "sessions-redis-readiness-noauth", Covers: "sessions-api crash-loops on 'Error 111 connecting to session-redis:6379. Connection refused.'; session-redis runs but is never Ready: its exec readiness probe fails with 'NOAUTH Authentication required.' since requirepass was enabled and the probe's redis-cli does not authenticate",
			Source: w9bSrcProbes, Class: ClassRanking, Hops: 2,
			Problem: "logins fail since we enabled a password on the session redis; sessions-api keeps restarting",
			Target:  target("Deployment", "sessions-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "session-redis"}, Terms: []string{"NOAUTH"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8cLabels("app.kubernetes.io/name", "session-redis", "app.kubernetes.io/component", "cache", "team", "identity")
				api := w8cLabels("app.kubernetes.io/name", "sessions-api", "app.kubernetes.io/component", "api", "team", "identity")
				login := w8cLabels("app.kubernetes.io/name", "login-web", "app.kubernetes.io/component", "web", "team", "identity")
				return steps(
					func() error {
						return e.createSecret(ctx, "session-redis-auth", map[string]string{"password": "c2f9-8aQm-Zr41-kT7e"})
					},
					func() error {
						return e.createConfigMap(ctx, "session-redis-health", map[string]string{"ping_readiness_local.sh": w9bRedisReadinessExec})
					},
					func() error {
						a := sim("readiness-fail", annMessage, "NOAUTH Authentication required.", annLogs, "w9b-session-redis-server")
						st := w8bStatefulSet("session-redis", "redis:7.4.1", "session-redis-headless", 1, redis, a, "redis", 6379)
						t := &st.Spec.Template
						w8cArgs(t, "redis-server", "--appendonly", "yes", "--requirepass", "$(REDIS_PASSWORD)")
						envKeyFromSecret(t, "REDIS_PASSWORD", "session-redis-auth", "password")
						w8bEnv(t, "REDIS_PORT", "6379")
						t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "health", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "session-redis-health"}, DefaultMode: ptr.To[int32](0o755)}}})
						t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "health", MountPath: "/health"})
						t.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5, TimeoutSeconds: 2, FailureThreshold: 5,
							ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "/health/ping_readiness_local.sh 1"}}}}
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("session-redis-headless", redis, "redis", 6379)) },
					func() error { return e.createService(ctx, w8bService("session-redis", redis, "redis", 6379)) },
					func() error {
						d := w8bDeployment("sessions-api", "registry.example/identity/sessions-api:3.11.0", 2, api,
							crash("1", "", "w9b-sessions-api-redis-refused"), "http", 8000)
						w8bEnv(&d.Spec.Template, "REDIS_HOST", "session-redis", "REDIS_PORT", "6379")
						envKeyFromSecret(&d.Spec.Template, "REDIS_PASSWORD", "session-redis-auth", "password")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("sessions-api", api, "http", 80)) },
					func() error {
						d := w8bDeployment("login-web", "registry.example/identity/login-web:8.2.0", 2, login, nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "SESSIONS_URL", "http://sessions-api")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("login-web", 2),
				w9bAnyPod(map[string]string{"app.kubernetes.io/name": "session-redis"}, runningNotReady),
				w9bAnyPod(map[string]string{"app.kubernetes.io/name": "sessions-api"}, crashLooping(2))),
		},
		{
			// mysql was scaled from 3 to 2 three weeks ago and back to 3 yesterday: the claim
			// data-mysql-2 survived the scale-down, so clone-mysql skipped the clone and the replica
			// resumed from a binlog position the primary has long purged. The pod is Ready
			// (mysqld answers), its replication is dead, and mysql-read serves three-week-old rows.
			Name: "mysql-2-stale-claim-after-scale-up", Covers: "reports read through mysql-read sometimes miss three weeks of orders: mysql-2 (Ready) logs 'Got fatal error 1236 from master ... Could not find first log file name in binary log index file': it came back on the claim data-mysql-2 kept since the scale-down, so the tutorial's clone-mysql skipped the clone",
			Source: w9bSrcReplicatedMySQL, Class: ClassOutside, Hops: 2,
			Problem: "about a third of report queries through mysql-read return no orders after Nov 4, since we scaled mysql back to 3 replicas yesterday",
			Target:  target("Service", "mysql-read"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "data-mysql-2"}, Terms: []string{"1236"}},
			Setup: func(ctx context.Context, e *Env) error {
				mysql := w8cLabels("app", "mysql", "app.kubernetes.io/name", "mysql")
				rep := w8cLabels("app", "order-reports", "app.kubernetes.io/name", "order-reports")
				// Three replicas of 500m: a node of their own, so the last one to start
				// is not left Pending behind the rest of a corpus.
				fs := []func() error{func() error { return e.ownNode(ctx, "db") }}
				for i := 0; i < 3; i++ {
					fs = append(fs, func() error {
						return e.createStaticPV(ctx, fmt.Sprintf("mysql-data-%d", i), fmt.Sprintf("data-mysql-%d", i), "50Gi", corev1.ReadWriteOnce)
					})
				}
				fs = append(fs,
					func() error {
						return e.createConfigMap(ctx, "mysql", map[string]string{"primary.cnf": "[mysqld]\nlog-bin\n", "replica.cnf": "[mysqld]\nsuper-read-only\n"})
					},
					func() error { return e.createService(ctx, w8bHeadless("mysql", mysql, "mysql", 3306)) },
					func() error { return e.createService(ctx, w8bService("mysql-read", mysql, "mysql", 3306)) },
					func() error {
						st := w8bStatefulSet("mysql", "mysql:5.7", "mysql", 3, mysql, nil, "mysql", 3306)
						st.Spec.PodManagementPolicy = "OrderedReady"
						t := &st.Spec.Template
						t.Spec.InitContainers = []corev1.Container{
							{Name: "init-mysql", Image: "mysql:5.7", Command: []string{"bash", "-c", "set -ex\n[[ $HOSTNAME =~ -([0-9]+)$ ]] || exit 1\nordinal=${BASH_REMATCH[1]}\necho [mysqld] > /mnt/conf.d/server-id.cnf\necho server-id=$((100 + $ordinal)) >> /mnt/conf.d/server-id.cnf"}},
							{Name: "clone-mysql", Image: "gcr.io/google-samples/xtrabackup:1.0", Command: []string{"bash", "-c", "set -ex\n# Skip the clone if data already exists.\n[[ -d /var/lib/mysql/mysql ]] && exit 0\n[[ `hostname` =~ -([0-9]+)$ ]] || exit 1\nordinal=${BASH_REMATCH[1]}\n[[ $ordinal -eq 0 ]] && exit 0\nncat --recv-only mysql-$(($ordinal-1)).mysql 3307 | xbstream -x -C /var/lib/mysql\nxtrabackup --prepare --target-dir=/var/lib/mysql"}},
						}
						w8bEnv(t, "MYSQL_ALLOW_EMPTY_PASSWORD", "1")
						w8cRequests(t, "500m", "1Gi", "", "")
						e.pin(t)
						t.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 2, TimeoutSeconds: 1,
							ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"mysql", "-h", "127.0.0.1", "-e", "SELECT 1"}}}}
						w8cSidecar(t, "xtrabackup", "gcr.io/google-samples/xtrabackup:1.0", "bash", "-c", "cd /var/lib/mysql; exec ncat --listen --keep-open --send-only --max-conns=1 3307 -c \"xtrabackup --backup --slave-info --stream=xbstream --host=127.0.0.1 --user=root\"")
						w8bClaimTemplate(st, "data", "50Gi", "/var/lib/mysql")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						d := w8bDeployment("order-reports", "registry.example/analytics/order-reports:1.12.0", 2, rep, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "MYSQL_READ_HOST", "mysql-read", "MYSQL_WRITE_HOST", "mysql-0.mysql")
						return e.createDeployment(ctx, d)
					},
				)
				return steps(fs...)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["logs"] == "" {
					if err := w8cStatefulSetReady("mysql", 3)(ctx, e); err != nil {
						return err
					}
					// Only mysql-2 came back on old data: its kubelet serves its own log.
					if err := e.w9bServeLogs(ctx, "mysql-2", "w9b-mysql-2-stale-replica"); err != nil {
						return err
					}
					e.State["logs"] = "yes"
				}
				return readyReplicas("order-reports", 2)(ctx, e)
			},
		},
	}
}

// w9bServeLogs points the kwok Logs object of pod (the simulated kubelet's log source) at
// logs/<name>.log, for a scenario where one pod of a controller logs differently from its
// siblings (its template's annotations are the same for all).
func (e *Env) w9bServeLogs(ctx context.Context, pod, name string) error {
	rc := e.Client.CoreV1().RESTClient()
	p := "/apis/kwok.x-k8s.io/v1alpha1/namespaces/" + e.Namespace + "/logs/" + pod
	raw, err := rc.Get().AbsPath(p).DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("kwok Logs of %s: %w", pod, err)
	}
	var l struct {
		Spec struct {
			Logs []map[string]any `json:"logs"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return err
	}
	if len(l.Spec.Logs) == 0 {
		return fmt.Errorf("kwok Logs of %s has no entries", pod)
	}
	for _, entry := range l.Spec.Logs {
		f, _ := entry["logsFile"].(string)
		file := path.Join(path.Dir(f), name+".log")
		entry["logsFile"], entry["previousLogsFile"] = file, file
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"logs": l.Spec.Logs}})
	if err != nil {
		return err
	}
	_, err = rc.Patch(types.MergePatchType).AbsPath(p).Body(patch).DoRaw(ctx)
	return err
}
