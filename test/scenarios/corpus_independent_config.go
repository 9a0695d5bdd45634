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
	"errors"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Independent scenarios whose cause is in configuration: references, defaults the namespace
// applies, flags, quotas and autoscaling prerequisites. Several crash with an empty
// termination message, so without logs only the exit code and the references remain.

// hpaHasConditions succeeds once the autoscaler has reported on itself.
func hpaHasConditions(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		h, err := e.Client.AutoscalingV2().HorizontalPodAutoscalers(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range h.Status.Conditions {
			if c.Type == autoscalingv2.ScalingActive {
				return nil
			}
		}
		return errors.New("the autoscaler has not reported yet")
	}
}

func independentConfigScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "vacuum-job-script-key-renamed", Covers: "a maintenance Job exits 127 with an empty termination message; the script its command names was renamed in the ConfigMap mounted there",
			Source: srcIndDeterminePod, Class: ClassReference, Hops: 2,
			Problem: "the db-vacuum-manual job fails immediately", Target: target("Job", "db-vacuum-manual"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "maint-scripts"}, Terms: []string{"vacuum.sh"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "maint-scripts", map[string]string{
							"vacuum-all.sh": "#!/bin/sh\nexec vacuumdb --all --analyze\n", "reindex.sh": "#!/bin/sh\nexec reindexdb --all\n"})
					},
					func() error {
						j := job("db-vacuum-manual", 2, sim("fail", annExitCode, "127"))
						c := &j.Spec.Template.Spec.Containers[0]
						c.Image, c.Command = "postgres:16.2", []string{"/bin/sh", "/opt/maint/vacuum.sh"}
						c.VolumeMounts = []corev1.VolumeMount{{Name: "scripts", MountPath: "/opt/maint"}}
						j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "scripts", VolumeSource: corev1.VolumeSource{
							ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "maint-scripts"}}}}}
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
					// Noise: a report CronJob someone suspended weeks ago.
					func() error { return e.createCronJob(ctx, "weekly-report", "0 6 * * 1", true, nil) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "db-vacuum-manual", "BackoffLimitExceeded")
			},
		},
		{
			Name: "billing-db-optional-secret-key", Covers: "billing-api crash-loops with exit 1 and no termination message; its password comes from an optional Secret key the rotation renamed",
			Source: srcIndDeterminePod, Class: ClassReference, Hops: 1,
			Problem: "billing-api is crash looping since the credentials rotation",
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "billing-db"}, Terms: []string{"password"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "billing-db", map[string]string{"username": "billing", "pass": "s3cr3t-rotated"})
					},
					func() error { return e.createBackend(ctx, "billing-db", "postgres:16.2", 5432, 5432) },
					func() error {
						d := labelledDeployment("billing-api", "registry.example/fin/billing-api:7.7.1", map[string]string{"component": "billing-api"},
							crash("1", "", "billing-db-auth"))
						c := &d.Spec.Template.Spec.Containers[0]
						c.Env = []corev1.EnvVar{{Name: "DB_HOST", Value: "billing-db"},
							{Name: "DB_USER", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "billing-db"}, Key: "username"}}},
							{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "billing-db"}, Key: "password", Optional: ptr.To(true)}}}}
						return e.createDeployment(ctx, d)
					},
					// Noise: a worker of the same team that restarts now and then but is up.
					func() error {
						return e.createDeployment(ctx, labelledDeployment("billing-worker", "registry.example/fin/billing-worker:7.7.1", map[string]string{"component": "billing-worker"}, nil))
					},
				)
			},
			Wait: podsWith(map[string]string{"component": "billing-api"}, crashLooping(3)),
		},
		{
			Name: "geo-api-optional-configmap-absent", Covers: "dispatch is not ready because geo-api crash-loops (exit 1, empty message); geo-api loads its settings from an optional ConfigMap that does not exist",
			Source: srcIndDeterminePod, Class: ClassReference, Hops: 2,
			Problem: "dispatch is not ready", Target: target("Deployment", "dispatch"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "geo-api-settings"}, Terms: []string{"geo-api-settings"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("geo-api", "registry.example/maps/geo-api:2.2.0", 1, crash("1", "", "geo-api-settings"))
						d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "geo-api-settings"}, Optional: ptr.To(true)}}}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "geo-api", "geo-api", 8080, intstr.FromString("http")) },
					func() error {
						return e.createConfigMap(ctx, "dispatch-settings", map[string]string{"GEO_URL": "http://geo-api:8080", "REGION": "eu-west"})
					},
					func() error {
						d := deployment("dispatch", "registry.example/logistics/dispatch:0.31.4", 1, readinessFail("dispatch-geo"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						envFromConfigMap(&d.Spec.Template, "dispatch-settings")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(anyPod("geo-api", crashLooping(3)), anyPod("dispatch", runningNotReady), podEvent("Unhealthy", "Readiness probe failed")),
		},
		{
			Name: "search-limitrange-default-oom", Covers: "storefront is not ready because search-api is OOMKilled; search-api sets no limit and the namespace LimitRange gives it a 128Mi default",
			Source: srcLimitRange, Class: ClassMechanism, Hops: 3,
			Problem: "storefront search is broken", Target: target("Deployment", "storefront"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "search-api"}, Terms: []string{"OOMKilled", "128Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				search := map[string]string{"app.kubernetes.io/name": "search-api", "app.kubernetes.io/part-of": "shop"}
				return steps(
					func() error {
						_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, &corev1.LimitRange{
							ObjectMeta: metav1.ObjectMeta{Name: "container-defaults"},
							Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
								Default:        corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
								DefaultRequest: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}},
						}, metav1.CreateOptions{})
						return wrap("LimitRange", "container-defaults", err)
					},
					func() error {
						return e.createDeployment(ctx, labelledDeployment("search-api", "opensearchproject/opensearch:2.12.0", search, sim("oomkill")))
					},
					func() error {
						s := service("search-api", search, intstr.FromString("http"))
						s.Spec.Ports[0].Port = 9200
						return e.createService(ctx, s)
					},
					func() error {
						d := deployment("storefront", "registry.example/shop/storefront:21.4.0", 1, readinessFail("readiness-fail"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						limits(&d.Spec.Template, "200m", "512Mi")
						return e.createDeployment(ctx, env(d, "SEARCH_URL", "http://search-api:9200"))
					},
				)
			},
			Wait: all(podsWith(map[string]string{"app.kubernetes.io/name": "search-api"}, restartedWith("OOMKilled", 137)), anyPod("storefront", runningNotReady)),
		},
		{
			Name: "frontend-api-bad-flag-exit-2", Covers: "frontend is not ready because api crash-loops with exit 2: a misspelt flag in its args",
			Source: srcIndDeterminePod, Class: ClassRanking, Hops: 2,
			Problem: "frontend is down",
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "api"}, Terms: []string{"listen-adress"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "pg", "postgres:16.2", 5432, 5432) },
					func() error {
						d := deployment("api", "registry.example/web/api:4.0.0", 2, crash("2", "flag provided but not defined: -listen-adress", "api-bad-flag"))
						d.Spec.Template.Spec.Containers[0].Args = []string{"--listen-adress=:8080", "--db=postgres://api@pg:5432/api"}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "api", "api", 80, intstr.FromString("http")) },
					func() error {
						d := deployment("frontend", "registry.example/web/frontend:7.2.0", 1, readinessFail("frontend-api-503"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "API_URL", "http://api"))
					},
				)
			},
			Wait: all(anyPod("api", crashLooping(3)), anyPod("frontend", runningNotReady), podEvent("Unhealthy", "Readiness probe failed")),
		},
		{
			Name: "thumbnailer-hpa-sidecar-no-cpu-request", Covers: "an HPA on CPU utilization never scales: the log-shipper sidecar of its pods sets no CPU request",
			Source: srcIndHPA, Class: ClassRanking, Hops: 1,
			Problem: "thumbnailer never scales out under load", Target: target("HorizontalPodAutoscaler", "thumbnailer"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "thumbnailer"}, Terms: []string{"log-shipper", "cpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("thumbnailer", "registry.example/media/thumbnailer:1.12.0", 2, nil)
						limits(&d.Spec.Template, "250m", "256Mi")
						d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "log-shipper", Image: "fluent/fluent-bit:3.0"})
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createHPA(ctx, "thumbnailer", "thumbnailer", 2, 8) },
					// Noise: another autoscaler of the team, as unable to read metrics as this one.
					func() error {
						d := deployment("resizer", "registry.example/media/resizer:1.3.0", 1, nil)
						limits(&d.Spec.Template, "100m", "128Mi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createHPA(ctx, "resizer", "resizer", 1, 3) },
				)
			},
			Wait: hpaHasConditions("thumbnailer"),
		},
		{
			Name: "ci-runner-quota-starves-tests", Covers: "an integration-test Job creates no pods: the long-running builders use up the namespace's pods quota",
			Source: srcQuotaFullyUsed, Class: ClassRanking, Hops: 1,
			Problem: "integration-tests job never starts", Target: target("Job", "integration-tests"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "ci-quota"}, Terms: []string{"ci-quota"}},
			Setup: func(ctx context.Context, e *Env) error {
				builder := map[string]string{"role": "builder"}
				return steps(
					func() error {
						return e.createQuota(ctx, "ci-quota", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")})
					},
					func() error {
						d := labelledDeployment("buildkitd", "moby/buildkit:v0.13.0", builder, nil)
						d.Spec.Replicas = ptr.To[int32](2)
						return e.createDeployment(ctx, d)
					},
					// Noise: a cache scaled to zero on purpose, its Service left behind.
					func() error {
						d := deployment("artifact-cache", "registry.example/ci/artifact-cache:0.9.0", 0, nil)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createServiceOn(ctx, "artifact-cache", "artifact-cache", 80, intstr.FromString("http"))
					},
					func() error {
						// The Job comes once the builders hold the quota, as in the incident.
						if err := poll(ctx, setupWait, func() error { return podsWith(builder, runningReady)(ctx, e) }); err != nil {
							return err
						}
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, job("integration-tests", 0, nil), metav1.CreateOptions{})
						return wrap("Job", "integration-tests", err)
					},
				)
			},
			Wait: objectEvent("Job", "integration-tests", "FailedCreate", "exceeded quota"),
		},
		{
			Name: "digest-backfill-serviceaccount-removed", Covers: "a backfill Job creates no pods: the ServiceAccount it runs as was removed (a similarly named one exists)",
			Source: srcIndServiceAccount, Class: ClassReference, Hops: 1,
			Problem: "the digest backfill job does nothing",
			Want:    Want{Culprit: Ref{Kind: "ServiceAccount", Name: "digest-mailer"}, Also: []Ref{{Kind: "Job", Name: "digest-backfill"}}, Terms: []string{"digest-mailer"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "digest-sender") },
					func() error { return e.createCronJob(ctx, "digest-weekly", "0 7 * * 1", true, nil) },
					func() error {
						j := job("digest-backfill", 1, nil)
						j.Spec.Template.Spec.ServiceAccountName = "digest-mailer"
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: objectEvent("Job", "digest-backfill", "FailedCreate", "digest-mailer"),
		},
	}
}
