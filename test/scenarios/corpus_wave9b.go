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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Wave 9b: a fresh batch by an outside hand, written from docs pages the corpus had used little
// or not at all (interdependent env vars, CronJob concurrency, the frontend/backend tutorial,
// selectorless Services, tmpfs emptyDirs, init container requests, Ingress path types,
// kustomize generators, Pod Security admission, ReplicaSet selectors). Each team labels, names
// and logs its own way; the clue is often only in a container's log.

const (
	w9bSrcInterdependentEnv = "https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/ (a $(VAR) reference is expanded only when VAR is defined earlier in the list)"
	w9bSrcCronJobs          = "k8s-docs/concepts/workloads/controllers/cron-jobs.md"
	w9bSrcFrontendBackend   = "https://kubernetes.io/docs/tasks/access-application-cluster/connecting-frontend-backend/ (the frontend nginx proxies to the backend Service by its name)"
	w9bSrcSelectorless      = "k8s-docs/concepts/services-networking/service.md"
	w9bSrcEndpointSlices    = "k8s-docs/concepts/services-networking/endpoint-slices.md"
	w9bSrcVolumes           = "k8s-docs/concepts/storage/volumes.md"
	w9bSrcSecurityContext   = "k8s-docs/tasks/configure-pod-container/security-context.md"
	w9bSrcInitContainers    = "k8s-docs/concepts/workloads/pods/init-containers.md"
	w9bSrcIngress           = "k8s-docs/concepts/services-networking/ingress.md"
	w9bSrcKustomize         = "https://kubernetes.io/docs/tasks/manage-kubernetes-objects/kustomization/ (configMapGenerator appends a content hash to the ConfigMap name; only resources in the kustomization get the reference rewritten)"
	w9bSrcPodSecurity       = "https://kubernetes.io/docs/concepts/security/pod-security-admission/ (baseline forbids hostPath volumes; controllers keep failing to create pods)"
	w9bSrcReplicaSet        = "k8s-docs/concepts/workloads/controllers/replicaset.md"
)

func wave9bScenarios() []*Scenario {
	out := append(wave9bFirstScenarios(), wave9bMoreScenarios()...)
	out = append(out, wave9bThirdScenarios()...)
	return append(out, wave9bFourthScenarios()...)
}

func wave9bFirstScenarios() []*Scenario {
	return []*Scenario{
		{
			// DATABASE_URL was written as $(DB_USER):$(DB_PASSWORD)@$(DB_HOST); when DB_HOST moved to
			// the ConfigMap its entry went to the end of the list, after DATABASE_URL, so the
			// kubelet leaves $(DB_HOST) as it is and Django resolves the literal "$(db_host)".
			Name: "invoice-api-env-order-unexpanded-host", Covers: "invoices.example.com answers 503; invoice-api crash-loops, gunicorn's worker fails to boot on 'could not translate host name \"$(db_host)\"': DATABASE_URL references $(DB_HOST), which the container defines only after DATABASE_URL",
			Source: w9bSrcInterdependentEnv, Class: ClassClue, Hops: 2,
			Problem: "invoices.example.com returns 503 since this morning's invoice-api deploy",
			Target:  target("Ingress", "invoices"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "invoice-api"}, Terms: []string{"DB_HOST"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := w8bLabels("invoice-api", "billing", "app.kubernetes.io/component", "api")
				worker := w8bLabels("invoice-worker", "billing", "app.kubernetes.io/component", "worker")
				pg := w8bLabels("invoices-postgres", "billing", "app.kubernetes.io/component", "database")
				dbEnv := func(t *corev1.PodTemplateSpec, urlFirst bool) {
					c := &t.Spec.Containers[0]
					url := corev1.EnvVar{Name: "DATABASE_URL", Value: "postgresql://$(DB_USER):$(DB_PASSWORD)@$(DB_HOST):5432/invoices?sslmode=prefer"}
					host := corev1.EnvVar{Name: "DB_HOST", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "invoice-settings"}, Key: "db-host"}}}
					creds := []corev1.EnvVar{
						{Name: "DB_USER", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: "invoices-db-credentials"}, Key: "username"}}},
						{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: "invoices-db-credentials"}, Key: "password"}}},
					}
					c.Env = append(c.Env, corev1.EnvVar{Name: "DJANGO_SETTINGS_MODULE", Value: "invoices.settings.production"})
					c.Env = append(c.Env, creds...)
					if urlFirst {
						c.Env = append(c.Env, url, host)
					} else {
						c.Env = append(c.Env, host, url)
					}
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "invoice-settings", map[string]string{"db-host": "invoices-postgres", "pdf-renderer-url": "http://pdf-renderer:3000", "currency": "EUR"})
					},
					func() error {
						return e.createSecret(ctx, "invoices-db-credentials", map[string]string{"username": "invoices", "password": "pR7v-3kq9-Lm2x"})
					},
					func() error {
						st := w8bStatefulSet("invoices-postgres", "postgres:16.4", "invoices-postgres", 1, pg, nil, "postgres", 5432)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("invoices-postgres", pg, "postgres", 5432)) },
					func() error {
						d := w8bDeployment("invoice-worker", "registry.example/billing/invoices:3.4.0", 1, worker, nil, "", 0)
						w8cArgs(&d.Spec.Template, "celery", "-A", "invoices", "worker", "-l", "INFO")
						dbEnv(&d.Spec.Template, false)
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("invoice-api", "registry.example/billing/invoices:3.4.0", 2, api,
							crash("3", "", "w9b-invoice-api-unexpanded-host"), "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "invoices.wsgi", "--bind=0.0.0.0:8000", "--worker-class=gthread")
						dbEnv(&d.Spec.Template, true)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("invoice-api", api, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("invoices", "invoices.example.com", "invoice-api", 80))
					},
				)
			},
			Wait: all(w8cStatefulSetReady("invoices-postgres", 1), readyReplicas("invoice-worker", 1),
				w9bAnyPod(map[string]string{"app.kubernetes.io/name": "invoice-api"}, crashLooping(2))),
		},
		{
			// concurrencyPolicy Forbid and no activeDeadlineSeconds: one run blocked on a lock
			// holds the slot, and every later schedule is skipped (counted as missed).
			Name: "outbox-relay-cronjob-forbid-hung-run", Covers: "ledger events stopped reaching Kafka: the every-minute CronJob outbox-relay (concurrencyPolicy Forbid, no activeDeadlineSeconds) skips every run with JobAlreadyActive because one Job has been waiting on a row lock for minutes",
			Source: w9bSrcCronJobs, Class: ClassMechanism, Hops: 1, Slow: true,
			Problem: "no ledger events have been published to Kafka for a while; the outbox relay seems to have stopped running",
			Target:  target("CronJob", "outbox-relay"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "outbox-relay"}, Terms: []string{"Forbid"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8bLabels("ledger-postgres", "ledger", "app.kubernetes.io/component", "database")
				kafka := w8bLabels("ledger-kafka", "ledger", "app.kubernetes.io/component", "broker")
				api := w8bLabels("ledger-api", "ledger", "app.kubernetes.io/component", "api")
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("ledger-postgres", "postgres:16.4", "ledger-postgres", 1, pg, nil, "postgres", 5432))
					},
					func() error { return e.createService(ctx, w8bService("ledger-postgres", pg, "postgres", 5432)) },
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("ledger-kafka", "bitnami/kafka:3.8.1", "ledger-kafka", 1, kafka, nil, "kafka", 9092))
					},
					func() error { return e.createService(ctx, w8bService("ledger-kafka", kafka, "kafka", 9092)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("ledger-api", "registry.example/ledger/api:5.9.0", 2, api, nil, "http", 8080))
					},
					func() error {
						t := template("outbox-relay", "registry.example/ledger/outbox-relay:1.14.2", sim("run", annLogs, "w9b-outbox-relay-hung"))
						t.Labels = w8bLabels("outbox-relay", "ledger", "app.kubernetes.io/component", "relay")
						t.Spec.RestartPolicy = corev1.RestartPolicyNever
						t.Spec.Containers[0].Ports = nil
						w8bEnv(&t, "PGHOST", "ledger-postgres", "KAFKA_BROKERS", "ledger-kafka:9092", "BATCH_SIZE", "500")
						_, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, &batchv1.CronJob{
							ObjectMeta: metav1.ObjectMeta{Name: "outbox-relay", Labels: t.Labels},
							Spec: batchv1.CronJobSpec{Schedule: "* * * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent,
								SuccessfulJobsHistoryLimit: ptr.To[int32](3), FailedJobsHistoryLimit: ptr.To[int32](1),
								JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](0), Template: t}}},
						}, metav1.CreateOptions{})
						return wrap("CronJob", "outbox-relay", err)
					},
				)
			},
			Wait: objectEvent("CronJob", "outbox-relay", "JobAlreadyActive", "Forbid"),
		},
		{
			// The tutorial's frontend proxies to http://hello; the backend team renamed its
			// Service to greeter, and nginx refuses to start on an upstream it cannot resolve.
			Name: "frontend-nginx-upstream-service-renamed", Covers: "the frontend Service has no endpoints: its nginx pods crash-loop on '[emerg] host not found in upstream \"hello\" in /etc/nginx/conf.d/frontend.conf:2'; the backend Service was renamed from hello to greeter, the frontend's ConfigMap still says hello",
			Source: w9bSrcFrontendBackend, Class: ClassClue, Hops: 2,
			Problem: "the frontend is down since the backend team's release; its Service has no ready endpoints",
			Target:  target("Service", "frontend"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "frontend-nginx-conf"}, Terms: []string{"hello"}},
			Setup: func(ctx context.Context, e *Env) error {
				backend := w8cLabels("app", "hello", "tier", "backend", "track", "stable")
				front := w8cLabels("app", "hello", "tier", "frontend", "track", "stable")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "frontend-nginx-conf", map[string]string{"frontend.conf": "upstream hello {\n    server hello;\n}\n\n" +
							"server {\n    listen 80;\n\n    location / {\n        proxy_pass http://hello;\n    }\n}\n"})
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("backend", "gcr.io/google-samples/hello-go-gke:1.0", 3, backend, nil, "http", 80))
					},
					func() error { return e.createService(ctx, w8bService("greeter", backend, "http", 80)) },
					func() error {
						d := w8bDeployment("frontend", "gcr.io/google-samples/hello-frontend:1.0", 1, front,
							crash("1", "", "w9b-frontend-nginx-host-not-found"), "http", 80)
						mountConfigMap(&d.Spec.Template, "frontend-nginx-conf", "/etc/nginx/conf.d")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := w8bService("frontend", front, "http", 80)
						s.Spec.Type = corev1.ServiceTypeLoadBalancer
						return e.createService(ctx, s)
					},
				)
			},
			Wait: all(readyReplicas("backend", 3), w9bAnyPod(map[string]string{"tier": "frontend"}, crashLooping(2))),
		},
		{
			// A selectorless Service for the reporting database on a VM, with an EndpointSlice
			// copied from the docs' example: its port has name '' while the Service's port is
			// named postgres, so no endpoint serves the Service's port.
			Name: "finance-reports-endpointslice-port-name", Covers: "finance-reports crash-loops on 'dial tcp 10.96.143.20:5432: connect: connection refused' to reporting-pg, a selectorless Service whose hand-written EndpointSlice names its port '' instead of postgres (ledger-pg's slice, named postgres, works)",
			Source: w9bSrcSelectorless + "; " + w9bSrcEndpointSlices, Class: ClassProvider, Hops: 2,
			Problem: "finance-reports keeps restarting since we moved the reporting database to the new VM",
			Target:  target("Deployment", "finance-reports"),
			Want:    Want{Culprit: Ref{Kind: "EndpointSlice", Name: "reporting-pg-1"}, Terms: []string{"reporting-pg"}},
			Setup: func(ctx context.Context, e *Env) error {
				reports := w8cLabels("app.kubernetes.io/name", "finance-reports", "app.kubernetes.io/part-of", "finance", "owner", "fin-eng")
				ledger := w8cLabels("app.kubernetes.io/name", "ledger-api", "app.kubernetes.io/part-of", "finance", "owner", "fin-eng")
				external := func(name, portName, ip string) error {
					s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: w8cLabels("owner", "fin-eng", "location", "vm")},
						Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "postgres", Port: 5432, Protocol: corev1.ProtocolTCP}}}}
					if err := e.createService(ctx, s); err != nil {
						return err
					}
					es := &discoveryv1.EndpointSlice{
						ObjectMeta: metav1.ObjectMeta{Name: name + "-1", Labels: map[string]string{
							discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "fin-eng.example.com"}},
						AddressType: discoveryv1.AddressTypeIPv4,
						Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(portName), Port: ptr.To[int32](5432), Protocol: ptr.To(corev1.ProtocolTCP)}},
						Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
					}
					_, err := e.Client.DiscoveryV1().EndpointSlices(e.Namespace).Create(ctx, es, metav1.CreateOptions{})
					return wrap("EndpointSlice", es.Name, err)
				}
				return steps(
					func() error { return external("ledger-pg", "postgres", "10.20.4.11") },
					func() error { return external("reporting-pg", "", "10.20.4.17") },
					func() error {
						d := w8bDeployment("ledger-api", "registry.example/finance/ledger-api:4.1.2", 2, ledger, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "PGHOST", "ledger-pg", "PGPORT", "5432", "PGDATABASE", "ledger")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("ledger-api", ledger, "http", 8080)) },
					func() error {
						d := w8bDeployment("finance-reports", "registry.example/finance/finance-reports:2.3.1", 1, reports,
							crash("1", "", "w9b-finance-reports-refused"), "http", 8080)
						w8bEnv(&d.Spec.Template, "PGHOST", "reporting-pg", "PGPORT", "5432", "PGDATABASE", "reporting", "PGUSER", "finance_ro")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("ledger-api", 2), w9bAnyPod(map[string]string{"app.kubernetes.io/name": "finance-reports"}, crashLooping(2))),
		},
		{
			// The scratch emptyDir is medium: Memory; the 1.2 GB source and the HLS segments
			// written there count against the 2Gi memory limit, and the kernel kills ffmpeg.
			Name: "transcoder-scratch-tmpfs-oomkilled", Covers: "transcoder pods are OOMKilled (exit 137) mid-job although ffmpeg itself uses little memory: the /scratch emptyDir has medium Memory (tmpfs), so the downloaded source and segments count against the 2Gi memory limit",
			Source: w9bSrcVolumes, Class: ClassMechanism, Hops: 1,
			Problem: "video transcoding jobs never finish, the transcoder pods keep getting OOMKilled on big uploads",
			Target:  target("Deployment", "transcoder"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "transcoder"}, Terms: []string{"emptyDir", "2Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				tc := w8cLabels("app.kubernetes.io/name", "transcoder", "app.kubernetes.io/part-of", "media", "app.kubernetes.io/component", "worker")
				api := w8cLabels("app.kubernetes.io/name", "media-api", "app.kubernetes.io/part-of", "media", "app.kubernetes.io/component", "api")
				redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/part-of", "media", "app.kubernetes.io/component", "queue")
				return steps(
					func() error { return e.ownNode(ctx, "media") },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("media-redis", "redis:7.4.1", 1, redis, nil, "redis", 6379))
					},
					func() error { return e.createService(ctx, w8bService("media-redis", redis, "redis", 6379)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("media-api", "registry.example/media/api:2.8.0", 2, api, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("media-api", api, "http", 80)) },
					func() error {
						a := sim("oomkill")
						a[annLogs] = "w9b-transcoder-tmpfs"
						d := w8bDeployment("transcoder", "registry.example/media/transcoder:1.19.3", 2, tc, a, "metrics", 9100)
						t := &d.Spec.Template
						w8cRequests(t, "2", "1Gi", "4", "2Gi")
						e.pin(t)
						w8bEnv(t, "QUEUE_URL", "redis://media-redis:6379/0", "SCRATCH_DIR", "/scratch", "FFMPEG_THREADS", "4")
						t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{
							EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}})
						t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "scratch", MountPath: "/scratch"})
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("media-api", 2), w9bAnyPod(map[string]string{"app.kubernetes.io/name": "transcoder"}, restartedWith("OOMKilled", 137))),
		},
		{
			// The ledger runs as 65532 with no fsGroup and mounts its TLS Secret with defaultMode
			// 0400: the files belong to root, readable by root only.
			Name: "ledger-grpc-tls-secret-mode-0400", Covers: "api-gateway (envoy, Ready) answers 503 UF for every /ledger.v1.Ledger call; ledger crash-loops on 'open /etc/ledger/tls/tls.key: permission denied': the Secret volume has defaultMode 0400 while the pod runs as user 65532 without fsGroup",
			Source: w9bSrcSecurityContext, Class: ClassClue, Hops: 2,
			Problem: "every ledger gRPC call through api.example.com fails with 503 since the ledger switched to TLS",
			Target:  target("Deployment", "api-gateway"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ledger"}, Terms: []string{"tls.key", "permission denied"}},
			Setup: func(ctx context.Context, e *Env) error {
				gw := w8cLabels("app.kubernetes.io/name", "api-gateway", "app.kubernetes.io/instance", "edge", "app.kubernetes.io/component", "proxy")
				ledger := w8cLabels("app.kubernetes.io/name", "ledger", "app.kubernetes.io/instance", "ledger", "app.kubernetes.io/component", "server")
				accounts := w8cLabels("app.kubernetes.io/name", "accounts", "app.kubernetes.io/instance", "accounts", "app.kubernetes.io/component", "server")
				return steps(
					func() error { return e.w9bTLSSecret(ctx, "ledger-grpc-tls", "ledger.payments.svc") },
					func() error {
						d := w8bDeployment("ledger", "registry.example/payments/ledger:5.9.0", 2, ledger,
							crash("1", "", "w9b-ledger-tls-permission"), "grpc", 9443)
						t := &d.Spec.Template
						t.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532)}
						t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{
							Secret: &corev1.SecretVolumeSource{SecretName: "ledger-grpc-tls", DefaultMode: ptr.To[int32](0o400)}}})
						t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "tls", MountPath: "/etc/ledger/tls", ReadOnly: true})
						w8bEnv(t, "LEDGER_TLS_CERT", "/etc/ledger/tls/tls.crt", "LEDGER_TLS_KEY", "/etc/ledger/tls/tls.key")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("ledger", ledger, "grpc", 9443)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("accounts", "registry.example/payments/accounts:3.2.7", 2, accounts, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("accounts", accounts, "http", 8080)) },
					func() error {
						return e.createConfigMap(ctx, "api-gateway-envoy", map[string]string{"envoy.yaml": w9bEnvoyYAML})
					},
					func() error {
						d := w8bDeployment("api-gateway", "envoyproxy/envoy:v1.32.1", 2, gw, running("w9b-gateway-envoy-ledger-503"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "api-gateway-envoy", "/etc/envoy")
						w8cArgs(&d.Spec.Template, "-c", "/etc/envoy/envoy.yaml")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("api-gateway", gw, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("api-gateway", 2), readyReplicas("accounts", 2),
				w9bAnyPod(map[string]string{"app.kubernetes.io/name": "ledger"}, crashLooping(2))),
		},
	}
}

// w9bAnyPod succeeds when a pod matching sel passes check.
func w9bAnyPod(sel map[string]string, check func(p *corev1.Pod) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: sel})})
		if err != nil {
			return err
		}
		last := fmt.Errorf("no pods match %v yet", sel)
		for i := range l.Items {
			if last = check(&l.Items[i]); last == nil {
				return nil
			}
		}
		return last
	}
}

// w9bRollout applies edit to Deployment name once it has n ready replicas (the team's next
// release), then waits for then.
func w9bRollout(name string, n int32, edit func(*appsv1.Deployment), then func(context.Context, *Env) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		key := "rolled-" + name
		if e.State[key] == "" {
			if err := readyReplicas(name, n)(ctx, e); err != nil {
				return err
			}
			if err := e.updateDeployment(ctx, name, edit); err != nil {
				return err
			}
			e.State[key] = "yes"
		}
		return then(ctx, e)
	}
}

// w9bTLSSecret creates a kubernetes.io/tls Secret as cert-manager leaves it (tls.crt, tls.key,
// ca.crt): a self-signed certificate for cn and its key.
func (e *Env) w9bTLSSecret(ctx context.Context, name, cn string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: cn},
		DNSNames: []string{cn}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(90 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"cert-manager.io/issuer-name": "payments-ca"}},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{
			corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), "ca.crt": crt}}
	_, err = e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}
