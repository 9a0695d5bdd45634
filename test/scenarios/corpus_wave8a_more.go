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

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const (
	srcW8aDownwardAPI    = "k8s-docs/concepts/workloads/pods/downward-api.md"
	srcW8aExternalTLS    = "https://github.com/kubernetes/website/pull/16627 (ExternalName does not work with TLS/HTTPS; kubernetes/kubernetes#13748)"
	srcW8aNetpolIPBlock  = "k8s-docs/concepts/services-networking/network-policies.md"
	srcW8aJobFailure     = "k8s-docs/concepts/workloads/controllers/job.md"
	srcW8aMemOvercommit  = "runbooks/kubernetes/KubeMemoryOvercommit.md"
	srcW8aTextfile       = "runbooks/node/NodeTextFileCollectorScrapeError.md"
	srcW8aStaticPVSizing = "k8s-docs/tasks/configure-pod-container/configure-persistent-volume-storage.md"
)

// wave8aMoreScenarios is the second batch of wave 8a.
func wave8aMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// downward-api: resourceFieldRef limits.memory is exposed in bytes unless a divisor
			// is set; the entrypoint passes it to -Xmx as megabytes.
			Name: "catalog-search-heap-from-limit-bytes", Covers: "the catalog-search Service has no endpoints: its JVM exits with 'Could not reserve enough space for 1099511627776KB object heap' because -Xmx$(HEAP_MB)m takes HEAP_MB from the downward API limits.memory without divisor 1Mi, i.e. 1073741824",
			Source: srcW8aDownwardAPI, Class: ClassClue, Hops: 2,
			Problem: "site search returns errors; the catalog-search service has no endpoints", Target: target("Service", "catalog-search"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "catalog-search"}, Terms: []string{"HEAP_MB", "divisor"}},
			Setup: func(ctx context.Context, e *Env) error {
				search := map[string]string{"app.kubernetes.io/name": "catalog-search", "app.kubernetes.io/component": "search"}
				return steps(
					// Two replicas limited to 1 CPU: a node of their own.
					func() error { return e.ownNode(ctx, "search") },
					func() error {
						d := w8aDeployment("catalog-search", "registry.example/catalog/search:6.2.0", 2, 9200, search, crash("1", "", "w8a-catalog-search-heap"))
						c := &d.Spec.Template.Spec.Containers[0]
						c.Command = []string{"/app/entrypoint.sh"}
						c.Args = []string{"java", "-Xms256m", "-Xmx$(HEAP_MB)m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/catalog-search.jar"}
						c.Env = []corev1.EnvVar{{Name: "HEAP_MB", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{
							ContainerName: "app", Resource: "limits.memory"}}}, {Name: "SNAPSHOT_URL", Value: "s3://acme-search-snapshots/catalog"}}
						limits(&d.Spec.Template, "1", "1Gi")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, service("catalog-search", search, intstr.FromString("http")))
					},
					func() error {
						return e.createDeployment(ctx, w8aDeployment("catalog-api", "registry.example/catalog/api:4.8.1", 2, 8080,
							map[string]string{"app.kubernetes.io/name": "catalog-api", "app.kubernetes.io/component": "api"}, nil))
					},
				)
			},
			Wait: podsWith(map[string]string{"app.kubernetes.io/name": "catalog-search"}, crashLooping(1)),
		},
		{
			// kubernetes/website#16627: an ExternalName Service is a DNS alias, so a TLS client
			// verifies the provider's certificate against the alias, which it does not name.
			Name: "payouts-externalname-tls-name", Covers: "a Running payouts worker logs 'x509: certificate is valid for api.payrails.example.net, *.payrails.example.net, not payout-provider': its ConfigMap calls https://payout-provider, an ExternalName Service aliasing the provider's host",
			Source: srcW8aExternalTLS, Class: ClassOutside, Hops: 2,
			Problem: "payouts have not been sent to the provider since the move to the new cluster", Target: target("Deployment", "payouts-worker"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "payout-provider"}, Also: []Ref{{Kind: "ConfigMap", Name: "payouts-config"}},
				Terms: []string{"x509", "api.payrails.example.net"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createService(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "payout-provider", Labels: map[string]string{"owner": "payments-platform"}},
							Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "api.payrails.example.net"}})
					},
					func() error {
						return e.createConfigMap(ctx, "payouts-config", map[string]string{"PAYOUT_API_URL": "https://payout-provider/v2",
							"LEDGER_URL": "http://ledger-api:8080", "BATCH_INTERVAL": "5m"})
					},
					func() error {
						d := w8aDeployment("payouts-worker", "registry.example/payments/payouts-worker:3.4.1", 1, 9090,
							map[string]string{"component": "payouts-worker", "system": "payments"}, running("w8a-payouts-tls-name"))
						envFromConfigMap(&d.Spec.Template, "payouts-config")
						return e.createDeployment(ctx, d)
					},
					func() error {
						lbl := map[string]string{"component": "ledger-api", "system": "payments"}
						if err := e.createDeployment(ctx, w8aDeployment("ledger-api", "registry.example/payments/ledger-api:9.0.3", 2, 8080, lbl, nil)); err != nil {
							return err
						}
						s := service("ledger-api", lbl, intstr.FromString("http"))
						s.Spec.Ports[0].Port = 8080
						return e.createService(ctx, s)
					},
				)
			},
			Wait: podsWith(map[string]string{"component": "payouts-worker"}, runningReady),
		},
		{
			// network-policies: ipBlock is for cluster-external IPs; traffic to a Service IP is
			// rewritten to a pod IP, which a /32 on the Service IP does not cover.
			Name: "ledger-sync-egress-ipblock-service-ip", Covers: "ledger-sync crash-loops on 'dial tcp <warehouse-db IP>:5432: i/o timeout'; its egress NetworkPolicy allows DNS and an ipBlock of warehouse-db's ClusterIP /32, which does not admit the pod IPs behind it",
			Source: srcW8aNetpolIPBlock, Class: ClassProvider, Hops: 2,
			Problem: "ledger-sync fails since the egress lockdown", Target: target("Deployment", "ledger-sync"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "ledger-sync-egress"}, Terms: []string{"ipBlock"}},
			Setup: func(ctx context.Context, e *Env) error {
				sync := map[string]string{"app.kubernetes.io/name": "ledger-sync", "app.kubernetes.io/part-of": "ledger"}
				db := map[string]string{"app.kubernetes.io/name": "warehouse-db", "app.kubernetes.io/part-of": "ledger"}
				return steps(
					func() error {
						d := w8aDeployment("warehouse-db", "postgres:16.4", 1, 5432, db, nil)
						d.Spec.Template.Spec.Containers[0].Ports[0].Name = "postgres"
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("warehouse-db", db, intstr.FromString("postgres"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "postgres", 5432
						return e.createService(ctx, s)
					},
					func() error {
						tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "ledger-sync-egress", Annotations: map[string]string{"security.example.com/ticket": "SEC-4412"}},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: sync},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
								Egress: []networkingv1.NetworkPolicyEgressRule{
									{To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}, PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}}}},
										Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: ptr.To(intstr.FromInt(53))}, {Protocol: &tcp, Port: ptr.To(intstr.FromInt(53))}}},
									{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: e.clusterIP(ctx, "warehouse-db") + "/32"}}},
										Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: ptr.To(intstr.FromInt(5432))}}},
								},
							},
						})
					},
					func() error {
						msg := "sync aborted: failed to connect to `host=warehouse-db user=ledger_sync database=warehouse`: dial error (dial tcp " + e.clusterIP(ctx, "warehouse-db") + ":5432: i/o timeout)"
						d := w8aDeployment("ledger-sync", "registry.example/ledger/ledger-sync:1.19.0", 1, 8080, sync, crash("1", msg, ""))
						return e.createDeployment(ctx, env(d, "WAREHOUSE_DSN", "postgres://ledger_sync@warehouse-db:5432/warehouse?sslmode=disable"))
					},
					func() error {
						d := w8aDeployment("ledger-api", "registry.example/ledger/ledger-api:9.0.3", 1, 8080,
							map[string]string{"app.kubernetes.io/name": "ledger-api", "app.kubernetes.io/part-of": "ledger"}, nil)
						return e.createDeployment(ctx, env(d, "WAREHOUSE_DSN", "postgres://ledger_api@warehouse-db:5432/warehouse"))
					},
				)
			},
			Wait: podsWith(map[string]string{"app.kubernetes.io/name": "ledger-sync"}, crashLooping(1)),
		},
		{
			// job (pod failure policy): FailJob fails the whole Job on a matching exit code
			// without using the backoffLimit; exit code 1 is also what a transient error gives.
			Name: "statement-export-failjob-exit-1", Covers: "the nightly statement-export Job failed after one pod although backoffLimit is 4: its podFailurePolicy has a FailJob rule on exit code 1, and the pod exited 1 on a transient S3 SlowDown",
			Source: srcW8aJobFailure, Class: ClassMechanism, Hops: 1,
			Problem: "last night's statement export failed and was never retried", Target: target("Job", "statement-export"),
			Want: Want{Culprit: Ref{Kind: "Job", Name: "statement-export"}, Terms: []string{"podFailurePolicy"}},
			Setup: func(ctx context.Context, e *Env) error {
				mk := func(name string, edit func(*batchv1.Job)) error {
					j := job(name, 4, nil)
					j.Spec.Template.Labels = map[string]string{"job-name-prefix": name, "team": "statements"}
					j.Spec.Template.Spec.Containers[0].Name = "export"
					j.Spec.Template.Spec.Containers[0].Image = "registry.example/statements/exporter:2.3.1"
					if edit != nil {
						edit(j)
					}
					_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
					return wrap("Job", name, err)
				}
				return steps(
					func() error {
						return mk("statement-render", func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Args = []string{"render", "--period=2026-11"} })
					},
					func() error {
						return mk("statement-export", func(j *batchv1.Job) {
							j.Spec.Template.Annotations = sim("fail", annExitCode, "1", annLogs, "w8a-statement-export-slowdown")
							j.Spec.Template.Spec.Containers[0].Args = []string{"export", "--period=2026-11", "--bucket=acme-statements-prod"}
							j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
								{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
									ContainerName: ptr.To("export"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1}}},
								{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
									{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
							}}
						})
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "statement-export", "PodFailurePolicy")
			},
		},
		{
			// KubeMemoryOvercommit: "check if memory requests are adjusted to the app usage";
			// a cache reserving 13Gi per replica for a 512mb Redis leaves no room on the pool.
			Name: "recommender-pending-cache-overcommit", Covers: "recommender pods are Pending on Insufficient memory on a two-node pool: session-cache requests 13Gi per replica (one per node, 15Gi allocatable) for a Redis capped at maxmemory 512mb",
			Source: srcW8aMemOvercommit, Class: ClassRanking, Hops: 2,
			Problem: "recommender pods are stuck in Pending on the shared pool", Target: target("Deployment", "recommender"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "session-cache"}, Terms: []string{"13Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "shared-a", kwok: true}); return err },
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "shared-b", kwok: true}); return err },
					func() error {
						d := w8aDeployment("session-cache", "redis:7.4.1", 2, 6379, map[string]string{"tier": "cache", "app": "session-cache"}, running("w8a-session-cache-redis"))
						d.Spec.Template.Spec.Containers[0].Args = []string{"redis-server", "--maxmemory", "512mb", "--maxmemory-policy", "allkeys-lru"}
						limits(&d.Spec.Template, "500m", "13Gi")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["recommender"] == "" {
					if err := readyReplicas("session-cache", 2)(ctx, e); err != nil {
						return err
					}
					d := w8aDeployment("recommender", "registry.example/ml/recommender:0.31.0", 2, 8080, map[string]string{"tier": "api", "app": "recommender"}, nil)
					limits(&d.Spec.Template, "1", "3Gi")
					e.pin(&d.Spec.Template)
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					e.State["recommender"] = "yes"
				}
				return podsWith(map[string]string{"app": "recommender"}, unschedulable("Insufficient memory"))(ctx, e)
			},
		},
		{
			// NodeTextFileCollectorScrapeError: "check if provided configuration is valid";
			// the textfile script writes the array state as a word where a float belongs.
			Name: "node-exporter-textfile-raid-state", Covers: "Running node-exporter logs 'failed to parse textfile data from …/raid_status.prom: expected float as value, got \"clean\"'; the raid-status sidecar's script in a ConfigMap prints md array_state verbatim",
			Source: srcW8aTextfile, Class: ClassOutside, Hops: 2,
			Problem: "NodeTextFileCollectorScrapeError is firing on every node", Target: target("DaemonSet", "node-exporter"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "node-exporter-textfile-scripts"}, Terms: []string{"raid_status.prom"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "node-exporter-textfile-scripts", map[string]string{"raid-status.sh": "#!/bin/sh\n" +
							"# Writes md array health for the node-exporter textfile collector every 30s.\nout=/textfile/raid_status.prom\n" +
							"while true; do\n  {\n    echo '# HELP node_md_array_state_info md array state (1 = clean)'\n    echo '# TYPE node_md_array_state_info gauge'\n" +
							"    for a in /host/sys/block/md*/md; do\n      echo \"node_md_array_state_info{device=\\\"$(basename $(dirname $a))\\\"} $(cat $a/array_state)\"\n    done\n" +
							"  } > $out.$$ && mv $out.$$ $out\n  sleep 30\ndone\n"})
					},
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("node-exporter", "quay.io/prometheus/node-exporter:v1.8.2",
							map[string]string{"app.kubernetes.io/name": "node-exporter", "app.kubernetes.io/component": "exporter"}, func(t *corev1.PodTemplateSpec) {
								t.Annotations = running("w8a-node-exporter-textfile")
								e.pin(t)
								t.Spec.Containers[0].Name = "node-exporter"
								t.Spec.Containers[0].Args = []string{"--path.sysfs=/host/sys", "--collector.textfile.directory=/var/lib/node_exporter/textfile_collector"}
								t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9100}}
								t.Spec.Volumes = []corev1.Volume{
									{Name: "textfile", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
									{Name: "scripts", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
										LocalObjectReference: corev1.LocalObjectReference{Name: "node-exporter-textfile-scripts"}, DefaultMode: ptr.To[int32](0o755)}}},
								}
								t.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "textfile", MountPath: "/var/lib/node_exporter/textfile_collector", ReadOnly: true}}
								t.Spec.Containers = append(t.Spec.Containers, corev1.Container{
									Name: "raid-status", Image: "busybox:1.36.1", Command: []string{"/scripts/raid-status.sh"},
									VolumeMounts: []corev1.VolumeMount{{Name: "textfile", MountPath: "/textfile"}, {Name: "scripts", MountPath: "/scripts"}},
								})
							}))
					},
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "storage-a", kwok: true}); return err },
					func() error {
						return e.createDeployment(ctx, w8aDeployment("kube-state-metrics", "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.13.0", 1, 8080,
							map[string]string{"app.kubernetes.io/name": "kube-state-metrics", "app.kubernetes.io/component": "exporter"}, nil))
					},
				)
			},
			Wait: podsWith(map[string]string{"app.kubernetes.io/name": "node-exporter"}, runningReady),
		},
		{
			// configure-persistent-volume-storage: a claim binds to a static volume of its
			// class only when the volume is at least as large; "manual" is no StorageClass.
			Name: "wiki-mysql-claim-larger-than-pv", Covers: "wiki-mysql is Pending on an unbound claim: the chart now asks 20Gi of class manual while the pre-provisioned hostPath volume of that class is 10Gi (the event only says storageclass \"manual\" not found)",
			Source: srcW8aStaticPVSizing, Class: ClassReference, Hops: 2,
			Problem: "the wiki database pod has been Pending since we upgraded the chart", Target: target("Deployment", "wiki-mysql"),
			Want: Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "wiki-mysql-data"}, Also: []Ref{{Kind: "PersistentVolume", Name: "wiki-mysql-pv", Cluster: true}},
				Terms: []string{"10Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := map[string]string{"app": "wiki", "tier": "mysql"}
				return steps(
					func() error {
						pv := &corev1.PersistentVolume{
							ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName("wiki-mysql-pv"), Labels: map[string]string{LabelScenario: e.Namespace, "type": "local"}},
							Spec: corev1.PersistentVolumeSpec{
								Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
								AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
								PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
								StorageClassName:              "manual",
								PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/data/wiki-mysql"}},
								// Reserved for the wiki's claim: PersistentVolumes are cluster-wide,
								// and an Available one of class manual would bind another scenario's
								// claim in a whole-corpus run. Too small, it still binds nothing.
								ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: e.Namespace, Name: "wiki-mysql-data"},
							},
						}
						if _, err := e.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
							return wrap("PersistentVolume", pv.Name, err)
						}
						e.onCleanup(func(ctx context.Context) error {
							return ignoreNotFound(e.Client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}))
						})
						return nil
					},
					func() error { return e.createPVC(ctx, pvc("wiki-mysql-data", "manual", "20Gi", corev1.ReadWriteOnce)) },
					func() error {
						d := w8aDeployment("wiki-mysql", "mysql:8.4.3", 1, 3306, db, nil)
						d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
						claimVolume(&d.Spec.Template, "wiki-mysql-data")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("wiki-mysql", db, intstr.FromString("http"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "mysql", 3306
						return e.createService(ctx, s)
					},
					func() error {
						return e.createDeployment(ctx, env(w8aDeployment("wiki", "registry.example/docs/wiki:1.41.2", 2, 8080, map[string]string{"app": "wiki", "tier": "web"}, nil),
							"WIKI_DB_HOST", "wiki-mysql"))
					},
				)
			},
			Wait: all(pvcPending("wiki-mysql-data"), podsWith(map[string]string{"tier": "mysql"}, unschedulable("unbound"))),
		},
	}
}
