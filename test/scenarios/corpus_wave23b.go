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
	"k8s.io/utils/ptr"
)

// Wave 23b: "what the controllers say". Every failure here is written by a controller or by
// admission — ReplicaFailure/FailedCreate on a ReplicaSet or StatefulSet, a Deployment past its
// progress deadline, an HPA's ScalingActive condition, a suspended Job, the scheduler's
// FailedScheduling — while the application logs say little or nothing (every scenario also
// runs with container logs unreachable). The cause is one field of an object a user edits.
// Written blind from the Kubernetes docs and public issues; every Want was fixed from the
// source before anything ran.

func wave23bScenarios() []*Scenario {
	return append(wave23bAdmissionScenarios(), wave23bControllerScenarios()...)
}

func wave23bAdmissionScenarios() []*Scenario {
	front := w8bLabels("search-frontend", "search", "app.kubernetes.io/component", "web")
	suggest := w8bLabels("search-suggest", "search", "app.kubernetes.io/component", "api")
	upload := w8bLabels("upload-api", "documents", "app.kubernetes.io/component", "api")
	converter := w8bLabels("doc-converter", "documents", "app.kubernetes.io/component", "worker")
	thumbs := w8bLabels("thumbnail-render", "documents", "app.kubernetes.io/component", "worker")
	invoiceAPI := w8cLabels("app", "invoice-api", "team", "billing", "tier", "api")
	invoiceWorker := w8cLabels("app", "invoice-worker", "team", "billing", "tier", "worker")
	payments := w8bLabels("payments-api", "payments", "app.kubernetes.io/component", "api")
	fx := w8bLabels("fx-rates", "payments", "app.kubernetes.io/component", "api")
	ledger := w8bLabels("ledger", "payments", "app.kubernetes.io/component", "api")
	return []*Scenario{
		{
			// minDomains copied from a four-zone production cluster into a three-zone one: with
			// fewer eligible domains than minDomains the scheduler takes the global minimum as
			// 0, so with maxSkew 1 each zone holds at most one pod and replicas 4 and 5 stay
			// Pending. search-suggest has the same constraint without minDomains and runs 4.
			Name: "search-frontend-two-replicas-pending", Covers: "search-frontend runs 3 of 5 replicas, the other two Pending with 'didn't match pod topology spread constraints' on a three-zone cluster with room to spare: its zone spread (maxSkew 1, DoNotSchedule) sets minDomains 4, so the global minimum is 0 and each zone takes one pod; search-suggest, same spread without minDomains, runs 4 pods",
			Source: w23bSrcMinDomains, Class: ClassMechanism, Hops: 1,
			Problem: "search-frontend runs 3 of its 5 replicas; two pods have stayed Pending since the chart from the production cluster was applied, although the nodes are nearly idle",
			Target:  target("Deployment", "search-frontend"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "search-frontend"}, Terms: []string{"minDomains"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := func(name, image string, replicas int32, lbl map[string]string, minDomains *int32) error {
					d := w8bDeployment(name, image, replicas, lbl, nil, "http", 8080)
					w10aMain(&d.Spec.Template, name)
					w8bEnv(&d.Spec.Template, "SEARCH_BACKEND", "http://search-api:9200", "CACHE_TTL", "30s")
					w23bZoneSpread(&d.Spec.Template, lbl, minDomains)
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error {
						return web("search-frontend", "registry.example/search/frontend:4.7.0", 5, front, ptr.To[int32](4))
					},
					func() error { return web("search-suggest", "registry.example/search/suggest:2.3.1", 4, suggest, nil) },
				)
			},
			Wait: all(readyReplicas("search-frontend", 3), podsWith(front, unschedulable("topology spread")), readyReplicas("search-suggest", 4)),
		},
		{
			// runtimeClassName must name a RuntimeClass object, not its handler: the values file
			// says runsc (gVisor's handler) where the cluster's class is called gvisor, so the
			// RuntimeClass admission plugin refuses every pod and doc-converter has none;
			// upload-api exits on its start-up check of the converter. thumbnail-render names
			// the class correctly and runs.
			Name: "document-uploads-failing-after-converter", Covers: "upload-api crash-loops on 'dial tcp <doc-converter IP>:8080: connect: connection refused'; Service doc-converter has no endpoints because Deployment doc-converter has no pod: its ReplicaSet's FailedCreate says 'pod rejected: RuntimeClass \"<ns>-runsc\" not found'; the class is <ns>-gvisor (handler runsc), which thumbnail-render names and runs",
			Source: w23bSrcRuntimeClass, Class: ClassReference, Hops: 2,
			Problem: "document uploads fail: upload-api keeps restarting since the new document converter was deployed",
			Target:  target("Deployment", "upload-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "doc-converter"}, Terms: []string{"{ns}-runsc"}},
			Setup: func(ctx context.Context, e *Env) error {
				worker := func(name, image string, lbl map[string]string, class string) error {
					d := w8bDeployment(name, image, 2, lbl, nil, "http", 8080)
					w10aMain(&d.Spec.Template, name)
					d.Spec.Template.Spec.RuntimeClassName = ptr.To(e.ClusterName(class))
					w8bEnv(&d.Spec.Template, "MAX_PAGES", "400", "SOFFICE_TIMEOUT", "90s", "TMPDIR", "/tmp/convert")
					return e.w11bServe(ctx, d, 8080)
				}
				return steps(
					func() error { return e.w23bRuntimeClass(ctx, "gvisor", "runsc") },
					func() error {
						return worker("thumbnail-render", "registry.example/documents/thumbnail-render:1.9.2", thumbs, "gvisor")
					},
					func() error {
						return worker("doc-converter", "registry.example/documents/doc-converter:3.0.0", converter, "runsc")
					},
					func() error {
						msg := fmt.Sprintf("Error: converter health check failed: Get \"http://doc-converter:8080/healthz\": dial tcp %s:8080: connect: connection refused", e.clusterIP(ctx, "doc-converter"))
						d := w8bDeployment("upload-api", "registry.example/documents/upload-api:5.4.0", 2, upload, crash("1", msg, "w23b-upload-api"), "http", 3000)
						w10aMain(&d.Spec.Template, "upload-api")
						w8bEnv(&d.Spec.Template, "CONVERTER_URL", "http://doc-converter:8080", "THUMBNAILER_URL", "http://thumbnail-render:8080", "S3_BUCKET", "acme-documents-prod")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(deploymentCondition("doc-converter", appsv1.DeploymentReplicaFailure, "FailedCreate"),
				podsWith(upload, crashLooping(2)), readyReplicas("thumbnail-render", 2)),
		},
		{
			// The namespace's LimitRange sets a 100m CPU minimum per container (and defaults
			// for containers that set nothing). Release 2.1 adds a statsd-exporter sidecar
			// requesting 10m, so the new ReplicaSet's pods are refused and the rollout passes
			// its progress deadline while the 2.0 pods keep serving; invoice-worker runs the
			// same sidecar at 100m.
			Name: "invoice-api-release-stalled", Covers: "the invoice-api 2.1.0 rollout never progresses (Progressing False ProgressDeadlineExceeded, ReplicaFailure FailedCreate) while both 2.0.3 pods serve: the new ReplicaSet's pods are forbidden, 'minimum cpu usage per Container is 100m, but request is 10m', because the statsd-exporter sidecar added in 2.1.0 requests 10m against LimitRange container-bounds; invoice-worker runs the sidecar at 100m",
			Source: w23bSrcLimitMin, Class: ClassMechanism, Hops: 1,
			Problem: "the invoice-api 2.1.0 release has not rolled out after twenty minutes; the old pods still serve and nothing crashes",
			Target:  target("Deployment", "invoice-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "invoice-api"}, Terms: []string{"100m", "10m"}},
			Setup: func(ctx context.Context, e *Env) error {
				app := func(name, image string, replicas int32, lbl map[string]string, sidecar bool) error {
					d := w8bDeployment(name, image, replicas, lbl, nil, "http", 8080)
					w10aMain(&d.Spec.Template, name)
					d.Spec.ProgressDeadlineSeconds = ptr.To[int32](45)
					w8bEnv(&d.Spec.Template, "STATSD_HOST", "127.0.0.1", "STATSD_PORT", "9125", "DB_HOST", "billing-db")
					e.pin(&d.Spec.Template)
					if sidecar {
						w23bStatsdSidecar(&d.Spec.Template, w23bResources("100m", "64Mi", "200m", "64Mi"))
					}
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error { return e.ownNode(ctx, "billing") },
					func() error {
						return e.w23bLimitRange(ctx, "container-bounds", corev1.LimitRangeItem{
							Min: w23bCPUMem("100m", "32Mi"), Max: w23bCPUMem("2", "2Gi"),
							Default: w23bCPUMem("500m", "256Mi"), DefaultRequest: w23bCPUMem("100m", "128Mi"),
						})
					},
					func() error {
						return app("invoice-worker", "registry.example/billing/invoice-worker:2.1.0", 1, invoiceWorker, true)
					},
					func() error {
						return app("invoice-api", "registry.example/billing/invoice-api:2.0.3", 2, invoiceAPI, false)
					},
				)
			},
			Wait: w23bOnce("released", all(readyReplicas("invoice-api", 2), readyReplicas("invoice-worker", 1)),
				func(ctx context.Context, e *Env) error {
					return e.w23bRollOut(ctx, "invoice-api", func(t *corev1.PodTemplateSpec) {
						t.Spec.Containers[0].Image = "registry.example/billing/invoice-api:2.1.0"
						w23bStatsdSidecar(t, w23bResources("10m", "64Mi", "50m", "64Mi"))
					})
				},
				all(deploymentCondition("invoice-api", appsv1.DeploymentProgressing, "ProgressDeadlineExceeded"),
					deploymentCondition("invoice-api", appsv1.DeploymentReplicaFailure, "FailedCreate"))),
		},
		{
			// The payments namespace enforces Pod Security baseline. fx-rates was onboarded to
			// the mesh with `istioctl kube-inject` output and no Istio CNI plugin, so its pods
			// carry istio-init with NET_ADMIN and NET_RAW, which baseline forbids: no pod is
			// admitted, and payments-api exits when it cannot load rates at start. ledger
			// (not injected) runs in the same namespace.
			Name: "payments-api-restarts-on-fx-lookup", Covers: "payments-api crash-loops on 'loading FX rates: Get \"http://fx-rates:8080/v1/rates?base=EUR\": dial tcp <IP>:8080: connect: connection refused'; Deployment fx-rates has no pod: its ReplicaSet's FailedCreate says 'violates PodSecurity \"baseline:latest\": non-default capabilities (container \"istio-init\" must not include \"NET_ADMIN\", \"NET_RAW\" in securityContext.capabilities.add)', from the kube-inject output committed for the mesh onboarding in a namespace enforcing baseline; ledger runs",
			Source: w23bSrcIstioPSA, Class: ClassProvider, Hops: 2,
			Problem: "card payments fail: payments-api restarts over and over since this morning's change window",
			Target:  target("Deployment", "payments-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "fx-rates"}, Terms: []string{"NET_ADMIN"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w8aLabelNamespace(ctx, map[string]string{"pod-security.kubernetes.io/enforce": "baseline",
							"pod-security.kubernetes.io/enforce-version": "latest", "pod-security.kubernetes.io/warn": "baseline"})
					},
					func() error {
						d := w8bDeployment("ledger", "registry.example/payments/ledger:7.2.0", 2, ledger, nil, "http", 8080)
						w10aMain(&d.Spec.Template, "ledger")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("fx-rates", "registry.example/payments/fx-rates:1.4.0", 2, fx, map[string]string{}, "http", 8080)
						w10aMain(&d.Spec.Template, "fx-rates")
						w8bEnv(&d.Spec.Template, "RATES_PROVIDER", "ecb", "REFRESH_INTERVAL", "10m")
						w23bIstioInjected(&d.Spec.Template)
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						msg := fmt.Sprintf("loading FX rates: Get \"http://fx-rates:8080/v1/rates?base=EUR\": dial tcp %s:8080: connect: connection refused", e.clusterIP(ctx, "fx-rates"))
						d := w8bDeployment("payments-api", "registry.example/payments/payments-api:9.12.1", 2, payments, crash("1", msg, "w23b-payments-api"), "http", 8080)
						w10aMain(&d.Spec.Template, "payments-api")
						w8bEnv(&d.Spec.Template, "FX_RATES_URL", "http://fx-rates:8080", "LEDGER_URL", "http://ledger:8080", "SPRING_PROFILES_ACTIVE", "prod")
						return e.w11bServe(ctx, d, 8080)
					},
				)
			},
			Wait: all(deploymentCondition("fx-rates", appsv1.DeploymentReplicaFailure, "FailedCreate"),
				podsWith(payments, crashLooping(2)), readyReplicas("ledger", 2)),
		},
	}
}
