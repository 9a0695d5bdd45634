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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func wave14aMoreScenarios() []*Scenario {
	billing := w8bLabels("billing-api", "billing")
	csi := w8cLabels("app.kubernetes.io/name", "secrets-store-csi-driver", "app.kubernetes.io/instance", "csi-secrets-store")
	edge := w8cLabels("app.kubernetes.io/name", "nginx", "app.kubernetes.io/instance", "storefront-edge")
	export := w8bLabels("ledger-export", "ledger")
	embed := w8bLabels("embeddings-batch", "ml-platform")
	checkout := w8bLabels("checkout-api", "shop")
	media := w8bLabels("media-api", "media")
	return append([]*Scenario{
		{
			// The driver chart's values restrict the node plugin to worker nodes by a role label
			// these nodes never carry; the DaemonSet wants zero pods, so no node has the driver
			// registered and every inline secrets-store volume fails to mount.
			Name: "billing-csi-driver-daemonset-no-nodes", Covers: "billing-api pods stay in ContainerCreating: 'MountVolume.SetUp failed for volume \"secrets-store-inline\" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name secrets-store.csi.k8s.io not found in the list of registered CSI drivers'; DaemonSet csi-secrets-store has nodeSelector node-role.kubernetes.io/worker=true, which no node carries, so it runs no pod (the Vault provider DaemonSet runs everywhere)",
			Source: w14aSrcCSIDriver, Class: ClassProvider, Hops: 2,
			Problem: "billing-api pods are stuck in ContainerCreating after the move to Vault-provided database credentials",
			Target:  target("Deployment", "billing-api"),
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "csi-secrets-store"}, Terms: []string{"nodeSelector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("csi-secrets-store", "registry.k8s.io/csi-secrets-store/driver:v1.4.6", csi, func(t *corev1.PodTemplateSpec) {
							t.Spec.Containers[0].Name = "secrets-store"
							w8cArgs(t, "--endpoint=unix:///csi/csi.sock", "--provider-volume=/var/run/secrets-store-csi-providers", "--enable-secret-rotation=false")
							w8cSidecar(t, "node-driver-registrar", "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.11.1", "--csi-address=/csi/csi.sock", "--kubelet-registration-path=/var/lib/kubelet/plugins/csi-secrets-store/csi.sock")
							t.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux", "node-role.kubernetes.io/worker": "true"}
						}))
					},
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "vault-csi-provider", "app.kubernetes.io/instance", "vault")
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("vault-csi-provider", "hashicorp/vault-csi-provider:1.5.0", lbl, func(t *corev1.PodTemplateSpec) {
							w8cArgs(t, "-endpoint=/provider/vault.sock", "-vault-addr=https://vault.security.svc:8200")
							t.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
						}))
					},
					func() error {
						d := w8bDeployment("billing-api", "registry.example/billing/billing-api:8.2.0", 2, billing,
							sim("mount-fail", annMessage, `MountVolume.SetUp failed for volume "secrets-store-inline" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name secrets-store.csi.k8s.io not found in the list of registered CSI drivers`), "http", 8080)
						w14aCSIVolume(&d.Spec.Template, "secrets-store-inline", "secrets-store.csi.k8s.io", "/mnt/secrets-store", map[string]string{"secretProviderClass": "billing-db-creds"})
						w8bEnv(&d.Spec.Template, "DB_HOST", "billing-db", "DB_CREDENTIALS_FILE", "/mnt/secrets-store/db-password")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(billing, w14aPending), podEvent("FailedMount", "registered CSI drivers"), w14aDaemonSetScheduled("csi-secrets-store", 0), w14aDaemonSetReady("vault-csi-provider")),
		},
		{
			// The new edge chart pulls nginx from Docker Hub with pullPolicy Always and no pull
			// secret; the cluster's NAT address shares the anonymous limit, so pulls get 429.
			// The team's Docker Hub credentials exist and the Redis Deployment uses them.
			Name: "storefront-edge-dockerhub-rate-limit", Covers: "storefront-edge pods are in ImagePullBackOff: 'Failed to pull image \"docker.io/library/nginx:1.27.2\": ... 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit'; the Deployment pulls anonymously (no imagePullSecrets, pullPolicy Always) while Secret dockerhub-creds exists and storefront-redis pulls with it",
			Source: w14aSrcRateLimit, Class: ClassClue, Hops: 0,
			Problem: "storefront-edge pods cannot start, image pull errors since this morning's rollout",
			Target:  target("Deployment", "storefront-edge"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "storefront-edge"}, Terms: []string{"rate limit"}},
			Setup: func(ctx context.Context, e *Env) error {
				img := "docker.io/library/nginx:1.27.2"
				return steps(
					func() error {
						return e.w14aPullSecret(ctx, "dockerhub-creds", "https://index.docker.io/v1/", "shopplatform", "dckr_pat_4mQ1vX9zLr2TgW7bNs0Ke")
					},
					func() error {
						d := w8bDeployment("storefront-redis", "docker.io/library/redis:7.4.1", 1, w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "storefront-redis"), nil, "redis", 6379)
						w14aPullWith(&d.Spec.Template, "dockerhub-creds")
						return e.w11bServe(ctx, d, 6379)
					},
					func() error {
						msg := fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/nginx/manifests/sha256:28402db69fec7c17e179ea87882667f1e054391138f77ffaf0c3eb388efc3ffb: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit", img)
						d := w8bDeployment("storefront-edge", img, 3, edge, sim("image-pull-auth", annMessage, msg), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "nginx"
						d.Spec.Template.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("storefront-api", "registry.example/shop/storefront-api:7.2.0", 2, w8bLabels("storefront-api", "storefront"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "REDIS_URL", "redis://storefront-redis:6379/0")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(edge, waiting("ErrImagePull", "ImagePullBackOff")), readyReplicas("storefront-redis", 1)),
		},
		{
			// Moved from hourly to every minute for fresher exports, with concurrencyPolicy
			// Replace kept from the old manifest: an export takes longer than the interval, so
			// each run is deleted by the next one and none ever completes.
			Name: "ledger-export-cronjob-replace-kills-runs", Covers: "CronJob ledger-export never completes a Job: it runs every minute with concurrencyPolicy Replace and an export takes longer than that, so the controller deletes the active Job ('SuccessfulDelete: Deleted job ledger-export-…') and starts a new one each minute",
			Source: w14aSrcCronJobs, Class: ClassMechanism, Hops: 0, Slow: true,
			Problem: "ledger-export has not delivered an export since the schedule change, but I never see a failed Job",
			Target:  target("CronJob", "ledger-export"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "ledger-export"}, Terms: []string{"Replace"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						c := w11aCronJob("ledger-export", "registry.example/finance/ledger-export:2.0.4", "* * * * *", false, export, "export", "--format=parquet", "--dest=s3://finance-exports/ledger/")
						c.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
						c.Spec.JobTemplate.Spec.Template.Annotations = sim("run")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						d := w8bDeployment("ledger-api", "registry.example/finance/ledger-api:5.4.0", 2, w8bLabels("ledger-api", "ledger"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: objectEvent("CronJob", "ledger-export", "SuccessfulDelete", "Deleted job"),
		},
		{
			// Kueue's pod integration gates every pod of a queue until the controller admits
			// it; the controller was scaled to zero during last week's incident and never back.
			Name: "embeddings-gated-kueue-scaled-to-zero", Covers: "the embed-shard pods stay Pending with PodScheduled False 'SchedulingGated: Scheduling is blocked due to non-empty scheduling gates' (kueue.x-k8s.io/admission) and no scheduler event; the Deployment kueue-controller-manager that removes the gate on admission has replicas 0",
			Source: w14aSrcGates, Class: ClassProvider, Hops: 2,
			Problem: "the embedding batch pods have been Pending for an hour and kubectl describe shows no events",
			Target:  target("Pod", "embed-shard-0"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "kueue-controller-manager"}, Terms: []string{"gate"}},
			Setup: func(ctx context.Context, e *Env) error {
				kueue := w8cLabels("app.kubernetes.io/name", "kueue", "control-plane", "controller-manager")
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "kueue-manager-config", kueue, map[string]string{"controller_manager_config.yaml": "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nhealth:\n  healthProbeBindAddress: :8081\nmetrics:\n  bindAddress: :8080\nwebhook:\n  port: 9443\nmanageJobsWithoutQueueName: false\nintegrations:\n  frameworks:\n  - batch/job\n  - pod\n"})
					},
					func() error {
						d := w8bDeployment("kueue-controller-manager", "registry.k8s.io/kueue/kueue:v0.9.1", 0, kueue, nil, "webhook-server", 9443)
						d.Spec.Template.Spec.Containers[0].Name = "manager"
						w8cArgs(&d.Spec.Template, "--config=/controller_manager_config.yaml", "--zap-log-level=2")
						mountConfigMap(&d.Spec.Template, "kueue-manager-config", "/controller_manager_config.yaml")
						d.Spec.Template.Spec.Containers[0].VolumeMounts[0].SubPath = "controller_manager_config.yaml"
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w10aServiceTo("kueue-webhook-service", kueue, "https", 443, "webhook-server"))
					},
					func() error {
						var pods []*corev1.Pod
						for i := range 3 {
							pods = append(pods, w14aGatedPod(fmt.Sprintf("embed-shard-%d", i), "registry.example/ml/embeddings-batch:0.7.0", "ml-batch", embed, fmt.Sprintf("--shard=%d", i), "--shards=3", "--model=e5-large-v2"))
						}
						return e.w14aCreatePods(ctx, pods...)
					},
					func() error {
						d := w8bDeployment("embeddings-api", "registry.example/ml/embeddings-api:0.7.0", 1, w8bLabels("embeddings-api", "ml-platform"), nil, "http", 8000)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(embed, unschedulable("scheduling gates")), readyReplicas("embeddings-api", 1)),
		},
		{
			// The chart's probe template gained a host field set to the Service's FQDN; the
			// kubelet resolves it with the node's resolver, which knows no cluster names.
			Name: "checkout-api-readiness-probe-host-fqdn", Covers: "checkout-api pods are Running but never Ready: 'Readiness probe failed: Get \"http://checkout-api.<ns>.svc.cluster.local:8080/ready\": dial tcp: lookup ... on 169.254.169.253:53: no such host'; the readinessProbe sets httpGet.host to the Service FQDN, which the kubelet resolves with the node's DNS instead of probing the pod IP",
			Source: w14aSrcProbes, Class: ClassClue, Hops: 0,
			Problem: "checkout-api has no ready pods since yesterday's chart upgrade, yet /ready answers 200 from inside the pod",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "checkout-api"}, Terms: []string{"svc.cluster.local"}},
			Setup: func(ctx context.Context, e *Env) error {
				host := "checkout-api." + e.Namespace + ".svc.cluster.local"
				msg := fmt.Sprintf(`Get "http://%s:8080/ready": dial tcp: lookup %s on 169.254.169.253:53: no such host`, host, host)
				return steps(
					func() error {
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:3.14.0", 2, checkout, w11bReadinessFail("checkout-api", "", msg), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "checkout-api"
						p := w14aHTTPProbe("/ready", "http", 10, 3)
						p.HTTPGet.Host = host
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = p
						w8bEnv(&d.Spec.Template, "CART_URL", "http://cart-api", "PAYMENTS_URL", "http://payments-api")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("cart-api", "registry.example/shop/cart-api:3.14.0", 2, w8bLabels("cart-api", "shop"), nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/ready", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(checkout, runningNotReady), podEvent("Unhealthy", "no such host"), readyReplicas("cart-api", 2)),
		},
		{
			// Version 5 of the image installs the binary under /usr/local/bin; the chart values
			// still override the command with the 4.x path, so the runtime cannot start it and
			// the container never writes a line.
			Name: "media-api-command-path-moved-in-image", Covers: "media-api crash-loops with exit code 128 and an empty log after the 5.0.0 upgrade; the termination message reads 'OCI runtime create failed: ... exec: \"/app/bin/media-api\": stat /app/bin/media-api: no such file or directory'; the Deployment's command still names the 4.x path (media-worker on 4.9.3 runs with it)",
			Source: w14aSrcTermination, Class: ClassClue, Hops: 0,
			Problem: "media-api crash-loops right after the 5.0 upgrade and kubectl logs shows nothing at all",
			Target:  target("Deployment", "media-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "media-api"}, Terms: []string{"/app/bin/media-api"}},
			Setup: func(ctx context.Context, e *Env) error {
				msg := `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app/bin/media-api": stat /app/bin/media-api: no such file or directory: unknown`
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "media-config", media, map[string]string{"config.yaml": "listen: :8080\nstorage:\n  bucket: media-originals\n  region: eu-west-1\ntranscode:\n  queue: media-jobs\n"})
					},
					func() error {
						d := w8bDeployment("media-api", "registry.example/media/media-api:5.0.0", 2, media, crash("128", msg, "w14a-no-output"), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Command = []string{"/app/bin/media-api"}
						w8cArgs(&d.Spec.Template, "serve", "--config=/etc/media/config.yaml")
						mountConfigMap(&d.Spec.Template, "media-config", "/etc/media")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("media-worker", "registry.example/media/media-api:4.9.3", 1, w8bLabels("media-worker", "media"), nil, "metrics", 9102)
						d.Spec.Template.Spec.Containers[0].Command = []string{"/app/bin/media-api"}
						w8cArgs(&d.Spec.Template, "worker", "--config=/etc/media/config.yaml")
						mountConfigMap(&d.Spec.Template, "media-config", "/etc/media")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(media, crashLooping(2)), readyReplicas("media-worker", 1)),
		},
	}, wave14aLateScenarios()...)
}
