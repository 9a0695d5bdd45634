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

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"
)

func wave17bExtraScenarios() []*Scenario {
	pricing := w8bLabels("pricing-engine", "shop")
	bff := w8bLabels("shop-bff", "shop")
	reviewsDB := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "reviews-db")
	reviews := w8bLabels("reviews-api", "reviews")
	catalog := w8bLabels("catalog-api", "catalog")
	return []*Scenario{
		{
			// The pull secret was made with `kubectl create secret generic
			// --from-file=.dockerconfigjson=...` and no --type: the data is right, but the kubelet
			// only reads credentials from Secrets of type kubernetes.io/dockerconfigjson (or
			// dockercfg), so it pulls anonymously and the registry answers 401.
			Name: "shop-bff-prices-missing-registry-move", Covers: "shop-bff is not ready ('readiness check failed: pricing', connect ECONNREFUSED pricing-engine); pricing-engine is in ImagePullBackOff with '401 Unauthorized' from registry.private.example: its imagePullSecrets regcred-pricing holds a valid .dockerconfigjson but is of type Opaque, so the kubelet ignores it (inventory-api pulls from the same registry with regcred-inventory of type kubernetes.io/dockerconfigjson)",
			Source: w17bSrcPullSecret, Class: ClassReference, Hops: 2,
			Problem: "shop-bff is unready and products show no prices since the pricing engine moved to our private registry; the robot account works with docker login",
			Target:  target("Deployment", "shop-bff"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "regcred-pricing"}, Terms: []string{"kubernetes.io/dockerconfigjson"}},
			Setup: func(ctx context.Context, e *Env) error {
				img := "registry.private.example/pricing/pricing-engine:4.2.0"
				return steps(
					func() error {
						return e.w17bOpaquePullSecret(ctx, "regcred-pricing", "registry.private.example", "robot$pricing+puller", "Hn4s0QxW7cLr2PzT")
					},
					func() error {
						return e.w14aPullSecret(ctx, "regcred-inventory", "registry.private.example", "robot$inventory+puller", "b9XkT2mQw5RvL0sE")
					},
					func() error {
						d := w8bDeployment("pricing-engine", img, 2, pricing,
							sim("image-pull-auth", annMessage, fmt.Sprintf("failed to pull and unpack image %q: failed to resolve reference %q: pull access denied, repository does not exist or may require authorization: authorization failed: 401 Unauthorized: unauthorized: unauthorized to access repository: pricing/pricing-engine, action: pull", img, img)), "http", 8080)
						w14aPullWith(&d.Spec.Template, "regcred-pricing")
						w8bEnv(&d.Spec.Template, "PRICE_LIST_SOURCE", "s3://acme-pricing/price-lists/", "CURRENCY_DEFAULT", "EUR")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("inventory-api", "registry.private.example/inventory/inventory-api:1.19.3", 1, w8bLabels("inventory-api", "shop"), nil, "http", 8080)
						w14aPullWith(&d.Spec.Template, "regcred-inventory")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w11bApp("shop-bff", "bff", "registry.example/shop/shop-bff:4.6.0", 2, bff,
							w11bReadinessFail("bff", "w17b-shop-bff-pricing", "HTTP probe failed with statuscode: 503"), "http", 8080)
						w8bEnv(&d.Spec.Template, "PRICING_URL", "http://pricing-engine:8080", "INVENTORY_URL", "http://inventory-api:8080")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/ready", "http", 5, 3)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(pricing, waiting("ErrImagePull", "ImagePullBackOff")), podsWith(bff, runningNotReady), readyReplicas("inventory-api", 1)),
		},
		{
			// The namespace quota admits no claim of the premium-rwo class (only standard-rwo
			// storage); the database chart's default claim template asks for premium-rwo, so the
			// StatefulSet controller cannot create the claim, the pod never exists, and the API
			// gets connection refused from a Service without endpoints.
			Name: "reviews-api-db-never-comes-up", Covers: "reviews-api crash-loops on 'connect ECONNREFUSED <reviews-db IP>:5432'; Service reviews-db has no endpoints because StatefulSet reviews-db has no pod: its FailedCreate says creating claim data-reviews-db-0 is forbidden, 'exceeded quota: storage-classes, requested: premium-rwo.storageclass.storage.k8s.io/persistentvolumeclaims=1, ... limited: ...=0': its claim template names StorageClass premium-rwo, which the ResourceQuota allows 0 claims of",
			Source: w17bSrcQuotaClass, Class: ClassRanking, Hops: 3,
			Problem: "reviews-api has been crash-looping since we installed its database chart in the new team namespace",
			Target:  target("Deployment", "reviews-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "reviews-db"}, Also: []Ref{{Kind: "ResourceQuota", Name: "storage-classes"}}, Terms: []string{"premium-rwo"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11aQuota(ctx, "storage-classes", "premium-rwo.storageclass.storage.k8s.io/persistentvolumeclaims", "0",
							"standard-rwo.storageclass.storage.k8s.io/requests.storage", "200Gi", "persistentvolumeclaims", "10")
					},
					func() error {
						st := w8bStatefulSet("reviews-db", "docker.io/bitnami/postgresql:16.4.0", "reviews-db-hl", 1, reviewsDB, nil, "tcp-postgresql", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "reviews", "POSTGRESQL_USERNAME", "reviews")
						w13bClaimTemplate(st, "data", "premium-rwo", "20Gi", "/bitnami/postgresql")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("reviews-db-hl", reviewsDB, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("reviews-db", reviewsDB, "tcp-postgresql", 5432))
					},
					func() error {
						msg := e.w11aRefusedMessage(ctx, "[ExceptionHandler]", "reviews-db", 5432)
						d := w11bApp("reviews-api", "reviews-api", "registry.example/reviews/reviews-api:2.2.0", 2, reviews, crash("1", msg, "w17b-reviews-api-pg"), "http", 3000)
						w8bEnv(&d.Spec.Template, "DB_HOST", "reviews-db", "DB_PORT", "5432", "DB_NAME", "reviews", "DB_USER", "reviews")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("reviews-web", "registry.example/reviews/reviews-web:2.2.0", 1, w8bLabels("reviews-web", "reviews"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "REVIEWS_API_URL", "http://reviews-api")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(reviews, crashLooping(2)), w11aEvent("StatefulSet", "FailedCreate", "exceeded quota"), readyReplicas("reviews-web", 1)),
		},
		{
			// revisionHistoryLimit 0 (set to keep `kubectl get rs` short) makes the controller
			// delete every old ReplicaSet once a rollout completes, so there is nothing left to
			// undo to: `kubectl rollout undo` answers "no rollout history found".
			Name: "catalog-rollback-command-finds-nothing", Covers: "catalog-api 2.9.0 is Ready but throws NullPointerException on product pages, and `kubectl rollout undo` finds no history: the Deployment sets revisionHistoryLimit 0, so the 2.8.3 ReplicaSet was deleted when the rollout completed (catalog-worker next to it keeps the default history of 10)",
			Source: w17bSrcHistory, Class: ClassOutside, Hops: 0,
			Problem: "catalog-api 2.9.0 throws errors on product pages and `kubectl rollout undo deployment/catalog-api` says no rollout history found; why is there nothing to roll back to?",
			Target:  target("Deployment", "catalog-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "catalog-api"}, Terms: []string{"revisionHistoryLimit"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("catalog-api", "registry.example/catalog/catalog-api:2.8.3", 2, catalog, nil, "http", 8080)
						d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("catalog-worker", "registry.example/catalog/catalog-worker:2.8.3", 1, w8bLabels("catalog-worker", "catalog"), nil, "metrics", 9100)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("catalog-worker", 1), w9bRollout("catalog-api", 2, func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.Containers[0].Image = "registry.example/catalog/catalog-api:2.9.0"
				d.Spec.Template.Annotations = running("w17b-catalog-api-500s")
			}, w17bNoOldReplicaSets("catalog-api", 2, catalog))),
		},
	}
}
