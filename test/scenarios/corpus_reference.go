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
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Class 4: a reference points at something missing; the conclusion names the missing object
// and the object a user edits to fix the reference (the workload, not its pod).

const (
	srcContainerWaiting = "runbooks/kubernetes/KubeContainerWaiting.md"
	srcServiceAccount   = "k8s-docs/tasks/configure-pod-container/configure-service-account.md"
	srcPullPrivate      = "k8s-docs/tasks/configure-pod-container/pull-image-private-registry.md"
	srcPriority         = "k8s-docs/concepts/scheduling-eviction/pod-priority-preemption.md"
	srcHPA              = "k8s-docs/tasks/run-application/horizontal-pod-autoscale.md"
	srcStatefulSet      = "k8s-docs/concepts/workloads/controllers/statefulset.md"
	srcDaemonSetStuck   = "runbooks/kubernetes/KubeDaemonSetRolloutStuck.md"
	srcPV               = "k8s-docs/concepts/storage/persistent-volumes.md"
	srcInitContainers   = "k8s-docs/tasks/debug/debug-application/debug-init-containers.md"
)

func referenceScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "zookeeper-env-configmap-missing", Covers: "StatefulSet pods in CreateContainerConfigError; the ConfigMap it loads env from was never created",
			Source: srcContainerWaiting, Class: ClassReference, Hops: 2,
			Problem: "zookeeper is not starting", Target: target("StatefulSet", "zookeeper"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "zk-env"}, Also: []Ref{{Kind: "StatefulSet", Name: "zookeeper"}}, Terms: []string{"zk-env"}},
			Setup: func(ctx context.Context, e *Env) error {
				s := plainStatefulSet("zookeeper", "zookeeper:3.9", 1, sim("create-config-error"))
				envFromConfigMap(&s.Spec.Template, "zk-env")
				_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
				return wrap("StatefulSet", s.Name, err)
			},
			Wait: anyPod("zookeeper", waiting("CreateContainerConfigError")),
		},
		{
			Name: "backup-job-secret-missing", Covers: "a Job's pod waits in CreateContainerConfigError; its S3 credentials Secret does not exist",
			Source: srcJob, Class: ClassReference, Hops: 2,
			Problem: "last night's backup never ran", Target: target("Job", "backup"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "s3-credentials"}, Also: []Ref{{Kind: "Job", Name: "backup"}}, Terms: []string{"s3-credentials"}},
			Setup: func(ctx context.Context, e *Env) error {
				j := job("backup", 2, sim("create-config-error"))
				envKeyFromSecret(&j.Spec.Template, "AWS_SECRET_ACCESS_KEY", "s3-credentials", "secret-access-key")
				_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
				return wrap("Job", j.Name, err)
			},
			Wait: anyPod("backup", waiting("CreateContainerConfigError")),
		},
		{
			Name: "log-agent-serviceaccount-missing", Covers: "DaemonSet creates no pods; the ServiceAccount it names does not exist",
			Source: srcServiceAccount, Class: ClassReference, Hops: 1,
			Problem: "no logs arrive from any node", Target: target("DaemonSet", "log-agent"),
			Want: Want{Culprit: Ref{Kind: "ServiceAccount", Name: "log-agent"}, Also: []Ref{{Kind: "DaemonSet", Name: "log-agent"}}, Terms: []string{"log-agent"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDaemonSet(ctx, "log-agent", "fluent/fluent-bit:3.0", nil, func(t *corev1.PodTemplateSpec) {
					t.Spec.ServiceAccountName = "log-agent"
				})
			},
			Wait: func(ctx context.Context, e *Env) error {
				return podEventOn(ctx, e, "DaemonSet", "FailedCreate", "log-agent")
			},
		},
		{
			Name: "vault-pull-secret-missing", Covers: "StatefulSet image pull unauthorized; the imagePullSecret it names does not exist",
			Source: srcPullPrivate, Class: ClassReference, Hops: 2,
			Problem: "vault-0 is stuck", Target: target("StatefulSet", "vault"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "private-registry"}, Also: []Ref{{Kind: "StatefulSet", Name: "vault"}}, Terms: []string{"private-registry"}},
			Setup: func(ctx context.Context, e *Env) error {
				s := plainStatefulSet("vault", "registry.private.example/security/vault:1.16", 1, sim("image-pull-auth"))
				s.Spec.Template.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "private-registry"}}
				_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
				return wrap("StatefulSet", s.Name, err)
			},
			Wait: anyPod("vault", waiting("ErrImagePull", "ImagePullBackOff")),
		},
		{
			Name: "export-job-pvc-missing", Covers: "a Job's pod Pending; the PersistentVolumeClaim it mounts does not exist",
			Source: srcPV, Class: ClassReference, Hops: 2,
			Problem: "the monthly export is stuck", Target: target("Job", "monthly-export"),
			Want: Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "exports"}, Also: []Ref{{Kind: "Job", Name: "monthly-export"}}, Terms: []string{"exports"}},
			Setup: func(ctx context.Context, e *Env) error {
				j := job("monthly-export", 1, nil)
				claimVolume(&j.Spec.Template, "exports")
				_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
				return wrap("Job", j.Name, err)
			},
			Wait: anyPod("monthly-export", unschedulable("not found")),
		},
		{
			Name: "nginx-conf-configmap-missing", Covers: "pods stuck ContainerCreating; the ConfigMap volume for nginx.conf does not exist",
			Source: srcVolumes, Class: ClassReference, Hops: 2,
			Problem: "the edge proxy pods hang in ContainerCreating", Target: target("Deployment", "edge-proxy"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "edge-proxy-conf"}, Also: []Ref{{Kind: "Deployment", Name: "edge-proxy"}}, Terms: []string{"edge-proxy-conf"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("edge-proxy", "nginx:1.27", 2, sim("mount-fail"))
				mountConfigMap(&d.Spec.Template, "edge-proxy-conf", "/etc/nginx/conf.d")
				return e.createDeployment(ctx, d)
			},
			Wait: podEvent("FailedMount", `configmap "edge-proxy-conf" not found`),
		},
		{
			Name: "fluent-bit-secret-key-renamed", Covers: "DaemonSet pods in CreateContainerConfigError; the Secret's key was renamed (passwd, not password)",
			Source: srcSecret, Class: ClassReference, Hops: 2,
			Problem: "log shipping broke after someone recreated the es secret", Target: target("DaemonSet", "fluent-bit"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "es-credentials"}, Also: []Ref{{Kind: "DaemonSet", Name: "fluent-bit"}}, Terms: []string{"password"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "es-credentials", map[string]string{"username": "fluent", "passwd": "x"})
					},
					func() error {
						return e.createDaemonSet(ctx, "fluent-bit", "fluent/fluent-bit:3.0", sim("create-config-error", annMessage,
							fmt.Sprintf("couldn't find key password in Secret %s/es-credentials", e.Namespace)), func(t *corev1.PodTemplateSpec) {
							envKeyFromSecret(t, "ES_PASSWORD", "es-credentials", "password")
						})
					},
				)
			},
			Wait: anyPod("fluent-bit", waiting("CreateContainerConfigError")),
		},
		{
			Name: "priorityclass-missing", Covers: "Deployment creates no pods; the PriorityClass it names does not exist",
			Source: srcPriority, Class: ClassReference, Hops: 2,
			Problem: "critical-api has zero pods after the migration to the new cluster", Target: target("Deployment", "critical-api"),
			Want: Want{Culprit: Ref{Kind: "PriorityClass", Name: "business-critical", Cluster: true}, Also: []Ref{{Kind: "Deployment", Name: "critical-api"}}, Terms: []string{"{ns}-business-critical"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("critical-api", "example/critical-api:1.0", 1, nil)
				d.Spec.Template.Spec.PriorityClassName = e.ClusterName("business-critical")
				return e.createDeployment(ctx, d)
			},
			Wait: deploymentCondition("critical-api", appsv1.DeploymentReplicaFailure, "FailedCreate"),
		},
		{
			Name: "hpa-target-renamed", Covers: "HPA cannot scale; its scaleTargetRef names a Deployment that was renamed",
			Source: srcHPA, Class: ClassReference, Hops: 1,
			Problem: "checkout doesn't autoscale anymore", Target: target("HorizontalPodAutoscaler", "checkout"),
			Want: Want{Culprit: Ref{Kind: "HorizontalPodAutoscaler", Name: "checkout"}, Also: []Ref{{Kind: "Deployment", Name: "checkout-v1"}}, Terms: []string{"checkout-v1"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("checkout-v2", "example/checkout:4.0", 1, nil)
						limits(&d.Spec.Template, "200m", "256Mi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createHPA(ctx, "checkout", "checkout-v1", 2, 8) },
				)
			},
			Wait: hpaCondition("checkout", "AbleToScale", corev1.ConditionFalse),
		},
		{
			Name: "ingress-tls-secret-missing", Covers: "HTTPS serves the wrong certificate; the Ingress names a TLS Secret that does not exist",
			Source: srcIngress, Class: ClassReference, Hops: 1,
			Problem: "browsers warn about the certificate on shop.example.com", Target: target("Ingress", "shop"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "shop-tls"}, Also: []Ref{{Kind: "Ingress", Name: "shop"}}, Terms: []string{"shop-tls"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "shop", "example/shop:9.4", 80, 8080) },
					func() error {
						i := ingress("shop", "shop", 80)
						i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}}
						return e.createIngress(ctx, i)
					},
				)
			},
			Wait: anyPod("shop", runningReady),
		},
		{
			Name: "metrics-proxy-projected-secret", Covers: "pods stuck ContainerCreating; a projected volume source Secret does not exist",
			Source: srcVolumes, Class: ClassReference, Hops: 2,
			Problem: "metrics-proxy is not coming up", Target: target("Deployment", "metrics-proxy"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "proxy-token"}, Also: []Ref{{Kind: "Deployment", Name: "metrics-proxy"}}, Terms: []string{"proxy-token"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("metrics-proxy", "example/metrics-proxy:0.9", 1, sim("mount-fail", annMessage,
					`MountVolume.SetUp failed for volume "creds" : secret "proxy-token" not found`))
				d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					Sources: []corev1.VolumeProjection{{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proxy-token"}}}},
				}}}}
				d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "creds", MountPath: "/var/run/creds"}}
				return e.createDeployment(ctx, d)
			},
			Wait: podEvent("FailedMount", "proxy-token"),
		},
		{
			Name: "cassandra-headless-service-missing", Covers: "StatefulSet peers cannot resolve each other; the governing headless Service named in serviceName does not exist",
			Source: srcStatefulSet, Class: ClassReference, Hops: 2,
			Problem: "the cassandra ring never forms", Target: target("StatefulSet", "cassandra"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "cassandra"}, Also: []Ref{{Kind: "StatefulSet", Name: "cassandra"}}, Terms: []string{"cassandra"}},
			Setup: func(ctx context.Context, e *Env) error {
				s := plainStatefulSet("cassandra", "cassandra:5.0", 1, crash("3",
					fmt.Sprintf("Unable to gossip with any peers: seed cassandra-0.cassandra.%s.svc.cluster.local: %s", e.Namespace,
						"lookup cassandra-0.cassandra."+e.Namespace+".svc.cluster.local on 10.96.0.10:53: no such host"), "cassandra-seeds"))
				_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
				return wrap("StatefulSet", s.Name, err)
			},
			Wait: anyPod("cassandra", crashLooping(3)),
		},
		{
			Name: "ingress-backend-port-renamed", Covers: "Ingress returns 503; it routes to Service port 8080 while the Service listens on 80 (the container port)",
			Source: srcIngress, Class: ClassReference, Hops: 1,
			Problem: "api.example.com is returning 503s", Target: target("Ingress", "api"),
			Want: Want{Culprit: Ref{Kind: "Ingress", Name: "api"}, Also: []Ref{{Kind: "Service", Name: "api"}}, Terms: []string{"8080"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "api", "example/api:3.1", 80, 8080) },
					func() error { return e.createIngress(ctx, ingress("api", "api", 8080)) },
				)
			},
			Wait: anyPod("api", runningReady),
		},
		{
			Name: "init-container-configmap-missing", Covers: "pods stuck in Init; the init container's migration ConfigMap does not exist",
			Source: srcInitContainers, Class: ClassReference, Hops: 2,
			Problem: "catalog pods are stuck in Init", Target: target("Deployment", "catalog"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-migrations"}, Also: []Ref{{Kind: "Deployment", Name: "catalog"}}, Terms: []string{"catalog-migrations"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("catalog", "example/catalog:2.4", 1, sim("mount-fail", annMessage,
					`MountVolume.SetUp failed for volume "migrations" : configmap "catalog-migrations" not found`))
				d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "example/catalog-migrate:2.4",
					VolumeMounts: []corev1.VolumeMount{{Name: "migrations", MountPath: "/migrations"}}}}
				d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "migrations", VolumeSource: corev1.VolumeSource{
					ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "catalog-migrations"}}}}}
				return e.createDeployment(ctx, d)
			},
			Wait: podEvent("FailedMount", "catalog-migrations"),
		},
	}
}

// podEventOn succeeds once an event about an object of kind has reason and mentions text.
func podEventOn(ctx context.Context, e *Env, kind, reason, text string) error {
	l, err := e.Client.CoreV1().Events(e.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=" + kind + ",reason=" + reason})
	if err != nil {
		return err
	}
	for _, ev := range l.Items {
		if strings.Contains(ev.Message, text) {
			return nil
		}
	}
	return fmt.Errorf("no %s event on a %s with %q", reason, kind, text)
}

// hpaCondition succeeds once HPA name reports condition t with status.
func hpaCondition(name, t string, status corev1.ConditionStatus) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		h, err := e.Client.AutoscalingV2().HorizontalPodAutoscalers(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range h.Status.Conditions {
			if string(c.Type) == t && c.Status == status {
				return nil
			}
		}
		return fmt.Errorf("HPA %s has no %s=%s condition yet", name, t, status)
	}
}
