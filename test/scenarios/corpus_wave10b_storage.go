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

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Wave 10b, storage and Secret volumes: a local-volume class that binds too early, and a TLS
// key whose Secret volume mode the database refuses.

const (
	w10bSrcStorageClass = "k8s-docs/concepts/storage/storage-classes.md"
	w10bSrcSecretMode   = "k8s-docs/concepts/configuration/secret.md"
	w10bSrcHostAliases  = "https://kubernetes.io/docs/tasks/network/customize-hosts-file-for-pods/ (hostAliases entries are written to the pod's /etc/hosts and win over DNS)"
)

func wave10bStorageScenarios() []*Scenario {
	return []*Scenario{
		{
			// Local volumes need WaitForFirstConsumer; with Immediate the claim is bound at once
			// to the smallest fitting PV, which sits on the node the risk batch already fills,
			// and the pod can go nowhere else.
			Name: "quotes-db-local-pv-immediate-binding", Covers: "quotes-api crash-loops on asyncpg 'Connect call failed (..., 5432)'; quotes-db-0 is Pending with '1 Insufficient cpu, 1 Insufficient memory, 1 node(s) didn't match PersistentVolume's node affinity': its claim was bound on creation (StorageClass local-nvme has volumeBindingMode Immediate) to the local PV of nvme-1, the node risk-batch fills, while nvme-2 is empty",
			Source: w10bSrcStorageClass, Class: ClassRanking, Hops: 4,
			Problem: "quotes-api keeps crashing since quotes-db moved to the new NVMe nodes; the database pod never starts although one of the two nodes is empty",
			Target:  target("Deployment", "quotes-api"),
			Want:    Want{Culprit: Ref{Kind: "StorageClass", Name: "local-nvme", Cluster: true}, Terms: []string{"Immediate", "node affinity"}},
			Setup: func(ctx context.Context, e *Env) error {
				nodes := map[string]string{}
				localPV := func(name, node, size string) error {
					pv := &corev1.PersistentVolume{
						ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
						Spec: corev1.PersistentVolumeSpec{
							Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
							AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
							PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
							StorageClassName:              e.ClusterName("local-nvme"),
							VolumeMode:                    ptr.To(corev1.PersistentVolumeFilesystem),
							PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disks/nvme1n1"}},
							NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
								MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
						},
					}
					if _, err := e.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
						return wrap("PersistentVolume", pv.Name, err)
					}
					e.onCleanup(func(ctx context.Context) error {
						return ignoreNotFound(e.Client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}))
					})
					return nil
				}
				node := func(name, instance string) error {
					n, err := e.w10bNode(ctx, name, map[string]string{"node.kubernetes.io/instance-type": instance, "storage.example.com/local-nvme": "true"})
					nodes[name] = n
					return err
				}
				return steps(
					func() error { return node("nvme-1", "i4i.xlarge") },
					func() error { return node("nvme-2", "i4i.2xlarge") },
					func() error {
						return e.createStorageClass(ctx, "local-nvme", "kubernetes.io/no-provisioner", storagev1.VolumeBindingImmediate)
					},
					func() error { return localPV("nvme-1-disk0", nodes["nvme-1"], "350Gi") },
					func() error { return localPV("nvme-2-disk0", nodes["nvme-2"], "500Gi") },
					func() error {
						lbl := w8cLabels("app", "risk-batch", "team", "risk")
						d := w8bDeployment("risk-batch", "registry.example/risk/var-batch:2026.47", 3, lbl, nil, "", 0)
						w10bCPU(&d.Spec.Template, "1200m", "4Gi")
						e.w8cOnPool(&d.Spec.Template, "kubernetes.io/hostname", nodes["nvme-1"])
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["db"] == "" {
					if err := readyReplicas("risk-batch", 3)(ctx, e); err != nil {
						return err
					}
					db := w8cLabels("app", "quotes-db", "team", "pricing")
					api := w8cLabels("app", "quotes-api", "team", "pricing")
					st := w8bStatefulSet("quotes-db", "postgres:16.4", "quotes-db", 1, db, nil, "postgres", 5432)
					w10bCPU(&st.Spec.Template, "1", "4Gi")
					e.w8cOnPool(&st.Spec.Template, "storage.example.com/local-nvme", "true")
					st.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{*pvc("data", e.ClusterName("local-nvme"), "300Gi", corev1.ReadWriteOnce)}
					st.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}
					d := w8bDeployment("quotes-api", "registry.example/pricing/quotes-api:1.18.0", 2, api, crash("3", "", "w10b-quotes-api-asyncpg-refused"), "http", 8000)
					w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgresql://quotes@quotes-db:5432/quotes")
					if err := steps(
						func() error { return e.createService(ctx, w8bService("quotes-db", db, "postgres", 5432)) },
						func() error { return e.createStatefulSet(ctx, st) },
						func() error { return e.createDeployment(ctx, d) },
					); err != nil {
						return err
					}
					e.State["db"] = "yes"
				}
				return all(podsWith(w8cLabels("app", "quotes-db"), unschedulable("PersistentVolume's node affinity")),
					podsWith(w8cLabels("app", "quotes-api"), crashLooping(2)))(ctx, e)
			},
		},
		{
			// A Secret volume's files are 0644 unless defaultMode says otherwise; postgres
			// refuses a private key readable by group or world (0640 at most when owned by
			// root), so the database exits right after it starts and payments-api finds no one.
			Name: "payments-db-tls-key-secret-mode", Covers: "payments-api crash-loops on pgx 'dial tcp 10.96.23.114:5432: connect: connection refused'; payments-db crash-loops, its log has 'FATAL: private key file \"/etc/postgresql/tls/tls.key\" has group or world access' before 'database system is shut down': the Secret volume payments-db-tls has no defaultMode, so the key is mounted 0644",
			Source: w10bSrcSecretMode, Class: ClassClue, Hops: 3,
			Problem: "payments-api keeps restarting since we turned on TLS for the payments database",
			Target:  target("Deployment", "payments-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "payments-db"}, Terms: []string{"tls.key", "defaultMode"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app.kubernetes.io/name", "payments-db", "app.kubernetes.io/component", "database", "app.kubernetes.io/part-of", "payments")
				api := w8cLabels("app.kubernetes.io/name", "payments-api", "app.kubernetes.io/component", "api", "app.kubernetes.io/part-of", "payments")
				return steps(
					func() error { return e.w10bTLSSecret(ctx, "payments-db-tls", "payments-db") },
					func() error {
						st := w8bStatefulSet("payments-db", "postgres:16.4", "payments-db", 1, db, crash("1", "", "w10b-payments-db-key-world-readable"), "postgres", 5432)
						w8cArgs(&st.Spec.Template, "-c", "ssl=on", "-c", "ssl_cert_file=/etc/postgresql/tls/tls.crt", "-c", "ssl_key_file=/etc/postgresql/tls/tls.key")
						st.Spec.Template.Spec.SecurityContext = &corev1.PodSecurityContext{FSGroup: ptr.To[int64](999)}
						mountSecret(&st.Spec.Template, "payments-db-tls", "/etc/postgresql/tls")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("payments-db", db, "postgres", 5432)) },
					func() error {
						d := w8bDeployment("payments-api", "registry.example/payments/payments-api:6.3.0", 2, api, crash("1", "", "w10b-payments-api-pgx-refused"), "http", 8080)
						w8bEnv(&d.Spec.Template, "PGHOST", "payments-db", "PGUSER", "payments", "PGDATABASE", "payments", "PGSSLMODE", "verify-full", "PGSSLROOTCERT", "/etc/payments/ca/ca.crt")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("payments-api", api, "http", 80)) },
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "payments-webhooks", "app.kubernetes.io/component", "worker", "app.kubernetes.io/part-of", "payments")
						return e.createDeployment(ctx, w8bDeployment("payments-webhooks", "registry.example/payments/webhooks:6.3.0", 1, lbl, nil, "", 0))
					},
				)
			},
			Wait: all(readyReplicas("payments-webhooks", 1), podsWith(w8cLabels("app.kubernetes.io/name", "payments-db"), crashLooping(2)),
				podsWith(w8cLabels("app.kubernetes.io/name", "payments-api"), crashLooping(2))),
		},
		{
			// During the move of the payments gateway from its VM into the cluster the worker got
			// a hostAliases entry for payments-gateway -> the VM's address; the VM is gone, the
			// Service of the same name is healthy, and /etc/hosts still wins over cluster DNS.
			Name: "refunds-worker-stale-hostaliases", Covers: "refunds are stuck: the Running, Ready refunds-worker logs 'connect ETIMEDOUT 10.20.4.17:8443' for http://payments-gateway:8443 on every batch while the payments-gateway Service (another cluster IP) has Ready endpoints; the worker's pod template still has hostAliases 10.20.4.17 payments-gateway from the VM migration",
			Source: w10bSrcHostAliases, Class: ClassClue, Hops: 2,
			Problem: "refunds have been stuck in processing since the payments gateway moved into the cluster; the gateway pods look healthy",
			Target:  target("Service", "payments-gateway"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "refunds-worker"}, Terms: []string{"hostAliases", "10.20.4.17"}},
			Setup: func(ctx context.Context, e *Env) error {
				gw := w8cLabels("app.kubernetes.io/name", "payments-gateway", "app.kubernetes.io/part-of", "payments")
				mq := w8cLabels("app.kubernetes.io/name", "refunds-rabbitmq", "app.kubernetes.io/part-of", "refunds")
				worker := w8cLabels("app.kubernetes.io/name", "refunds-worker", "app.kubernetes.io/part-of", "refunds")
				return steps(
					func() error {
						return e.createDeployment(ctx, w8bDeployment("payments-gateway", "registry.example/payments/gateway:9.0.2", 2, gw, nil, "https", 8443))
					},
					func() error { return e.createService(ctx, w8bService("payments-gateway", gw, "https", 8443)) },
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("refunds-rabbitmq", "rabbitmq:3.13-management", "refunds-rabbitmq", 1, mq, nil, "amqp", 5672))
					},
					func() error { return e.createService(ctx, w8bService("refunds-rabbitmq", mq, "amqp", 5672)) },
					func() error {
						d := w8bDeployment("refunds-worker", "registry.example/refunds/worker:4.11.0", 1, worker, running("w10b-refunds-worker-hostaliases"), "", 0)
						w8bEnv(&d.Spec.Template, "GATEWAY_URL", "http://payments-gateway:8443", "AMQP_URL", "amqp://refunds-rabbitmq:5672", "CONCURRENCY", "4")
						d.Spec.Template.Spec.HostAliases = []corev1.HostAlias{{IP: "10.20.4.17", Hostnames: []string{"payments-gateway", "payments-gateway.corp.example.com"}}}
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("payments-gateway", 2), readyReplicas("refunds-worker", 1)),
		},
	}
}
