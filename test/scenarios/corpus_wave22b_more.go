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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
)

func wave22bMoreScenarios() []*Scenario {
	sandbox := w8bLabels("build-sandbox", "ci")
	vmstorage := w8cLabels("app.kubernetes.io/name", "vmstorage", "app.kubernetes.io/instance", "metrics")
	vminsert := w8cLabels("app.kubernetes.io/name", "vminsert", "app.kubernetes.io/instance", "metrics")
	gateway := w8bLabels("search-gateway", "search")
	flagd := w8bLabels("flagd", "feature-flags")
	etcd := w8cLabels("app.kubernetes.io/name", "etcd", "app.kubernetes.io/instance", "flags-etcd")
	return []*Scenario{
		{
			// RuntimeClass admission merges scheduling.nodeSelector into every pod that names the
			// class, so the pods carry a selector their Deployment never set. The class was copied
			// from GKE Sandbox's manifest onto a cluster whose nodes run gVisor without GKE's label.
			Name: "ci-sandbox-runners-never-scheduled", Covers: "build-sandbox pods stay Pending with 'didn't match Pod's node affinity/selector' although the Deployment sets no nodeSelector: runtimeClassName gvisor adds the RuntimeClass's scheduling.nodeSelector sandbox.gke.io/runtime=gvisor, a GKE label no node here carries",
			Source: w22bSrcRuntimeClass, Class: ClassReference, Hops: 2,
			Problem: "CI jobs wait forever for a sandbox runner, the build-sandbox pods are Pending and the Deployment has no node selector at all",
			Target:  target("Deployment", "build-sandbox"),
			Want:    Want{Culprit: Ref{Kind: "RuntimeClass", Name: "gvisor", Cluster: true}, Terms: []string{"sandbox.gke.io/runtime"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w22bRuntimeClass(ctx, "gvisor", "runsc", "sandbox.gke.io/runtime", "gvisor") },
					func() error {
						d := w11bApp("build-sandbox", "runner", "registry.example/ci/sandbox-runner:2.6.0", 2, sandbox, nil, "grpc", 9443)
						d.Spec.Template.Spec.RuntimeClassName = ptr.To(e.ClusterName("gvisor"))
						w8bEnv(&d.Spec.Template, "RUNNER_POOL", "sandbox", "CONTROLLER_URL", "http://runner-controller:8080")
						return e.w11bServe(ctx, d, 9443)
					},
					func() error {
						d := w11bApp("runner-controller", "controller", "registry.example/ci/runner-controller:2.6.0", 1, w8bLabels("runner-controller", "ci"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w11bApp("build-cache", "cache", "registry.example/ci/build-cache:1.9.3", 1, w8bLabels("build-cache", "ci"), nil, "http", 9092)
						return e.w11bServe(ctx, d, 9092)
					},
				)
			},
			Wait: all(podsWith(sandbox, unschedulable("node affinity/selector")), readyReplicas("runner-controller", 1), readyReplicas("build-cache", 1)),
		},
		{
			// The local static provisioner creates one PV per disk with the volumeMode of its
			// class in its ConfigMap. fast-disks was set to Block, vmstorage's claims ask for the
			// default Filesystem, and the binder never pairs different volume modes: the claims
			// stay Pending, vmstorage is never scheduled and vminsert has no storage node.
			Name: "metrics-ingest-not-ready-after-nvme-move", Covers: "vminsert is not ready and logs 'cannot dial storageNode \"vmstorage-0.vmstorage:8400\" ... no such host'; vmstorage pods are Pending with 'didn't find available persistent volumes to bind': the local-volume-provisioner's ConfigMap sets volumeMode Block for class fast-disks, so its PVs are Block and the claims (Filesystem) never bind",
			Source: w22bSrcVolumeMode, Class: ClassRanking, Hops: 3,
			Problem: "Grafana shows no new metrics since vmstorage was moved to the NVMe nodes, vminsert is up but never ready",
			Target:  target("Deployment", "vminsert"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "local-provisioner-config"}, Terms: []string{"volumeMode"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("fast-disks")
				prov := w8cLabels("app.kubernetes.io/name", "local-static-provisioner", "app.kubernetes.io/instance", "local-volume-provisioner")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "fast-disks", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error {
						return e.w10aConfigMap(ctx, "local-provisioner-config", prov, map[string]string{
							"useNodeNameOnly": "true",
							"storageClassMap": fmt.Sprintf("%s:\n  hostDir: /mnt/fast-disks\n  mountDir: /mnt/fast-disks\n  blockCleanerCommand:\n    - \"/scripts/quick_reset.sh\"\n  volumeMode: Block\n  namePattern: \"nvme*\"\n", class)})
					},
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("local-volume-provisioner", "registry.k8s.io/sig-storage/local-volume-provisioner:v2.6.0", prov, func(t *corev1.PodTemplateSpec) {
							t.Annotations = running("w22b-local-volume-provisioner")
							t.Spec.Containers[0].Name = "provisioner"
							mountConfigMap(t, "local-provisioner-config", "/etc/provisioner/config")
						}))
					},
					func() error {
						return e.w22bLocalPV(ctx, "local-pv-5c1e88d2", class, "/mnt/fast-disks/nvme0n1", "kwok-node-0", "500Gi", corev1.PersistentVolumeBlock)
					},
					func() error {
						return e.w22bLocalPV(ctx, "local-pv-a03b9f71", class, "/mnt/fast-disks/nvme1n1", "kwok-node-1", "500Gi", corev1.PersistentVolumeBlock)
					},
					func() error {
						st := w8bStatefulSet("vmstorage", "victoriametrics/vmstorage:v1.106.1-cluster", "vmstorage", 2, vmstorage, nil, "vminsert", 8400)
						w8cArgs(&st.Spec.Template, "-retentionPeriod=90d", "-storageDataPath=/storage")
						w8bClaimTemplate(st, "vmstorage-db", "200Gi", "/storage")
						st.Spec.VolumeClaimTemplates[0].Spec.StorageClassName = ptr.To(class)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bHeadless("vmstorage", vmstorage, "vminsert", 8400))
					},
					func() error {
						d := w11bApp("vminsert", "vminsert", "victoriametrics/vminsert:v1.106.1-cluster", 2, vminsert,
							w11bReadinessFail("vminsert", "w22b-vminsert-storage", "HTTP probe failed with statuscode: 503"), "http", 8480)
						w8cArgs(&d.Spec.Template, "-storageNode=vmstorage-0.vmstorage:8400,vmstorage-1.vmstorage:8400", "-replicationFactor=2")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/health", "http", 5)
						return e.w11bServe(ctx, d, 8480)
					},
					func() error {
						d := w11bApp("vmselect", "vmselect", "victoriametrics/vmselect:v1.106.1-cluster", 1, w8cLabels("app.kubernetes.io/name", "vmselect", "app.kubernetes.io/instance", "metrics"), nil, "http", 8481)
						w8cArgs(&d.Spec.Template, "-storageNode=vmstorage-0.vmstorage:8401,vmstorage-1.vmstorage:8401")
						return e.w11bServe(ctx, d, 8481)
					},
				)
			},
			Wait: all(podsWith(vmstorage, unschedulable("persistent volumes")), podsWith(vminsert, runningNotReady), w14aDaemonSetReady("local-volume-provisioner"), readyReplicas("vmselect", 1)),
		},
		{
			// The gateway mounts one key of its ConfigMap with items and optional: true. The
			// kustomize refactor renamed the generated key after the new file name, so the key
			// the volume asks for no longer exists: optional skips it without a mount error and
			// Envoy starts with no file at its -c path.
			Name: "search-gateway-restarts-after-merge", Covers: "search-gateway (Envoy) crash-loops on \"error initializing configuration '/etc/envoy/envoy.yaml': Invalid path\": its optional ConfigMap volume projects key envoy.yaml of search-gateway-config, whose only key is now search-gateway.yaml, so the file is silently absent; admin-gateway with the same layout and the key present runs",
			Source: w22bSrcOptionalItems, Class: ClassReference, Hops: 2,
			Problem: "search is down: search-gateway restarts over and over since yesterday's merge to the deploy repo, there is no mount error",
			Target:  target("Deployment", "search-gateway"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "search-gateway-config"}, Terms: []string{"envoy.yaml"}},
			Setup: func(ctx context.Context, e *Env) error {
				envoy := func(cluster, host string, port int) string {
					return fmt.Sprintf("admin:\n  address:\n    socket_address: {address: 0.0.0.0, port_value: 9901}\nstatic_resources:\n  listeners:\n  - name: http\n    address:\n      socket_address: {address: 0.0.0.0, port_value: 8080}\n    filter_chains:\n    - filters:\n      - name: envoy.filters.network.http_connection_manager\n        typed_config:\n          \"@type\": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\n          stat_prefix: ingress_http\n          route_config:\n            virtual_hosts:\n            - name: all\n              domains: [\"*\"]\n              routes:\n              - match: {prefix: \"/\"}\n                route: {cluster: %s}\n          http_filters:\n          - name: envoy.filters.http.router\n            typed_config:\n              \"@type\": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\n  clusters:\n  - name: %s\n    type: STRICT_DNS\n    load_assignment:\n      cluster_name: %s\n      endpoints:\n      - lb_endpoints:\n        - endpoint:\n            address:\n              socket_address: {address: %s, port_value: %d}\n", cluster, cluster, cluster, host, port)
				}
				return steps(
					func() error {
						return e.w11bServe(ctx, w11bApp("search-api", "search-api", "registry.example/search/search-api:4.3.0", 2, w8bLabels("search-api", "search"), nil, "http", 8080), 8080)
					},
					func() error {
						return e.w10aConfigMap(ctx, "search-gateway-config", gateway, map[string]string{"search-gateway.yaml": envoy("search_api", "search-api", 8080)})
					},
					func() error {
						return e.w10aConfigMap(ctx, "admin-gateway-config", w8bLabels("admin-gateway", "search"), map[string]string{"envoy.yaml": envoy("admin_api", "search-api", 8080)})
					},
					func() error {
						d := w11bApp("search-gateway", "envoy", "envoyproxy/envoy:v1.31.2", 2, gateway,
							crash("1", "error initializing configuration '/etc/envoy/envoy.yaml': Invalid path: /etc/envoy/envoy.yaml", "w22b-search-gateway-envoy"), "http", 8080)
						w8cArgs(&d.Spec.Template, "-c", "/etc/envoy/envoy.yaml", "--service-cluster", "search-gateway")
						w22bOptionalKeyVolume(&d.Spec.Template, "search-gateway-config", "envoy.yaml", "envoy.yaml", "/etc/envoy")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("admin-gateway", "envoy", "envoyproxy/envoy:v1.31.2", 1, w8bLabels("admin-gateway", "search"), nil, "http", 8080)
						w8cArgs(&d.Spec.Template, "-c", "/etc/envoy/envoy.yaml", "--service-cluster", "admin-gateway")
						w22bOptionalKeyVolume(&d.Spec.Template, "admin-gateway-config", "envoy.yaml", "envoy.yaml", "/etc/envoy")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(gateway, crashLooping(2)), readyReplicas("admin-gateway", 1), readyReplicas("search-api", 2)),
		},
		{
			// A member's DNS name <pod>.<serviceName> exists only while the governing headless
			// Service selects that pod. The release was renamed to flags-etcd, the pods are
			// labelled instance=flags-etcd, and the hand-kept headless Service still selects
			// instance=etcd: no member resolves, etcd never bootstraps, flagd cannot sync.
			Name: "feature-flags-frozen-flagd-restarting", Covers: "flagd crash-loops on 'error initializing sync provider etcd://flags-etcd:2379/flags/: context deadline exceeded'; the flags-etcd members crash with 'failed to resolve http://flags-etcd-0.flags-etcd-headless:2380 ... no such host': the governing headless Service flags-etcd-headless selects app.kubernetes.io/instance=etcd while the pods carry instance=flags-etcd, so it has no endpoints and no per-pod DNS records",
			Source: w22bSrcHeadlessSelect, Class: ClassProvider, Hops: 3,
			Problem: "feature flags are frozen and flagd keeps restarting since the etcd release was renamed",
			Target:  target("Deployment", "flagd"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "flags-etcd-headless"}, Terms: []string{"selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				peers := "flags-etcd-0=http://flags-etcd-0.flags-etcd-headless:2380,flags-etcd-1=http://flags-etcd-1.flags-etcd-headless:2380,flags-etcd-2=http://flags-etcd-2.flags-etcd-headless:2380"
				msg := `{"level":"fatal","msg":"discovery failed","error":"failed to resolve http://flags-etcd-0.flags-etcd-headless:2380 to match --initial-cluster=` + peers + ` (failed to resolve \"http://flags-etcd-0.flags-etcd-headless:2380\" (lookup flags-etcd-0.flags-etcd-headless on 10.96.0.10:53: no such host))"}`
				return steps(
					func() error {
						st := w8bStatefulSet("flags-etcd", "docker.io/bitnami/etcd:3.5.16", "flags-etcd-headless", 3, etcd, crash("1", msg, "w22b-flags-etcd-member"), "client", 2379)
						w10aPort(&st.Spec.Template, "peer", 2380)
						w8bEnv(&st.Spec.Template, "ALLOW_NONE_AUTHENTICATION", "yes", "ETCD_INITIAL_CLUSTER_STATE", "new", "ETCD_INITIAL_CLUSTER_TOKEN", "flags-etcd-cluster",
							"ETCD_INITIAL_CLUSTER", peers, "ETCD_LISTEN_PEER_URLS", "http://0.0.0.0:2380", "ETCD_LISTEN_CLIENT_URLS", "http://0.0.0.0:2379")
						st.Spec.Template.Spec.Containers[0].Env = append(st.Spec.Template.Spec.Containers[0].Env,
							corev1.EnvVar{Name: "MY_POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
							corev1.EnvVar{Name: "ETCD_NAME", Value: "$(MY_POD_NAME)"},
							corev1.EnvVar{Name: "ETCD_INITIAL_ADVERTISE_PEER_URLS", Value: "http://$(MY_POD_NAME).flags-etcd-headless:2380"},
							corev1.EnvVar{Name: "ETCD_ADVERTISE_CLIENT_URLS", Value: "http://$(MY_POD_NAME).flags-etcd-headless:2379"})
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						hl := w8bHeadless("flags-etcd-headless", w8cLabels("app.kubernetes.io/name", "etcd", "app.kubernetes.io/instance", "etcd"), "client", 2379)
						w10aServicePort(hl, "peer", 2380)
						return e.createService(ctx, hl)
					},
					func() error { return e.createService(ctx, w8bService("flags-etcd", etcd, "client", 2379)) },
					func() error {
						d := w11bApp("flagd", "flagd", "ghcr.io/open-feature/flagd:v0.11.4", 2, flagd,
							crash("1", "error initializing sync provider etcd://flags-etcd:2379/flags/: context deadline exceeded", "w22b-flagd-etcd"), "grpc", 8013)
						w8cArgs(&d.Spec.Template, "start", "--uri", "etcd://flags-etcd:2379/flags/")
						return e.w11bServe(ctx, d, 8013)
					},
					func() error {
						d := w11bApp("flags-ui", "ui", "registry.example/platform/flags-ui:1.7.2", 1, w8bLabels("flags-ui", "feature-flags"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "FLAGD_URL", "http://flagd:8013")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(flagd, crashLooping(2)), podsWith(etcd, crashLooping(1)), readyReplicas("flags-ui", 1)),
		},
	}
}
