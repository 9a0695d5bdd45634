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
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
)

func wave21bMoreScenarios() []*Scenario {
	restart := w8cLabels("app.kubernetes.io/name", "web-nightly-restart", "app.kubernetes.io/part-of", "web")
	webLbl := w8bLabels("web", "web")
	db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "ledger-db")
	ledger := w8bLabels("ledger-api", "ledger")
	fraud := w8bLabels("fraud-check", "risk")
	checkout := w8bLabels("checkout", "shop")
	search := map[string]string{"app.kubernetes.io/name": "search-api"}
	blue := w8cLabels("app.kubernetes.io/name", "search-api", "slot", "blue")
	green := w8cLabels("app.kubernetes.io/name", "search-api", "slot", "green")
	return []*Scenario{
		{
			// The restart CronJob moved from the Helm chart to kustomize and the rewrite dropped
			// serviceAccountName from the job template, so its pods run as the namespace's
			// default account. The Role and RoleBinding for deploy-restarter are intact and
			// correct, which is where everyone looks first; web itself is healthy, just never
			// restarted, so its heap keeps growing.
			Name: "web-not-restarted-overnight", Covers: "web was not restarted overnight: every run of CronJob web-nightly-restart fails with 'deployments.apps \"web\" is forbidden: User \"system:serviceaccount:<ns>:default\" cannot patch resource \"deployments\"'; Role deployment-restarter and RoleBinding deploy-restarter grant patch to ServiceAccount deploy-restarter, but the CronJob's job template sets no serviceAccountName, so its pods run as default (CronJob web-cache-warm runs fine)",
			Source: w21bSrcCronJobSA, Class: ClassClue, Hops: 2, Slow: true,
			Problem: "web was not restarted last night and its memory keeps climbing; the nightly restart is supposed to handle that",
			Target:  target("Deployment", "web"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "web-nightly-restart"}, Terms: []string{"serviceAccountName"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("web", "registry.example/web/web:12.4.0", 2, webLbl, nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "web"
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75", "SESSION_STORE", "redis://web-sessions:6379")
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.createServiceAccount(ctx, "deploy-restarter") },
					func() error {
						return e.createRole(ctx, "deployment-restarter", rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"},
							ResourceNames: []string{"web"}, Verbs: []string{"get", "patch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "deploy-restarter", "Role", "deployment-restarter", "deploy-restarter")
					},
					func() error {
						msg := fmt.Sprintf("error: failed to patch: deployments.apps \"web\" is forbidden: User \"system:serviceaccount:%s:default\" cannot patch resource \"deployments\" in API group \"apps\" in the namespace \"%s\"", e.Namespace, e.Namespace)
						c := w11aCronJob("web-nightly-restart", "docker.io/bitnami/kubectl:1.31.2", "* * * * *", false, restart,
							"/bin/bash", "-c", "set -euo pipefail; kubectl rollout restart deployment/web 2>/dev/termination-log")
						t := &c.Spec.JobTemplate.Spec.Template
						t.Annotations = sim("fail", annExitCode, "1", annMessage, msg, annLogs, "w21b-web-restart")
						t.Spec.RestartPolicy = corev1.RestartPolicyNever
						c.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](1)
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						c := w11aCronJob("web-cache-warm", "docker.io/curlimages/curl:8.10.1", "* * * * *", false, w8bLabels("web-cache-warm", "web"),
							"-fsS", "--retry", "3", "http://web/internal/cache/warm")
						return e.w11aCreateCronJob(ctx, c)
					},
				)
			},
			Wait: all(readyReplicas("web", 2), podsWith(restart, w21bFailed), w11aAnyJobComplete),
		},
		{
			// The release renamed the chart's fullname from ledger-pg to ledger-db. The NFS
			// volume the storage team pre-provisioned is reserved by claimRef for the old claim
			// data-ledger-pg-0, so the new claim data-ledger-db-0 never binds, ledger-db-0 stays
			// Pending, the Service has no endpoints and ledger-api crash-loops on refusals.
			Name: "ledger-api-refused-after-release", Covers: "ledger-api (Spring Boot, Hikari) crash-loops on 'Connection to ledger-db:5432 refused'; ledger-db-0 is Pending with an unbound claim; PVC data-ledger-db-0 (class nfs-static, no provisioner) stays Pending because the only volume of the class, PersistentVolume ledger-db-data, is reserved by claimRef for data-ledger-pg-0, the claim of the StatefulSet's old name (ledger-docs' pull failure is unrelated noise)",
			Source: w21bSrcClaimRef, Class: ClassReference, Hops: 4,
			Problem: "ledger-api crash-loops with connection refused to its database since this morning's release",
			Target:  target("Deployment", "ledger-api"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolume", Name: "ledger-db-data", Cluster: true}, Terms: []string{"data-ledger-pg-0"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("nfs-static")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "nfs-static", "kubernetes.io/no-provisioner", storagev1.VolumeBindingImmediate)
					},
					func() error {
						return e.w21bReservedPV(ctx, "ledger-db-data", class, "data-ledger-pg-0", "20Gi", "/exports/ledger/postgresql")
					},
					func() error {
						st := w8bStatefulSet("ledger-db", "docker.io/bitnami/postgresql:16.4.0", "ledger-db-hl", 1, db, nil, "tcp-postgresql", 5432)
						st.Spec.Template.Spec.Containers[0].Name = "postgresql"
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "ledger", "POSTGRESQL_USERNAME", "ledger", "PGDATA", "/bitnami/postgresql/data")
						w21bClaimTemplate(st, "data", class, "20Gi", "/bitnami/postgresql")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("ledger-db-hl", db, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("ledger-db", db, "tcp-postgresql", 5432))
					},
					func() error {
						msg := "org.postgresql.util.PSQLException: Connection to ledger-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections."
						d := w8bDeployment("ledger-api", "registry.example/ledger/ledger-api:4.8.1", 2, ledger, crash("1", msg, "w21b-ledger-api-db"), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "ledger-api"
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:postgresql://ledger-db:5432/ledger", "SPRING_DATASOURCE_USERNAME", "ledger", "SPRING_PROFILES_ACTIVE", "prod")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("ledger-docs", "registry.private.example/ledger/ledger-docs:2026.1", 1, w8bLabels("ledger-docs", "ledger"), nil, "http", 8080))
					},
				)
			},
			Wait: all(pvcPending("data-ledger-db-0"), podsWith(ledger, crashLooping(2)), podsWith(w8bLabels("ledger-docs", "ledger"), waiting("ErrImagePull", "ImagePullBackOff"))),
		},
		{
			// fraud-check only admits pods labelled fraud-client="true" (the docs' access="true"
			// pattern). checkout 5.1 starts scoring every order and gates readiness on it, but
			// nobody added the label to checkout's pod template: the new pods time out, stay
			// unready, and the rollout hangs while payments-api (labelled) calls fraud-check fine.
			Name: "checkout-5-1-rollout-hangs", Covers: "the checkout 5.1 rollout hangs with its new pod Running but not Ready ('Post \"http://fraud-check:8080/v2/score\": context deadline exceeded'); fraud-check is Ready; NetworkPolicy fraud-check-ingress admits only pods labelled fraud-client=true on 8080, which payments-api carries and checkout's pod template does not",
			Source: w21bSrcAccessPol, Class: ClassProvider, Hops: 2,
			Problem: "the checkout 5.1 rollout is stuck: the new pod never becomes Ready, and fraud-check is healthy and answers other services",
			Target:  target("Deployment", "checkout"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "checkout"}, Also: []Ref{{Kind: "NetworkPolicy", Name: "fraud-check-ingress"}},
				Terms: []string{"fraud-client"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("fraud-check", "registry.example/risk/fraud-check:2.7.0", 2, fraud, nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "fraud-check"
						if err := e.w11bServe(ctx, d, 8080); err != nil {
							return err
						}
						return e.createNetworkPolicy(ctx, w18cIngressPolicy("fraud-check-ingress", fraud, w18cFromPods(map[string]string{"fraud-client": "true"}, 8080)))
					},
					func() error {
						d := w8bDeployment("payments-api", "registry.example/shop/payments-api:3.8.0", 1, w8bLabels("payments-api", "shop", "fraud-client", "true"), nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "payments-api"
						w8bEnv(&d.Spec.Template, "FRAUD_CHECK_URL", "http://fraud-check:8080")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("checkout", "registry.example/shop/checkout:5.0.3", 2, checkout, nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "checkout"
						d.Spec.ProgressDeadlineSeconds = ptr.To[int32](120)
						w8bEnv(&d.Spec.Template, "CART_URL", "http://cart-api:8080", "PAYMENTS_URL", "http://payments-api:8080")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/readyz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(w21bRollOnce("checkout", 2, func(d *appsv1.Deployment) {
				t := &d.Spec.Template
				t.Spec.Containers[0].Image = "registry.example/shop/checkout:5.1.0"
				t.Annotations = w11bReadinessFail("checkout", "w21b-checkout-fraud", "HTTP probe failed with statuscode: 503")
				w8bEnv(t, "FRAUD_CHECK_URL", "http://fraud-check:8080", "FRAUD_SCORING", "enabled")
			}), podsWith(checkout, w21bImage("registry.example/shop/checkout:5.1.0", runningNotReady)), readyReplicas("payments-api", 1)),
		},
		{
			// Blue/green: the search Service selects both slots by name and relies on readiness
			// to keep the warming green pods out. The Service was copied from the headless one
			// and kept publishNotReadyAddresses: true, so the unready green pods are endpoints
			// too and half the searches hit an index that is still loading.
			Name: "www-search-half-fails-since-green", Covers: "about half the searches on www.example.com get 503 'index warming'; web's nginx logs 503s from upstream 10.96.0.226 (Service search-api); search-api-blue is Ready, search-api-green is Running but not Ready while it warms: Service search-api has publishNotReadyAddresses true, so the unready green pods receive traffic",
			Source: w21bSrcNotReadyEP, Class: ClassProvider, Hops: 2,
			Problem: "about half of the searches on www.example.com fail with 503 since the green search deployment was started; blue is healthy and green is not even Ready yet",
			Target:  target("Ingress", "www"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "search-api"}, Terms: []string{"publishNotReadyAddresses"}},
			Setup: func(ctx context.Context, e *Env) error {
				slot := func(name string, lbl, ann map[string]string, image string) error {
					d := w8bDeployment(name, image, 2, lbl, ann, "http", 8080)
					d.Spec.Template.Spec.Containers[0].Name = "search-api"
					d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/readyz", "http", 5)
					return e.createDeployment(ctx, d)
				}
				return steps(
					func() error { return slot("search-api-blue", blue, nil, "registry.example/web/search-api:2.9.4") },
					func() error {
						return slot("search-api-green", green, w11bReadinessFail("search-api", "w21b-search-green-warmup", "HTTP probe failed with statuscode: 503"), "registry.example/web/search-api:3.0.0")
					},
					func() error {
						s := w21bPinned(w10aServiceTo("search-api", search, "http", 80, "http"), "10.96.0.226")
						s.Spec.PublishNotReadyAddresses = true
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("web", "docker.io/library/nginx:1.27.2", 2, w8bLabels("web", "www"), running("w21b-web-search-503"), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "nginx"
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						return e.createIngress(ctx, w14bIngress("www", "www.example.com", "web", 80, nil))
					},
				)
			},
			Wait: all(readyReplicas("search-api-blue", 2), podsWith(green, runningNotReady), readyReplicas("web", 2)),
		},
	}
}
