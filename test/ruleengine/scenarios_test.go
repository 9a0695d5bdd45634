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

package ruleengine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

type scenario struct {
	name     string
	target   *agent.Target
	objs     func() []runtime.Object
	rule     string
	culprit  string // Kind/Name
	contains []string
	minChain int
	// failed is the start of the message the session fails with instead of concluding.
	failed string
}

func scenarios() []scenario {
	return []scenario{
		{name: "crash loop with exit code and logs", target: deploy("web"), rule: "crash-loop", culprit: "Deployment/web", minChain: 2,
			contains: []string{"exit code 1", "restarted 7"},
			objs: func() []runtime.Object {
				_, _, o := webApp(2, func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 7) })
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "BackOff", "Back-off restarting failed container app in pod "+podName(0), 30, time.Minute))
			}},
		{name: "oom killed", target: &agent.Target{Kind: "pod", Name: podName(0)}, rule: "oom-killed", culprit: "Deployment/web", contains: []string{"OOMKilled", "256Mi"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}
					fx.CrashLoop(p, 137, "OOMKilled", 4)
				})
				return o
			}},
		{name: "image tag does not exist", target: deploy("web"), rule: "image-pull-not-found", culprit: "Deployment/web", contains: []string{"does not exist"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Waiting(p, "ErrImagePull", `rpc error: code = NotFound desc = failed to pull and unpack image "registry.example/web:1.1": failed to resolve reference "registry.example/web:1.1": registry.example/web:1.1: not found`)
				})
				return o
			}},
		{name: "image pull unauthorized", target: deploy("web"), rule: "image-pull-auth", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.example/web:1.1"`)
				})
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "Failed", `Failed to pull image "registry.example/web:1.1": failed to authorize: failed to fetch oauth token: unexpected status: 401 Unauthorized`, 5, time.Minute))
			}},
		{name: "image pull secret missing", target: deploy("web"), rule: "image-pull-auth", culprit: "Secret/regcred",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
					fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.example/web:1.1"`)
				})
				return o
			}},
		{name: "image pull auth as the kwok stage reports it", target: deploy("web"), rule: "image-pull-auth", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.private.example/web:1.1": ErrImagePull: pull access denied, repository does not exist or may require authorization: server message: 401 Unauthorized: unauthorized: authentication required`)
				})
				return o
			}},
		{name: "container exits 0 under restartPolicy Always", target: deploy("web"), rule: "crash-loop", culprit: "Deployment/web", contains: []string{"exiting with code 0"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) { fx.CrashLoop(p, 0, "Completed", 4) })
				return o
			}},
		{name: "liveness failing while the container is up again", target: &agent.Target{Kind: "Pod", Name: podName(0)}, rule: "liveness-probe-failing", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					cs := &p.Status.ContainerStatuses[0]
					cs.RestartCount = 1
					cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", FinishedAt: fx.Ago(10 * time.Second)}}
				})
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 3, 5*time.Second))
			}},
		{name: "mount failure right after creation", target: &agent.Target{Kind: "Pod", Name: podName(0)}, rule: "secret-missing", culprit: "Secret/tls",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.CreationTimestamp = fx.Ago(5 * time.Second)
					p.Spec.Volumes = []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}}}
					fx.Waiting(p, "ContainerCreating", "")
				})
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "tls" not found`, 1, time.Second))
			}},
		{name: "invalid image name", target: deploy("web"), rule: "invalid-image-name", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Waiting(p, "InvalidImageName", `Failed to apply default image tag "Web:LATEST": couldn't parse image name`)
				})
				return o
			}},
		{name: "insufficient cpu", target: deploy("web"), rule: "unschedulable-insufficient-resources", culprit: "Deployment/web", contains: []string{"cpu"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Unschedulable(p, "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.")
				})
				return o
			}},
		{name: "untolerated taint", target: deploy("web"), rule: "unschedulable-taint", culprit: "Deployment/web", contains: []string{"dedicated=gpu"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Unschedulable(p, "0/2 nodes are available: 2 node(s) had untolerated taint {dedicated=gpu: NoSchedule}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
				})
				return o
			}},
		{name: "node selector matches nothing", target: deploy("web"), rule: "unschedulable-node-affinity", culprit: "Deployment/web", contains: []string{"disktype=ssd"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
					fx.Unschedulable(p, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
				})
				return o
			}},
		{name: "pod pending → PVC pending → StorageClass missing", target: deploy("web"), rule: "pvc-storageclass-missing", culprit: "StorageClass/fast-ssd", minChain: 3,
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "web-data"}}}}
					fx.Unschedulable(p, `0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`)
				})
				return append(o, fx.PVC(ns, "web-data", fx.Ptr("fast-ssd"), corev1.ClaimPending),
					fx.Event(ns, "PersistentVolumeClaim", "web-data", "Warning", "ProvisioningFailed", `storageclass.storage.k8s.io "fast-ssd" not found`, 12, time.Minute))
			}},
		{name: "pod mounts a claim that does not exist", target: deploy("web"), rule: "pvc-missing", culprit: "PersistentVolumeClaim/web-data",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Unschedulable(p, `0/3 nodes are available: persistentvolumeclaim "web-data" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`)
				})
				return o
			}},
		{name: "no provisioner for the class", target: &agent.Target{Kind: "pvc", Name: "data"}, rule: "pvc-no-provisioner", culprit: "StorageClass/standard",
			objs: func() []runtime.Object {
				return []runtime.Object{fx.PVC(ns, "data", fx.Ptr("standard"), corev1.ClaimPending), fx.StorageClass("standard", "ebs.csi.example.com", true, storagev1.VolumeBindingImmediate),
					fx.Event(ns, "PersistentVolumeClaim", "data", "Normal", "ExternalProvisioning", `Waiting for a volume to be created either by the external provisioner 'ebs.csi.example.com' or manually by the system administrator.`, 40, time.Minute)}
			}},
		{name: "access mode not offered by static volumes", target: &agent.Target{Kind: "PersistentVolumeClaim", Name: "shared"}, rule: "pvc-access-mode-unsupported", culprit: "PersistentVolumeClaim/shared",
			objs: func() []runtime.Object {
				pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local-1"}, Spec: corev1.PersistentVolumeSpec{StorageClassName: "local", AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}, Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable}}
				return []runtime.Object{fx.PVC(ns, "shared", fx.Ptr("local"), corev1.ClaimPending, corev1.ReadWriteMany), fx.StorageClass("local", "kubernetes.io/no-provisioner", false, storagev1.VolumeBindingImmediate), pv}
			}},
		{name: "no default storage class", target: &agent.Target{Kind: "pvc", Name: "data"}, rule: "pvc-no-default-storageclass", culprit: "PersistentVolumeClaim/data",
			objs: func() []runtime.Object {
				return []runtime.Object{fx.PVC(ns, "data", nil, corev1.ClaimPending), fx.StorageClass("slow", "ebs.csi.example.com", false, storagev1.VolumeBindingImmediate)}
			}},
		{name: "missing configmap", target: deploy("web"), rule: "configmap-missing", culprit: "ConfigMap/web-config", contains: []string{"does not exist"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}}
					fx.Waiting(p, "CreateContainerConfigError", `configmap "web-config" not found`)
				})
				return o
			}},
		{name: "missing secret key", target: deploy("web"), rule: "secret-key-missing", culprit: "Secret/db", contains: []string{"password"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}}}
					fx.Waiting(p, "CreateContainerConfigError", `couldn't find key password in Secret payments/db`)
				})
				return append(o, fx.Secret(ns, "db", "username"))
			}},
		{name: "missing configmap volume (FailedMount)", target: &agent.Target{Kind: "Pod", Name: podName(0)}, rule: "configmap-missing", culprit: "ConfigMap/nginx-conf",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "nginx-conf"}}}}}
					fx.Waiting(p, "ContainerCreating", "")
				})
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "FailedMount", `MountVolume.SetUp failed for volume "conf" : configmap "nginx-conf" not found`, 9, time.Minute))
			}},
		{name: "readiness probe failing", target: deploy("web"), rule: "readiness-probe-failing", culprit: "Deployment/web", contains: []string{"503"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}}
					fx.SetNotReady(p)
				})
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 120, time.Minute))
			}},
		{name: "readiness probe sends plain HTTP to the TLS port", target: deploy("web"), rule: "readiness-probe-failing", culprit: "Deployment/web", contains: []string{"400", "scheme to HTTPS", "8443 (https)"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "https", ContainerPort: 8443}}
					p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("https")}}}
					fx.SetNotReady(p)
				})
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 400", 30, time.Minute))
			}},
		{name: "liveness probe failing", target: deploy("web"), rule: "liveness-probe-failing", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) { fx.CrashLoop(p, 137, "Error", 5) })
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.1.7:8080/healthz": dial tcp 10.244.1.7:8080: connect: connection refused`, 15, time.Minute))
			}},
		{name: "service selector does not match the deployment", target: &agent.Target{Kind: "svc", Name: "web"}, rule: "service-selector-mismatch", culprit: "Service/web", contains: []string{"app=web"},
			objs: func() []runtime.Object {
				_, _, o := webApp(2, nil)
				return append(o, fx.Service(ns, "web", map[string]string{"app": "web-frontend"}, intstr.FromInt32(8080)))
			}},
		{name: "service without ready endpoints → crashing pods", target: &agent.Target{Kind: "Service", Name: "web"}, rule: "crash-loop", culprit: "Deployment/web", minChain: 2,
			objs: func() []runtime.Object {
				_, _, o := webApp(2, func(p *corev1.Pod) { fx.CrashLoop(p, 2, "Error", 3) })
				svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
				return append(o, svc, fx.EndpointSlice(svc))
			}},
		{name: "service targetPort mismatch", target: &agent.Target{Kind: "Service", Name: "web"}, rule: "service-target-port-mismatch", culprit: "Service/web", contains: []string{"9090"},
			objs: func() []runtime.Object {
				_, _, o := webApp(2, nil)
				return append(o, fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromInt32(9090)))
			}},
		{name: "service behind a deployment scaled to zero", target: &agent.Target{Kind: "Service", Name: "web"}, rule: "deployment-scaled-to-zero", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				d, _, o := webApp(0, nil)
				d.Spec.Replicas = fx.Ptr(int32(0))
				return append(o, fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromInt32(8080)))
			}},
		{name: "rollout stuck → image pull", target: deploy("web"), rule: "image-pull-not-found", culprit: "Deployment/web", minChain: 2,
			objs: func() []runtime.Object {
				d, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.example/web:1.1"`)
				})
				d.Status.Conditions[1] = appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-x" has timed out progressing.`}
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "Failed", `Failed to pull image "registry.example/web:1.1": rpc error: code = NotFound desc = manifest unknown`, 4, time.Minute))
			}},
		{name: "resource quota exceeded", target: deploy("web"), rule: "quota-exceeded", culprit: "ResourceQuota/compute",
			objs: func() []runtime.Object {
				d, rs, o := webApp(0, nil)
				d.Spec.Replicas = fx.Ptr(int32(3))
				d.Status.Replicas = 0
				q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "compute", Namespace: ns}, Status: corev1.ResourceQuotaStatus{
					Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1")}, Used: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1")}}}
				return append(o, q, fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate",
					`Error creating: pods "`+rs.Name+`-zx8kq" is forbidden: exceeded quota: compute, requested: requests.cpu=100m, used: requests.cpu=1, limited: requests.cpu=1`, 14, time.Minute))
			}},
		{name: "limit range violation", target: deploy("web"), rule: "limitrange-violation", culprit: "Deployment/web", contains: []string{"maximum cpu usage per Container"},
			objs: func() []runtime.Object {
				_, rs, o := webApp(0, nil)
				lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}
				return append(o, lr, fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate",
					`Error creating: pods "`+rs.Name+`-ab12c" is forbidden: maximum cpu usage per Container is 500m, but limit is 2`, 9, time.Minute))
			}},
		{name: "a claim over the LimitRange bound names the LimitRange that sets it", target: deploy("web"), rule: "limitrange-violation", culprit: "Deployment/web", contains: []string{"LimitRange storage-limits", "per PersistentVolumeClaim is 50Gi"},
			objs: func() []runtime.Object {
				_, rs, o := webApp(0, nil)
				cpu := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "container-limits", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}
				st := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "storage-limits", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypePersistentVolumeClaim, Max: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("50Gi")}}}}}
				return append(o, cpu, st, fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate",
					`Error creating: persistentvolumeclaims "data-web-0" is forbidden: maximum storage usage per PersistentVolumeClaim is 50Gi, but request is 200Gi`, 9, time.Minute))
			}},
		{name: "service account missing", target: deploy("web"), rule: "serviceaccount-missing", culprit: "ServiceAccount/web-sa",
			objs: func() []runtime.Object {
				_, rs, o := webApp(0, nil)
				return append(o, fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate",
					`Error creating: pods "`+rs.Name+`-"+"qq2ws" is forbidden: error looking up service account payments/web-sa: serviceaccount "web-sa" not found`, 9, time.Minute))
			}},
		{name: "job reached its backoff limit", target: &agent.Target{Kind: "Job", Name: "migrate"}, rule: "job-backoff-limit", culprit: "Job/migrate", contains: []string{"exit", "code 3"},
			objs: func() []runtime.Object {
				j := fx.Job(ns, "migrate", "registry.example/migrate:7")
				j.Status.Failed = 7
				j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}
				return []runtime.Object{j, fx.FailedJobPod(j, "x1x1x", 3), fx.Node("node-1")}
			}},
		{name: "cronjob suspended", target: &agent.Target{Kind: "cronjob", Name: "report"}, rule: "cronjob-suspended", culprit: "CronJob/report",
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "report", "*/5 * * * *")
				cj.Spec.Suspend = fx.Ptr(true)
				return []runtime.Object{cj}
			}},
		{name: "cronjob invalid schedule", target: &agent.Target{Kind: "CronJob", Name: "report"}, rule: "cronjob-invalid-schedule", culprit: "CronJob/report",
			objs: func() []runtime.Object { return []runtime.Object{fx.CronJob(ns, "report", "61 * * * *")} }},
		{name: "cronjob missed schedules", target: &agent.Target{Kind: "CronJob", Name: "report"}, rule: "cronjob-missed-schedules", culprit: "CronJob/report",
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "report", "0 * * * *")
				last := fx.Ago(5 * time.Hour)
				cj.Status.LastScheduleTime = &last
				return []runtime.Object{cj}
			}},
		{name: "cronjob starting deadline under the controller's sync", target: &agent.Target{Kind: "CronJob", Name: "report"}, rule: "cronjob-missed-schedules", culprit: "CronJob/report",
			contains: []string{"startingDeadlineSeconds is 5"},
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "report", "* * * * *")
				cj.Spec.StartingDeadlineSeconds = fx.Ptr(int64(5))
				cj.CreationTimestamp = fx.Ago(150 * time.Second)
				return []runtime.Object{cj}
			}},
		{name: "hpa without metrics", target: &agent.Target{Kind: "hpa", Name: "web"}, rule: "hpa-metrics-unavailable", culprit: "HorizontalPodAutoscaler/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, nil)
				return append(o, hpa(1, 5, 1, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric",
					Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"}))
			}},
		{name: "two autoscalers on one Deployment: the one nothing manages is the culprit", target: &agent.Target{Kind: "hpa", Name: "keda-hpa-web"}, rule: "hpa-ambiguous-selector", culprit: "HorizontalPodAutoscaler/web",
			contains: []string{"keda-hpa-web", "ScaledObject"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, nil)
				amb := autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "AmbiguousSelector",
					Message: "pods by selector app=web are controlled by multiple HPAs: [" + ns + "/web " + ns + "/keda-hpa-web]"}
				keda := hpa(1, 10, 1, amb)
				keda.Name = "keda-hpa-web"
				keda.OwnerReferences = []metav1.OwnerReference{{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: "web", UID: "so-web", Controller: fx.Ptr(true)}}
				return append(o, keda, hpa(1, 5, 1, amb))
			}},

		{name: "hpa utilization without requests (spec check)", target: &agent.Target{Kind: "hpa", Name: "web"}, rule: "hpa-missing-requests", culprit: "Deployment/web", contains: []string{"sets no cpu request"},
			objs: func() []runtime.Object {
				d, _, o := webApp(1, nil)
				d.Spec.Template.Spec.Containers[0].Resources.Requests = nil
				h := hpa(1, 5, 1, autoscalingCond())
				h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: fx.Ptr(int32(70))}}}}
				return append(o, h)
			}},
		{name: "hpa missing requests", target: &agent.Target{Kind: "hpa", Name: "web"}, rule: "hpa-missing-requests", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, nil)
				return append(o, hpa(1, 5, 1, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric",
					Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container app of Pod " + podName(0)}))
			}},
		{name: "hpa maxed out", target: &agent.Target{Kind: "hpa", Name: "web"}, rule: "hpa-maxed-out", culprit: "HorizontalPodAutoscaler/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, nil)
				h := hpa(5, 5, 5, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingLimited, Status: corev1.ConditionTrue, Reason: "TooManyReplicas", Message: "the desired replica count is more than the maximum replica count"})
				h.Status.DesiredReplicas = 9
				return append(o, h)
			}},
		{name: "hpa target missing", target: &agent.Target{Kind: "hpa", Name: "web"}, rule: "hpa-target-missing", culprit: "HorizontalPodAutoscaler/web",
			objs: func() []runtime.Object {
				return []runtime.Object{hpa(0, 5, 0, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionFalse, Reason: "FailedGetScale", Message: `the HPA controller was unable to get the target's current scale: deployments/scale.apps "web" not found`})}
			}},
		{name: "hpa target renamed", target: &agent.Target{Kind: "hpa", Name: "web"}, rule: "hpa-target-missing", culprit: "HorizontalPodAutoscaler/web", contains: []string{"scaleTargetRef", "Deployment web-frontend exists"},
			objs: func() []runtime.Object {
				return []runtime.Object{fx.Deployment(ns, "web-frontend", 2, "registry.example/web:2"), fx.Deployment(ns, "billing", 1, "registry.example/billing:1"),
					hpa(0, 5, 0, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionFalse, Reason: "FailedGetScale", Message: `the HPA controller was unable to get the target's current scale: deployments/scale.apps "web" not found`})}
			}},
		{name: "hpa target in a removed API version", target: &agent.Target{Kind: "hpa", Name: "web"}, rule: "hpa-target-missing", culprit: "HorizontalPodAutoscaler/web", contains: []string{"extensions/v1beta1", "apps/v1"},
			objs: func() []runtime.Object {
				d, _, o := webApp(1, nil)
				h := hpa(1, 5, 1, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionFalse, Reason: "FailedGetScale", Message: `the HPA controller was unable to get the target's current scale: no matches for kind "Deployment" in group "extensions"`})
				h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "extensions/v1beta1", Kind: "Deployment", Name: d.Name}
				return append(o, h)
			}},
		{name: "node not ready", target: &agent.Target{Kind: "Node", Name: "node-1"}, rule: "node-not-ready", culprit: "Node/node-1", contains: []string{"Kubelet stopped posting"},
			objs: func() []runtime.Object {
				n := fx.Node("node-1")
				fx.SetNodeCondition(n, corev1.NodeReady, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.")
				return []runtime.Object{n}
			}},
		{name: "pod on a node under memory pressure", target: &agent.Target{Kind: "Pod", Name: podName(0)}, rule: "node-memory-pressure", culprit: "Node/node-1", minChain: 2,
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) { fx.SetNotReady(p) })
				n := o[3].(*corev1.Node)
				fx.SetNodeCondition(n, corev1.NodeMemoryPressure, corev1.ConditionTrue, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available")
				return o
			}},
		{name: "pod stuck terminating on a lost node", target: &agent.Target{Kind: "Pod", Name: podName(0)}, rule: "node-not-ready", culprit: "Node/node-1", minChain: 2,
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					t := fx.Ago(20 * time.Minute)
					p.DeletionTimestamp = &t
					p.DeletionGracePeriodSeconds = fx.Ptr(int64(30))
				})
				n := o[3].(*corev1.Node)
				fx.SetNodeCondition(n, corev1.NodeReady, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.")
				return o
			}},
		{name: "pdb allows no disruption", target: &agent.Target{Kind: "pdb", Name: "web"}, rule: "pdb-blocking", culprit: "PodDisruptionBudget/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(2, nil)
				return append(o, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
					Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: fx.Ptr(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
					Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2}})
			}},
		{name: "ingress backend service missing", target: &agent.Target{Kind: "ingress", Name: "shop"}, rule: "ingress-backend-missing", culprit: "Ingress/shop", contains: []string{"web-svc"},
			objs: func() []runtime.Object {
				return []runtime.Object{ingress("shop", "web-svc", 80)}
			}},
		{name: "network policy denies all ingress", target: &agent.Target{Kind: "Service", Name: "web"}, rule: "networkpolicy-deny-ingress", culprit: "NetworkPolicy/deny-all",
			objs: func() []runtime.Object {
				_, rs, o := webApp(2, nil)
				svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
				p0 := o[4].(*corev1.Pod)
				_ = rs
				return append(o, svc, fx.EndpointSlice(svc, p0), &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny-all", Namespace: ns},
					Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}})
			}},
		// The session engine checks the target before any work and fails the session with a
		// TargetNotFound condition (the rule engine's own target-not-found finding is for a
		// target that vanishes mid-session; internal/agent tests it step by step).
		{name: "target does not exist", target: deploy("api"), failed: "The target does not exist", contains: []string{"no such Deployment api in payments"},
			objs: func() []runtime.Object { _, _, o := webApp(1, nil); return o }},
		{name: "unknown kind", target: &agent.Target{Kind: "Frobnicator", Name: "x"}, rule: "unsupported-target", culprit: "Frobnicator/x",
			objs: func() []runtime.Object { return nil }},
		{name: "evicted pod on a node with disk pressure", target: &agent.Target{Kind: "Pod", Name: podName(0)}, rule: "node-disk-pressure", culprit: "Node/node-1", minChain: 2,
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted"
					p.Status.Message = "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi."
				})
				n := o[3].(*corev1.Node)
				fx.SetNodeCondition(n, corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure")
				return o
			}},
		{name: "namespace scan finds the crash among healthy pods", target: nil, rule: "crash-loop", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(3, func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 9) })
				d2 := fx.Deployment(ns, "api", 40, "registry.example/api:2")
				rs2 := fx.ReplicaSet(d2, 1, 40, "registry.example/api:2")
				o = append(o, d2, rs2)
				for i := 0; i < 40; i++ {
					o = append(o, fx.PodFor(rs2, fmt.Sprintf("ok%03d", i)))
				}
				return o
			}},
		{name: "selector target", target: &agent.Target{Selector: "app=web"}, rule: "crash-loop", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(2, func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 9) })
				return o
			}},
		{name: "job pod failed (bare pod of a job)", target: &agent.Target{Kind: "Pod", Name: "migrate-x1x1x"}, rule: "container-failed", culprit: "Job/migrate", contains: []string{"code 127", "command not found"},
			objs: func() []runtime.Object {
				j := fx.Job(ns, "migrate", "registry.example/migrate:7")
				return []runtime.Object{j, fx.FailedJobPod(j, "x1x1x", 127), fx.Node("node-1")}
			}},
	}
}

func hpa(cur, max, desired int32, conds ...autoscalingv2.HorizontalPodAutoscalerCondition) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec:   autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"}, MinReplicas: fx.Ptr(int32(1)), MaxReplicas: max},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: cur, DesiredReplicas: desired, Conditions: conds}}
}

func ingress(name, svc string, port int32) *networkingv1.Ingress {
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "shop.example",
		IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: fx.Ptr(networkingv1.PathTypePrefix),
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: port}}}}}}}}}}}
}

func TestScenarios(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			if sc.failed != "" {
				s := agent.Session{ID: "t", Problem: "something is broken", Namespace: ns, Target: sc.target}
				_, _, err := runSession(context.Background(), engine(sc.objs()...), s, agent.Budget{})
				if err == nil || !strings.HasPrefix(err.Error(), sc.failed) {
					t.Fatalf("want the session to fail with %q, got %v", sc.failed, err)
				}
				for _, w := range sc.contains {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("failure lacks %q: %v", w, err)
					}
				}
				return
			}
			c, tr := run(t, sc.target, sc.objs()...)
			rc := c.RootCause
			got := rc.Culprit.Kind + "/" + rc.Culprit.Name
			if rc.Rule != sc.rule || got != sc.culprit {
				alt := ""
				for _, a := range c.Alternatives {
					alt += fmt.Sprintf("\n  alt %s %s/%s (%d)", a.Rule, a.Culprit.Kind, a.Culprit.Name, a.Confidence)
				}
				t.Fatalf("want %s on %s, got %s on %s (%d%%): %s\nchain %v%s\ntrace: %s", sc.rule, sc.culprit, rc.Rule, got, rc.Confidence, rc.Summary, rc.Chain, alt, traceString(tr))
			}
			for _, w := range sc.contains {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, rc.Summary)
				}
			}
			if len(rc.Chain) < sc.minChain {
				t.Errorf("want a chain of at least %d steps, got %v", sc.minChain, rc.Chain)
			}
			checkConclusion(t, c)
			if (tr.APIRequests == 0 && sc.rule != "unsupported-target") || tr.APIRequests > 200 {
				t.Errorf("API requests out of range: %d", tr.APIRequests)
			}
		})
	}
}

// checkConclusion asserts the invariants the Troubleshoot status relies on.
func checkConclusion(t *testing.T, c agent.Conclusion) {
	t.Helper()
	rc := c.RootCause
	if rc.Category == "" || rc.Category[0] < 'A' || rc.Category[0] > 'Z' || strings.ContainsAny(rc.Category, "- _") {
		t.Errorf("category %q is not UpperCamelCase", rc.Category)
	}
	if rc.Confidence < 0 || rc.Confidence > 100 || len(rc.Summary) == 0 || len(rc.Summary) > agent.MaxRootSummary+3 {
		t.Errorf("bad confidence/summary: %d %q", rc.Confidence, rc.Summary)
	}
	if len(rc.EvidenceIDs) == 0 || len(rc.EvidenceIDs) > agent.MaxEvidenceIDs {
		t.Errorf("want 1..%d evidence ids, got %v", agent.MaxEvidenceIDs, rc.EvidenceIDs)
	}
	have := map[string]bool{}
	for _, ev := range c.Evidence {
		have[ev.ID] = true
		if !validID(ev.ID) || len(ev.Summary) > agent.MaxEvidenceSummary+3 {
			t.Errorf("bad evidence %q (%d bytes)", ev.ID, len(ev.Summary))
		}
	}
	for _, id := range rc.EvidenceIDs {
		if !have[id] {
			t.Errorf("evidence %s cited but not returned", id)
		}
	}
	if len(c.Remediation.Actions) == 0 {
		t.Errorf("no remediation actions")
	}
	for _, a := range c.Remediation.Actions {
		if a.Risk != agent.RiskLow && a.Risk != agent.RiskMedium && a.Risk != agent.RiskHigh {
			t.Errorf("bad risk %q", a.Risk)
		}
		if strings.Contains(a.Command, "<ns>") || strings.Contains(a.Description, "<ns>") {
			t.Errorf("unfilled namespace in %+v", a)
		}
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("conclusion does not marshal: %v", err)
	}
}

func validID(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func traceString(tr agent.Trace) string {
	var b strings.Builder
	for _, it := range tr.Iterations {
		fmt.Fprintf(&b, "\n iteration %d:", it.Iteration)
		for _, r := range it.Results {
			fmt.Fprintf(&b, "\n  %s: %s %s", r.TaskID, r.Summary, r.Error)
		}
		if it.Verdict != nil {
			fmt.Fprintf(&b, "\n  verdict %s: %s", it.Verdict.Decision, it.Verdict.Feedback)
		}
	}
	return b.String()
}

func autoscalingCond() autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric",
		Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"}
}
