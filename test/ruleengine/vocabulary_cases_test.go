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
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// vocabCase is a representative cluster for a rule the scenario table does not reach.
type vocabCase struct {
	name     string
	problem  string
	target   *agent.Target
	objs     func() []runtime.Object
	rule     string
	contains []string
}

// noPods is web's Deployment and ReplicaSet with no pod created, and a FailedCreate event on
// the ReplicaSet with msg.
func noPods(msg string) []runtime.Object {
	d, rs, o := webApp(0, nil)
	d.Spec.Replicas = fx.Ptr(int32(2))
	d.Status = appsv1.DeploymentStatus{Replicas: 0}
	rs.Spec.Replicas = fx.Ptr(int32(2))
	rs.Status = appsv1.ReplicaSetStatus{}
	rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg}}
	return append(o, fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate", "Error creating: "+msg, 12, time.Minute))
}

func failedJob(name, reason, msg string) *batchv1.Job {
	j := fx.Job(ns, name, "registry.example/"+name+":1")
	j.Status.StartTime = fx.Ptr(fx.Ago(2 * time.Hour))
	j.Status.Failed = 1
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: fx.Ago(time.Hour)}}
	return j
}

func vocabCases() []vocabCase {
	quiet := "something is broken"
	return []vocabCase{
		{name: "admission webhook denies the pods", problem: quiet, rule: "admission-denied",
			objs: func() []runtime.Object {
				return noPods(`admission webhook "validate.kyverno.svc" denied the request: resource Pod/payments/web was blocked due to the following policies: require-labels`)
			}},
		{name: "admission webhook left behind without its backend", problem: "the storefront deploy shows 0 of 3 pods", rule: "admission-webhook-failing",
			contains: []string{"failed calling webhook", "Service opa", "does not exist", "failurePolicy is Fail"},
			objs: func() []runtime.Object {
				fail := admissionregistrationv1.Fail
				cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "opa-validating-webhook"},
					Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validating-webhook.openpolicyagent.org", FailurePolicy: &fail,
						ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: ns, Name: "opa"}}}}}
				return append(noPods(`Internal error occurred: failed calling webhook "validating-webhook.openpolicyagent.org": failed to call webhook: Post "https://opa.payments.svc:443/v1/admit?timeout=3s": service "opa" not found`), cfg)
			}},
		{name: "indexed Job workers under a subdomain no Service is named for", problem: "the training job failed on every worker",
			target: &agent.Target{Kind: "Job", Name: "train"}, rule: "pod-subdomain-service-missing",
			contains: []string{"subdomain train-workers", "train-0.train-workers", "Headless Service train selects these pods"},
			objs:     subdomainJob},
		{name: "indexed Job workers under a subdomain no Service is named for, asked without a target", problem: "the training job failed on every worker",
			rule:     "pod-subdomain-service-missing",
			contains: []string{"subdomain train-workers", "train-0.train-workers", "Headless Service train selects these pods"},
			objs:     subdomainJob},
		{name: "ssl-passthrough asked of a controller started without it", problem: "the site ends in a redirect loop",
			target: &agent.Target{Kind: "Ingress", Name: "argocd"}, rule: "ingress-annotation-ignored",
			contains: []string{"--enable-ssl-passthrough", "Deployment ingress-nginx-controller"},
			objs: func() []runtime.Object {
				return nginxIngress(map[string]string{"nginx.ingress.kubernetes.io/ssl-passthrough": "true"})
			}},
		{name: "ssl-passthrough asked of a controller started without it, found without a target", problem: "the site ends in a redirect loop",
			rule: "ingress-annotation-ignored", contains: []string{"--enable-ssl-passthrough"},
			objs: func() []runtime.Object {
				return nginxIngress(map[string]string{"nginx.ingress.kubernetes.io/ssl-passthrough": "true"})
			}},
		{name: "a snippet annotation under the controller's default allow-snippet-annotations", problem: "the header rule on the shop does nothing",
			target: &agent.Target{Kind: "Ingress", Name: "argocd"}, rule: "ingress-annotation-ignored",
			contains: []string{"allow-snippet-annotations", "configuration-snippet", "ConfigMap ingress-nginx-controller"},
			objs: func() []runtime.Object {
				return nginxIngress(map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "more_set_headers \"X-Frame-Options: DENY\";"})
			}},
		{name: "configmap key missing", problem: quiet, rule: "configmap-key-missing", contains: []string{"SMTP_PORT"},
			objs: func() []runtime.Object {
				d, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "SMTP_PORT", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "mail"}, Key: "SMTP_PORT"}}}}
					fx.Waiting(p, "CreateContainerConfigError", "couldn't find key SMTP_PORT in ConfigMap payments/mail")
				})
				d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "SMTP_PORT", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "mail"}, Key: "SMTP_PORT"}}}}
				return append(o, fx.ConfigMap(ns, "mail", "SMTP_HOST"))
			}},
		{name: "an init container never finishes", problem: quiet, rule: "init-container-blocked", contains: []string{"/bin/prepare-assets"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.InitContainers = []corev1.Container{{Name: "assets", Image: "busybox:1.36", Command: []string{"/bin/prepare-assets", "--all"}}}
					fx.SetNotReady(p)
					p.Status.Phase = corev1.PodPending
					p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "assets", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(10 * time.Minute)}}}}
					p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}
				})
				return o
			}},
		{name: "runtime cannot create the container", problem: quiet, rule: "create-container-error",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Waiting(p, "CreateContainerError", `failed to generate container spec: failed to apply OCI options: no command specified`)
				})
				return o
			}},
		{name: "runtime cannot set up the sandbox", problem: quiet, rule: "create-container-error", contains: []string{"CNI", "node-1"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) { fx.Waiting(p, "ContainerCreating", "") })
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "FailedCreatePodSandBox", `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "abc": plugin type="calico" failed (add): connection is unauthorized: Unauthorized`, 30, time.Minute))
			}},
		{name: "image pull failing for another reason", problem: quiet, rule: "image-pull-error",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Waiting(p, "ErrImagePull", `failed to pull image "registry.example/web:1.1": dial tcp 10.0.0.5:443: i/o timeout`)
				})
				return o
			}},
		{name: "pods name a PriorityClass that does not exist", problem: quiet, rule: "priorityclass-missing",
			objs: func() []runtime.Object {
				o := noPods(`pods "web-abc-" is forbidden: no PriorityClass with name business-critical was found`)
				o[0].(*appsv1.Deployment).Spec.Template.Spec.PriorityClassName = "business-critical"
				return o
			}},
		{name: "pods name a RuntimeClass that does not exist", problem: quiet, rule: "runtimeclass-missing",
			objs: func() []runtime.Object {
				o := noPods(`pods "web-abc-" is forbidden: pod rejected: RuntimeClass "gvisor" not found`)
				o[0].(*appsv1.Deployment).Spec.Template.Spec.RuntimeClassName = fx.Ptr("gvisor")
				return o
			}},
		{name: "quota requires limits the pods do not set", problem: quiet, rule: "quota-missing-requests",
			objs: func() []runtime.Object {
				q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "compute-limits", Namespace: ns},
					Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceLimitsCPU: resource.MustParse("4")}},
					Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourceLimitsCPU: resource.MustParse("4")}, Used: corev1.ResourceList{corev1.ResourceLimitsCPU: resource.MustParse("0")}}}
				return append(noPods(`pods "web-abc-x" is forbidden: failed quota: compute-limits: must specify limits.cpu for: app`), q)
			}},
		{name: "controller cannot create pods for another reason", problem: quiet, rule: "workload-create-failed",
			objs: func() []runtime.Object {
				return noPods(`Timeout: request did not complete within requested timeout - context deadline exceeded`)
			}},
		{name: "job ran past its activeDeadlineSeconds", problem: quiet, rule: "job-deadline-exceeded", contains: []string{"600s"},
			objs: func() []runtime.Object {
				j := failedJob("report", "DeadlineExceeded", "Job was active longer than specified deadline")
				j.Spec.ActiveDeadlineSeconds = fx.Ptr(int64(600))
				return []runtime.Object{j, fx.Node("node-1")}
			}},
		{name: "job failed by its pod failure policy", problem: quiet, rule: "job-failed",
			objs: func() []runtime.Object {
				return []runtime.Object{failedJob("report", "PodFailurePolicy", "Container main for pod payments/report-x exited with code 42 matching FailJob rule at index 0"), fx.Node("node-1")}
			}},
		{name: "job ended by a FailJob rule of its pod failure policy", problem: quiet, rule: "job-pod-failure-policy", contains: []string{"exit codes In [42]"},
			objs: func() []runtime.Object {
				j := failedJob("report", "PodFailurePolicy", "Container main for pod payments/report-x exited with code 42 matching FailJob rule at index 0")
				j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob,
					OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}}}}
				return []runtime.Object{j, fx.Node("node-1")}
			}},
		{name: "job with parallelism 0", problem: quiet, rule: "job-parallelism-zero",
			objs: func() []runtime.Object {
				j := fx.Job(ns, "export", "registry.example/export:1")
				j.Spec.Parallelism = fx.Ptr(int32(0))
				return []runtime.Object{j, fx.Node("node-1")}
			}},
		{name: "job suspended", problem: "the export job never runs", rule: "job-suspended",
			objs: func() []runtime.Object {
				j := fx.Job(ns, "export", "registry.example/export:1")
				j.Spec.Suspend = fx.Ptr(true)
				return []runtime.Object{j, fx.Node("node-1")}
			}},
		{name: "ingress tls secret missing", problem: quiet, rule: "ingress-tls-secret-missing",
			objs: func() []runtime.Object {
				ing := ingress("shop", "web", 80)
				ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"shop.example"}, SecretName: "shop-tls"}}
				svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
				_, _, o := webApp(1, nil)
				return append(o, ing, svc, fx.EndpointSlice(svc, o[4].(*corev1.Pod)))
			}},
		{name: "ingress names an IngressClass that does not exist", problem: "shop.example returns 404", rule: "ingress-class-missing", contains: []string{"nginx-internal", "IngressClass nginx exists"},
			objs: func() []runtime.Object {
				ing := ingress("shop", "web", 80)
				ing.Spec.IngressClassName = fx.Ptr("nginx-internal")
				svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
				_, _, o := webApp(1, nil)
				class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
				return append(o, ing, svc, fx.EndpointSlice(svc, o[4].(*corev1.Pod)), class)
			}},
		{name: "ingress backend port not on the service", problem: quiet, rule: "ingress-backend-port-mismatch",
			objs: func() []runtime.Object {
				svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
				_, _, o := webApp(1, nil)
				return append(o, ingress("shop", "web", 8080), svc, fx.EndpointSlice(svc, o[4].(*corev1.Pod)))
			}},
		{name: "service without selector and endpoints", problem: quiet, rule: "service-no-endpoints",
			objs: func() []runtime.Object {
				return []runtime.Object{fx.Service(ns, "legacy", nil, intstr.FromInt32(8080)), fx.Node("node-1")}
			}},
		{name: "statefulset governing service missing", problem: quiet, rule: "statefulset-service-missing",
			objs: func() []runtime.Object {
				s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "cassandra", Namespace: ns, UID: fx.UID("StatefulSet", "cassandra")},
					Spec: appsv1.StatefulSetSpec{Replicas: fx.Ptr(int32(1)), ServiceName: "cassandra", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cassandra"}},
						Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "cassandra"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{fx.Container("cassandra", "cassandra:4")}}}},
					Status: appsv1.StatefulSetStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}}
				p := fx.Pod(ns, "cassandra-0", s.Spec.Template.Labels, s.Spec.Template.Spec, s, "StatefulSet")
				return []runtime.Object{s, p, fx.Node("node-1")}
			}},
		{name: "daemonset selects no node", problem: quiet, rule: "daemonset-no-nodes",
			objs: func() []runtime.Object {
				ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "gpu-plugin", Namespace: ns, UID: fx.UID("DaemonSet", "gpu-plugin")},
					Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gpu-plugin"}},
						Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "gpu-plugin"}},
							Spec: corev1.PodSpec{NodeSelector: map[string]string{"accelerator": "nvidia"}, Containers: []corev1.Container{fx.Container("plugin", "nvidia/plugin:1")}}}},
					Status: appsv1.DaemonSetStatus{ObservedGeneration: 1}}
				return []runtime.Object{ds, fx.Node("node-1")}
			}},
		{name: "daemonset left off a tainted node", target: &agent.Target{Kind: "DaemonSet", Name: "log-shipper"}, problem: "no logs from the GPU nodes", rule: "daemonset-taint-excluded",
			contains: []string{"gpu-a", "nvidia.com/gpu=present:NoSchedule"},
			objs: func() []runtime.Object {
				ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "log-shipper", Namespace: ns, UID: fx.UID("DaemonSet", "log-shipper")},
					Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "log-shipper"}},
						Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "log-shipper"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{fx.Container("shipper", "fluent-bit:3")}}}},
					Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1, UpdatedNumberScheduled: 1}}
				gpu := fx.Node("gpu-a")
				gpu.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}}
				p := fx.Pod(ns, "log-shipper-abcde", ds.Spec.Template.Labels, ds.Spec.Template.Spec, ds, "DaemonSet")
				return []runtime.Object{ds, p, fx.Node("node-1"), gpu}
			}},
		{name: "deployment paused holding back its change", problem: quiet, rule: "deployment-paused",
			objs: func() []runtime.Object {
				d, _, o := webApp(1, nil)
				d.Spec.Paused = true
				d.Spec.Template.Spec.Containers[0].Image = "registry.example/web:1.2"
				d.Status.UpdatedReplicas = 0
				return o
			}},
		{name: "statefulset partition holds its update back", problem: "postgres still runs the old version", rule: "rollout-held", contains: []string{"partition is 3", "0 of 3"},
			objs: func() []runtime.Object {
				s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "postgres", Namespace: ns, UID: fx.UID("StatefulSet", "postgres"), Generation: 2},
					Spec: appsv1.StatefulSetSpec{Replicas: fx.Ptr(int32(3)), ServiceName: "postgres", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "postgres"}},
						UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: fx.Ptr(int32(3))}},
						Template:       corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "postgres"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{fx.Container("postgres", "postgres:16.4")}}}},
					Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 0,
						CurrentRevision: "postgres-6c8d5", UpdateRevision: "postgres-7f9b2"}}
				o := []runtime.Object{s, fx.Service(ns, "postgres", map[string]string{"app": "postgres"}, intstr.FromInt32(5432)), fx.Node("node-1")}
				for i := 0; i < 3; i++ {
					o = append(o, fx.Pod(ns, fmt.Sprintf("postgres-%d", i), s.Spec.Template.Labels, s.Spec.Template.Spec, s, "StatefulSet"))
				}
				return o
			}},
		{name: "daemonset OnDelete holds its update back", problem: quiet, rule: "rollout-held", contains: []string{"OnDelete", "1 of 2"},
			objs: func() []runtime.Object {
				ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "node-agent", Namespace: ns, UID: fx.UID("DaemonSet", "node-agent"), Generation: 3},
					Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-agent"}}, UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
						Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "node-agent"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{fx.Container("agent", "agent:2")}}}},
					Status: appsv1.DaemonSetStatus{ObservedGeneration: 3, DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberReady: 2, NumberAvailable: 2, UpdatedNumberScheduled: 1}}
				return []runtime.Object{ds, fx.Node("node-1"), fx.Node("node-2")}
			}},
		{name: "pull secret named by the pods does not exist", problem: quiet, rule: "pull-secret-missing",
			objs: func() []runtime.Object {
				d, _, o := webApp(1, func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}} })
				d.Spec.Template.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
				return o
			}},
		{name: "rolebinding to a role that does not exist", problem: quiet, rule: "rolebinding-role-missing",
			objs: func() []runtime.Object {
				rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: ns},
					RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "deploy-manager"},
					Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "ci", Namespace: ns}}}
				return []runtime.Object{rb, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "ci", Namespace: ns}}, fx.Node("node-1")}
			}},
		{name: "pod evicted", target: &agent.Target{Kind: "Pod", Name: podName(0)}, problem: quiet, rule: "pod-evicted",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted"
					p.Status.Message = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. Container app was using 900Mi, request is 128Mi, has larger consumption of memory."
				})
				return o
			}},
		{name: "a foreground deletion waits for a pod under a controller's finalizer", target: &agent.Target{Kind: "Deployment", Name: "web"}, problem: quiet, rule: "deletion-blocked", contains: []string{"example.com/block", "foregroundDeletion"},
			objs: func() []runtime.Object {
				d, rs, o := webApp(1, func(p *corev1.Pod) {
					t := fx.Ago(20 * time.Minute)
					p.DeletionTimestamp = &t
					p.DeletionGracePeriodSeconds = fx.Ptr(int64(30))
					p.Finalizers = []string{"example.com/block"}
				})
				t := fx.Ago(20 * time.Minute)
				d.DeletionTimestamp, rs.DeletionTimestamp = &t, &t
				d.Finalizers, rs.Finalizers = []string{"foregroundDeletion"}, []string{"foregroundDeletion"}
				return o
			}},
		{name: "pod stuck terminating on finalizer", target: &agent.Target{Kind: "Pod", Name: podName(0)}, problem: quiet, rule: "pod-stuck-terminating",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					t := fx.Ago(20 * time.Minute)
					p.DeletionTimestamp = &t
					p.DeletionGracePeriodSeconds = fx.Ptr(int64(30))
					p.Finalizers = []string{"example.com/block"}
				})
				return o
			}},
		{name: "claim with no matching volume", problem: quiet, rule: "pvc-no-matching-pv",
			objs: func() []runtime.Object {
				sc := "local-storage"
				return []runtime.Object{fx.PVC(ns, "data", &sc, corev1.ClaimPending), fx.StorageClass(sc, "kubernetes.io/no-provisioner", false, storagev1.VolumeBindingImmediate), fx.Node("node-1")}
			}},
		{name: "a pod that names its node keeps its WaitForFirstConsumer claim unbound", problem: quiet, rule: "pvc-nodename-bypasses-scheduler",
			objs: func() []runtime.Object {
				sc := "local-nvme"
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "cache"}}}}
					p.Status.Phase = corev1.PodPending
				})
				return append(o, fx.PVC(ns, "cache", &sc, corev1.ClaimPending), fx.StorageClass(sc, "rancher.io/local-path", false, storagev1.VolumeBindingWaitForFirstConsumer))
			}},
		{name: "allowedTopologies no node meets", problem: quiet, rule: "storageclass-topology-unmatched",
			objs: func() []runtime.Object {
				sc := "ssd-zonal"
				class := fx.StorageClass(sc, "ebs.csi.aws.com", false, storagev1.VolumeBindingWaitForFirstConsumer)
				class.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "failure-domain.beta.kubernetes.io/zone", Values: []string{"us-east-1a"}}}}}
				n := fx.Node("node-1")
				n.Labels = map[string]string{corev1.LabelTopologyZone: "us-east-1a"}
				return []runtime.Object{fx.PVC(ns, "data", &sc, corev1.ClaimPending), class, n}
			}},
		{name: "claim provisioning failed", problem: quiet, rule: "pvc-provisioning-failed",
			objs: func() []runtime.Object {
				sc := "standard"
				return []runtime.Object{fx.PVC(ns, "data", &sc, corev1.ClaimPending), fx.StorageClass(sc, "rancher.io/local-path", false, storagev1.VolumeBindingImmediate),
					fx.Event(ns, "PersistentVolumeClaim", "data", "Warning", "ProvisioningFailed", "failed to provision volume with StorageClass \"standard\": rpc error: code = ResourceExhausted desc = quota exceeded for disks", 4, time.Minute), fx.Node("node-1")}
			}},
		{name: "claim lost its volume", problem: quiet, rule: "pvc-lost",
			objs: func() []runtime.Object {
				sc := "standard"
				c := fx.PVC(ns, "data", &sc, corev1.ClaimLost)
				c.Spec.VolumeName = "pv-data"
				return []runtime.Object{c, fx.Node("node-1")}
			}},
		{name: "volume mount failed", target: &agent.Target{Kind: "Pod", Name: podName(0)}, problem: quiet, rule: "volume-mount-failed",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Volumes = []corev1.Volume{{Name: "media", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.20.0.5", Path: "/exports/media"}}}}
					fx.Waiting(p, "ContainerCreating", "")
				})
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "FailedMount", "MountVolume.SetUp failed for volume \"media\" : mount failed: exit status 32 mount.nfs: access denied by server while mounting 10.20.0.5:/exports/media", 6, time.Minute))
			}},
		{name: "nodes cordoned", problem: quiet, rule: "unschedulable-nodes-cordoned",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Unschedulable(p, "0/2 nodes are available: 2 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
				})
				n := o[3].(*corev1.Node)
				n.Spec.Unschedulable = true
				return o
			}},
		{name: "pod anti-affinity keeps the pod pending", problem: quiet, rule: "unschedulable",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					fx.Unschedulable(p, "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.")
				})
				return o
			}},
		{name: "node network unavailable", target: &agent.Target{Kind: "Node", Name: "node-1"}, problem: quiet, rule: "node-network-unavailable",
			objs: func() []runtime.Object {
				n := fx.Node("node-1")
				fx.SetNodeCondition(n, corev1.NodeNetworkUnavailable, corev1.ConditionTrue, "NoRouteCreated", "RouteController failed to create a route")
				return []runtime.Object{n}
			}},
		{name: "node pid pressure", target: &agent.Target{Kind: "Node", Name: "node-1"}, problem: quiet, rule: "node-pid-pressure",
			objs: func() []runtime.Object {
				n := fx.Node("node-1")
				fx.SetNodeCondition(n, corev1.NodePIDPressure, corev1.ConditionTrue, "KubeletHasInsufficientPID", "kubelet has insufficient PID available")
				return []runtime.Object{n}
			}},
		{name: "node cordoned", target: &agent.Target{Kind: "Node", Name: "node-1"}, problem: quiet, rule: "node-cordoned",
			objs: func() []runtime.Object {
				n := fx.Node("node-1")
				n.Spec.Unschedulable = true
				return []runtime.Object{n}
			}},
		{name: "a command written as one string", target: &agent.Target{Kind: "Deployment", Name: "web"}, problem: "web never starts after the release", rule: "container-command-invalid",
			contains: []string{"one string", "bundle exec puma", "[bundle, exec, puma]"},
			objs: func() []runtime.Object {
				d, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Containers[0].Command = []string{"bundle exec puma"}
					fx.CrashLoop(p, 128, "StartError", 4)
					p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "bundle exec puma": executable file not found in $PATH: unknown`
				})
				d.Spec.Template.Spec.Containers[0].Command = []string{"bundle exec puma"}
				return o
			}},
		{name: "an ssh key mounted readable by others", target: &agent.Target{Kind: "Deployment", Name: "web"}, problem: "the git sync keeps failing", rule: "key-file-mode-too-open",
			contains: []string{"Secret git-ssh", "0644", "0400"},
			objs: func() []runtime.Object {
				vol := corev1.Volume{Name: "ssh", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "git-ssh", DefaultMode: fx.Ptr(int32(0o644))}}}
				mount := corev1.VolumeMount{Name: "ssh", MountPath: "/root/.ssh", ReadOnly: true}
				d, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.Volumes = append(p.Spec.Volumes, vol)
					p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, mount)
					fx.CrashLoop(p, 128, "Error", 4)
					p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "Permissions 0644 for '/root/.ssh/id_ed25519' are too open.\nThis private key will be ignored.\ngit@git.example.com: Permission denied (publickey).\nfatal: Could not read from remote repository."
				})
				d.Spec.Template.Spec.Volumes = append(d.Spec.Template.Spec.Volumes, vol)
				d.Spec.Template.Spec.Containers[0].VolumeMounts = append(d.Spec.Template.Spec.Containers[0].VolumeMounts, mount)
				return append(o, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git-ssh", Namespace: ns}, Data: map[string][]byte{"id_ed25519": []byte("k")}})
			}},
		{name: "a toleration that expires on a NoExecute taint", target: &agent.Target{Kind: "Deployment", Name: "web"}, problem: "web pods are replaced every half minute", rule: "toleration-seconds-evicts",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, nil)
				for _, x := range o {
					switch v := x.(type) {
					case *corev1.Node:
						v.Spec.Taints = []corev1.Taint{{Key: "pool", Value: "batch", Effect: corev1.TaintEffectNoExecute}}
					case *corev1.Pod:
						v.Spec.Tolerations = []corev1.Toleration{{Key: "pool", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: fx.Ptr(int64(25))}}
					}
				}
				return o
			}},
		{name: "two budgets select the same pods", target: &agent.Target{Kind: "Deployment", Name: "web"}, problem: "kubectl drain never finishes on node-1", rule: "pdb-overlap",
			objs: func() []runtime.Object {
				d, _, o := webApp(2, nil)
				pdb := func(name string, sel map[string]string) *policyv1.PodDisruptionBudget {
					return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
						Spec:   policyv1.PodDisruptionBudgetSpec{MaxUnavailable: fx.Ptr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: sel}},
						Status: policyv1.PodDisruptionBudgetStatus{ExpectedPods: 2, CurrentHealthy: 2, DesiredHealthy: 1, DisruptionsAllowed: 1, ObservedGeneration: 1}}
				}
				return append(o, pdb("web", d.Spec.Selector.MatchLabels), pdb("tier-baseline", map[string]string{}))
			}},
		{name: "pdb selects no pods", target: &agent.Target{Kind: "PodDisruptionBudget", Name: "web"}, problem: quiet, rule: "pdb-selects-no-pods",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, nil)
				return append(o, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
					Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: fx.Ptr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web-frontend"}}},
					Status: policyv1.PodDisruptionBudgetStatus{ExpectedPods: 0, ObservedGeneration: 1}})
			}},
		{name: "rollout past its progress deadline", target: deploy("web"), problem: quiet, rule: "rollout-stuck",
			objs: func() []runtime.Object {
				d, _, o := webApp(1, func(p *corev1.Pod) { fx.SetNotReady(p) })
				d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-abc" has timed out progressing.`}}
				return o
			}},
		{name: "hpa blocked by the workload", target: &agent.Target{Kind: "HorizontalPodAutoscaler", Name: "web"}, problem: quiet, rule: "hpa-scale-blocked",
			objs: func() []runtime.Object {
				_, _, o := webApp(2, nil)
				h := hpa(2, 10, 6, autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "SucceededRescale"})
				return append(o, h)
			}},
		{name: "workload with unready pods", target: deploy("web"), problem: quiet, rule: "workload-pods-unhealthy",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) { fx.SetNotReady(p) })
				return o
			}},
		{name: "quota fully used", problem: quiet, rule: "quota-exhausted",
			objs: func() []runtime.Object {
				q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "team-pods", Namespace: ns},
					Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}},
					Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}
				_, _, o := webApp(1, nil)
				return append(o, q)
			}},
		{name: "cronjob blocked by Forbid", target: &agent.Target{Kind: "CronJob", Name: "report"}, problem: quiet, rule: "cronjob-concurrency-blocked",
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "report", "*/5 * * * *")
				cj.UID = fx.UID("CronJob", "report")
				cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
				j := fx.Job(ns, "report-100", "busybox:1.36")
				j.CreationTimestamp = fx.Ago(3 * time.Hour)
				j.Status.StartTime = fx.Ptr(fx.Ago(3 * time.Hour))
				j.Status.Active = 1
				j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "report-100", Namespace: ns}}
				cj.Status.LastScheduleTime = fx.Ptr(fx.Ago(3 * time.Hour))
				return []runtime.Object{cj, j, fx.Node("node-1")}
			}},
		{name: "cronjob blocked by Forbid, found without a target while nothing failed or was missed yet", problem: "the nightly outbox relay stopped running", rule: "cronjob-concurrency-blocked",
			contains: []string{"Forbid", "report-100"},
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "report", "*/5 * * * *")
				cj.UID = fx.UID("CronJob", "report")
				cj.CreationTimestamp = fx.Ago(48 * time.Hour)
				cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
				j := fx.Job(ns, "report-100", "busybox:1.36")
				j.CreationTimestamp = fx.Ago(3 * time.Hour)
				j.Status.StartTime = fx.Ptr(fx.Ago(3 * time.Hour))
				j.Status.Active = 1
				j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "report-100", Namespace: ns}}
				cj.Status.LastScheduleTime = fx.Ptr(fx.Ago(2 * time.Minute))
				return []runtime.Object{cj, j, fx.Node("node-1")}
			}},
		{name: "cronjob whose runs Replace deletes, found without a target", problem: "the export has not delivered anything since the schedule change, yet no Job failed", rule: "cronjob-runs-replaced",
			contains: []string{"Replace", "Deleted job export-102"},
			objs: func() []runtime.Object {
				// Judged on its second run, 100 s after creation: the first was replaced.
				cj := fx.CronJob(ns, "export", "* * * * *")
				cj.UID = fx.UID("CronJob", "export")
				cj.CreationTimestamp = fx.Ago(100 * time.Second)
				cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
				j := fx.Job(ns, "export-103", "busybox:1.36")
				j.CreationTimestamp = fx.Ago(20 * time.Second)
				j.Status.StartTime = fx.Ptr(fx.Ago(20 * time.Second))
				j.Status.Active = 1
				j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "export-103", Namespace: ns}}
				cj.Status.LastScheduleTime = fx.Ptr(fx.Ago(20 * time.Second))
				pod := fx.Pod(ns, "export-103-x7k2p", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job")
				pod.Spec.RestartPolicy = corev1.RestartPolicyNever
				pod.Status.StartTime = fx.Ptr(fx.Ago(18 * time.Second))
				return []runtime.Object{cj, j, pod, fx.Node("node-1"),
					fx.Event(ns, "CronJob", "export", "Normal", "SuccessfulDelete", "Deleted job export-101", 1, 80*time.Second),
					fx.Event(ns, "CronJob", "export", "Normal", "SuccessfulDelete", "Deleted job export-102", 1, 20*time.Second)}
			}},
		{name: "cronjob whose history limit 0 hides every successful run, found without a target", problem: "the audit export never seems to run: no Job or pod of it is ever listed", rule: "cronjob-history-hidden",
			contains: []string{"successfulJobsHistoryLimit is 0", "last success"},
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "audit-export", "* * * * *")
				cj.CreationTimestamp = fx.Ago(30 * time.Minute)
				cj.Spec.SuccessfulJobsHistoryLimit = fx.Ptr(int32(0))
				cj.Status.LastScheduleTime = fx.Ptr(fx.Ago(40 * time.Second))
				cj.Status.LastSuccessfulTime = fx.Ptr(fx.Ago(30 * time.Second))
				return []runtime.Object{cj, fx.Node("node-1")}
			}},
		{name: "cronjob whose history limit 0 hides every successful run, asked while a run is in progress", target: &agent.Target{Kind: "CronJob", Name: "audit-export"}, problem: "the audit export never seems to run: no finished Job of it is ever listed", rule: "cronjob-history-hidden",
			contains: []string{"successfulJobsHistoryLimit is 0"},
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "audit-export", "* * * * *")
				cj.UID = fx.UID("CronJob", "audit-export")
				cj.CreationTimestamp = fx.Ago(30 * time.Minute)
				cj.Spec.SuccessfulJobsHistoryLimit = fx.Ptr(int32(0))
				cj.Status.LastScheduleTime = fx.Ptr(fx.Ago(5 * time.Second))
				cj.Status.LastSuccessfulTime = fx.Ptr(fx.Ago(50 * time.Second))
				j := fx.Job(ns, "audit-export-29932500", "busybox:1.36")
				j.Status.StartTime = fx.Ptr(fx.Ago(4 * time.Second))
				j.Status.Active = 1
				j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: j.Name, Namespace: ns}}
				return []runtime.Object{cj, j, fx.Node("node-1")}
			}},
		{name: "cronjob whose history limit 0 hides every successful run, asked the moment a run finished", target: &agent.Target{Kind: "CronJob", Name: "audit-export"}, problem: "the audit export never seems to run: no finished Job of it is ever listed", rule: "cronjob-history-hidden",
			contains: []string{"successfulJobsHistoryLimit is 0"},
			objs: func() []runtime.Object {
				cj := fx.CronJob(ns, "audit-export", "* * * * *")
				cj.UID = fx.UID("CronJob", "audit-export")
				cj.CreationTimestamp = fx.Ago(30 * time.Minute)
				cj.Spec.SuccessfulJobsHistoryLimit = fx.Ptr(int32(0))
				cj.Status.LastScheduleTime = fx.Ptr(fx.Ago(8 * time.Second))
				cj.Status.LastSuccessfulTime = fx.Ptr(fx.Ago(2 * time.Second))
				j := fx.Job(ns, "audit-export-29932501", "busybox:1.36")
				j.Status.StartTime = fx.Ptr(fx.Ago(7 * time.Second))
				j.Status.CompletionTime = fx.Ptr(fx.Ago(2 * time.Second))
				j.Status.Succeeded = 1
				j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
				return []runtime.Object{cj, j, fx.Node("node-1")}
			}},
		{name: "pods that get no traffic behind a ClientIP Service, found without a target", problem: "two of the three web pods never get any requests while the third is overloaded", rule: "service-session-affinity",
			contains: []string{"sessionAffinity ClientIP", "Deployment bff (1 pod(s))", "3 ready pod(s)"}, objs: stickyWeb},
		{name: "pods that get no traffic behind a ClientIP Service, asked about the Deployment", target: deploy("web"), problem: "two of the three web pods never get any requests while the third is overloaded", rule: "service-session-affinity",
			contains: []string{"sessionAffinity ClientIP"}, objs: stickyWeb},
		{name: "two autoscalers on one Deployment, found without a target", problem: "web stays at one replica under load", rule: "hpa-ambiguous-selector",
			contains: []string{"keda-hpa-web", "ScaledObject", "delete HorizontalPodAutoscaler web"},
			objs: func() []runtime.Object {
				_, _, o := webApp(1, nil)
				amb := autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "AmbiguousSelector",
					Message: "pods by selector app=web are controlled by multiple HPAs: [" + ns + "/web " + ns + "/keda-hpa-web]"}
				keda := hpa(1, 10, 1, amb)
				keda.Name = "keda-hpa-web"
				keda.OwnerReferences = []metav1.OwnerReference{{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: "web", UID: "so-web", Controller: fx.Ptr(true)}}
				return append(o, keda, hpa(1, 5, 1, amb))
			}},
		{name: "service whose pods are not ready", target: &agent.Target{Kind: "Service", Name: "web"}, problem: quiet, rule: "service-no-ready-endpoints",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) { fx.SetNotReady(p) })
				svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
				return append(o, svc)
			}},
	}
}

// subdomainJob is an Indexed Job whose pods' subdomain names no Service, beside the headless
// Service that selects them under another name.
func subdomainJob() []runtime.Object {
	j := fx.Job(ns, "train", "pytorch/pytorch:2.4.0")
	j.Spec.Template.Spec.Subdomain = "train-workers"
	j.Status.Failed = 4
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes", Message: "Job has failed indexes"}}
	svc := fx.Service(ns, "train", map[string]string{"job-name": "train"}, intstr.FromInt32(29500))
	svc.Spec.ClusterIP = corev1.ClusterIPNone
	return []runtime.Object{j, fx.FailedJobPod(j, "0-abcde", 1), svc, fx.Node("node-1")}
}

// nginxIngress is an Ingress with annotations, its ready backend, and an ingress-nginx
// controller Deployment started with neither --enable-ssl-passthrough nor snippets allowed.
func nginxIngress(annotations map[string]string) []runtime.Object {
	ing := ingress("argocd", "web", 80)
	ing.Annotations = annotations
	_, _, o := webApp(1, nil)
	svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
	ctrl := fx.Deployment(ns, "ingress-nginx-controller", 1, "registry.k8s.io/ingress-nginx/controller:v1.11.3")
	ctrl.Spec.Template.Spec.Containers[0].Args = []string{"/nginx-ingress-controller", "--configmap=$(POD_NAMESPACE)/ingress-nginx-controller", "--ingress-class=nginx"}
	cm := fx.ConfigMap(ns, "ingress-nginx-controller")
	cm.Data["use-forwarded-headers"] = "true"
	return append(o, ing, svc, ctrl, cm)
}

// stickyWeb is web's three Ready pods behind a Service with sessionAffinity ClientIP, called
// by one pod of bff.
func stickyWeb() []runtime.Object {
	_, _, o := webApp(3, nil)
	var pods []*corev1.Pod
	for _, x := range o {
		if p, ok := x.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
	svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	bff := fx.Deployment(ns, "bff", 1, "registry.example/bff:1")
	bff.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "WEB_URL", Value: "http://web:80/api"}}
	return append(o, svc, fx.EndpointSlice(svc, pods...), bff)
}
