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
)

func wave17bMoreScenarios() []*Scenario {
	out := append([]*Scenario{w17bStorefrontScenario()}, wave17bLateScenarios()...)
	return append(out, wave17bExtraScenarios()...)
}

func wave17bLateScenarios() []*Scenario {
	uploads := w8bLabels("uploads-api", "media")
	checkout := w8bLabels("checkout-api", "shop")
	catalog := w8cLabels("app.kubernetes.io/name", "catalog", "app.kubernetes.io/instance", "catalog-api")
	web := w8bLabels("storefront-web", "shop")
	return []*Scenario{
		{
			// The uploads migration is done and the old claim was deleted, but the rsync helper
			// Deployment that copied it is still running with the claim mounted: the
			// kubernetes.io/pvc-protection finalizer keeps the claim Terminating until no pod
			// uses it. The suspended backup CronJob names the claim too but runs no pod.
			Name: "uploads-old-claim-stuck-deleting", Covers: "PersistentVolumeClaim uploads-v1 stays Terminating after kubectl delete: its finalizer kubernetes.io/pvc-protection holds it because the pod of Deployment uploads-rsync (a leftover migration helper) still mounts it; the suspended CronJob uploads-backup also names the claim but has no pod",
			Source: w17bSrcPVCProtection, Class: ClassOutside, Hops: 2,
			Problem: "I deleted the old uploads-v1 volume claim after the migration and the delete just hangs, the claim shows Terminating",
			Target:  target("PersistentVolumeClaim", "uploads-v1"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "uploads-rsync"}, Terms: []string{"pvc-protection"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w17bBoundClaim(ctx, "uploads-v1", "50Gi") },
					func() error { return e.w17bBoundClaim(ctx, "uploads-v2", "100Gi") },
					func() error {
						d := w8bDeployment("uploads-api", "registry.example/media/uploads-api:3.2.0", 1, uploads, nil, "http", 8080)
						w17bClaimMount(&d.Spec.Template, "uploads", "uploads-v2", "/srv/uploads")
						w8bEnv(&d.Spec.Template, "UPLOAD_ROOT", "/srv/uploads", "MAX_UPLOAD_MB", "200")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("uploads-rsync", "docker.io/instrumentisto/rsync-ssh:alpine3.20", 1, w8bLabels("uploads-rsync", "media"), nil, "", 0)
						d.Spec.Template.Spec.Containers[0].Name = "rsync"
						d.Spec.Template.Spec.Containers[0].Command = []string{"sh", "-c", "rsync -a --info=progress2 /old/ /new/ && echo 'sync done' && sleep infinity"}
						w17bClaimMount(&d.Spec.Template, "old", "uploads-v1", "/old")
						w17bClaimMount(&d.Spec.Template, "new", "uploads-v2", "/new")
						return e.createDeployment(ctx, d)
					},
					func() error {
						c := w11aCronJob("uploads-backup", "docker.io/restic/restic:0.17.1", "0 3 * * *", true, w8bLabels("uploads-backup", "media"), "backup", "/data", "--tag", "uploads")
						w17bClaimMount(&c.Spec.JobTemplate.Spec.Template, "data", "uploads-v1", "/data")
						return e.w11aCreateCronJob(ctx, c)
					},
				)
			},
			Wait:    all(w17bClaimBound("uploads-v1"), w17bClaimBound("uploads-v2"), readyReplicas("uploads-api", 1), readyReplicas("uploads-rsync", 1)),
			Trigger: w17bDeleteClaim("uploads-v1"),
		},
		{
			// The platform team added a namespace-wide budget over part-of=shop; checkout-api
			// already had its own. The eviction API refuses a pod that two budgets select with
			// 500 Internal Server Error, so kubectl drain retries the checkout pods forever.
			Name: "checkout-drain-eviction-internal-error", Covers: "draining the apps node fails on every checkout-api pod with 500 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support': PodDisruptionBudget shop-baseline (part-of=shop, minAvailable 50%) selects the same pods as checkout-api's own budget checkout-api-pdb (maxUnavailable 1); cart-api is covered by shop-baseline only",
			Source: w17bSrcEvictionAPI, Class: ClassOutside, Hops: 1,
			Problem: "draining the apps node hangs on the checkout-api pods: every eviction attempt fails with an internal server error and kubectl keeps retrying",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "PodDisruptionBudget", Name: "shop-baseline"}, Also: []Ref{{Kind: "PodDisruptionBudget", Name: "checkout-api-pdb"}}, Terms: []string{"shop-baseline"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w15bPoolNode(ctx, "apps-1", false, map[string]string{"node-pool": "apps"}) },
					func() error {
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:3.14.2", 3, checkout, nil, "http", 8080)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "apps")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("cart-api", "registry.example/shop/cart-api:2.4.1", 2, w8bLabels("cart-api", "shop"), nil, "http", 8080)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "apps")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						return e.w17bPDB(ctx, "checkout-api-pdb", map[string]string{"app.kubernetes.io/name": "checkout-api"}, "1", "")
					},
					func() error {
						return e.w17bPDB(ctx, "shop-baseline", map[string]string{"app.kubernetes.io/part-of": "shop"}, "", "50%")
					},
				)
			},
			Wait: all(readyReplicas("cart-api", 2), w17bDrainRefused("apps-1", checkout, 3)),
		},
		{
			// gunicorn.conf.py sizes the pool as 2*CPU_LIMIT+1, CPU_LIMIT from the downward API's
			// limits.cpu. catalog-api sets no CPU limit, so the kubelet exposes the node's
			// allocatable (4): nine workers load the product index and exceed the 512Mi memory
			// limit. catalog-admin, same image and config with a 1-CPU limit, runs three.
			Name: "catalog-api-pods-killed-at-boot", Covers: "storefront-web is not ready (catalog upstream 503); catalog-api is OOMKilled (exit 137) right after boot: its log says 'CPU_LIMIT=4 -> workers=9' because CPU_LIMIT comes from the downward API resourceFieldRef limits.cpu and the container sets no CPU limit, so the node's allocatable 4 CPUs is exposed; nine workers do not fit the 512Mi memory limit (catalog-admin with a 1-CPU limit runs 3 workers)",
			Source: w17bSrcDownwardAPI, Class: ClassMechanism, Hops: 2,
			Problem: "product pages are down: storefront-web went unready after we moved the shop to the new nodes",
			Target:  target("Deployment", "storefront-web"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "catalog-api"}, Terms: []string{"limits.cpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				conf := "import os\n\nbind = \"0.0.0.0:8000\"\nworker_class = \"sync\"\nworkers = int(os.environ.get(\"CPU_LIMIT\", \"1\")) * 2 + 1\nmax_requests = 2000\nmax_requests_jitter = 200\ntimeout = 30\naccesslog = \"-\"\n"
				app := func(name string, replicas int32, lbl, ann map[string]string, cpuLimit string) *appsv1.Deployment {
					d := w11bApp(name, "catalog", "registry.example/shop/catalog:4.8.1", replicas, lbl, ann, "http", 8000)
					w10aMain(&d.Spec.Template, "catalog", "gunicorn", "-c", "/etc/gunicorn/gunicorn.conf.py", "catalog.wsgi:application")
					w8cRequests(&d.Spec.Template, "250m", "512Mi", cpuLimit, "512Mi")
					w17bCPUEnv(&d.Spec.Template, "CPU_LIMIT", "catalog")
					w8bEnv(&d.Spec.Template, "DJANGO_SETTINGS_MODULE", "catalog.settings.production", "DATABASE_URL", "postgres://catalog@catalog-db:5432/catalog")
					mountConfigMap(&d.Spec.Template, "catalog-gunicorn", "/etc/gunicorn")
					e.pin(&d.Spec.Template)
					return d
				}
				return steps(
					func() error { return e.ownNode(ctx, "catalog") },
					func() error {
						return e.w10aConfigMap(ctx, "catalog-gunicorn", catalog, map[string]string{"gunicorn.conf.py": conf})
					},
					func() error {
						return e.w11bServe(ctx, app("catalog-api", 2, catalog, w10aOn("catalog", "oomkill", "w17b-catalog-gunicorn-oom"), ""), 8000)
					},
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "catalog", "app.kubernetes.io/instance", "catalog-admin")
						return e.w11bServe(ctx, app("catalog-admin", 1, lbl, running("w17b-catalog-admin-gunicorn"), "1"), 8000)
					},
					func() error {
						d := w11bApp("storefront-web", "web", "registry.example/shop/storefront-web:7.2.1", 2, web,
							w11bReadinessFail("web", "", "HTTP probe failed with statuscode: 503"), "http", 3000)
						w8bEnv(&d.Spec.Template, "CATALOG_URL", "http://catalog-api:8000", "CART_URL", "http://cart-api:8080")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/api/ready", "http", 5, 3)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(catalog, restartedWith("OOMKilled", 137)), podsWith(web, runningNotReady), readyReplicas("catalog-admin", 1)),
		},
	}
}
