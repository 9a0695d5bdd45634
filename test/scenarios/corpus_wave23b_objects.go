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
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Builders for wave 23b: "what the controllers say". The failure shows in the status
// conditions and events the control plane writes (ReplicaFailure, ProgressDeadlineExceeded,
// ScalingActive, FailedCreate, Suspended, FailedScheduling) and the cause is one field of an
// object a user edits.

// Outside sources the wave was written from.
const (
	w23bSrcMinDomains   = "k8s-docs/concepts/scheduling-eviction/topology-spread-constraints.md (minDomains: fewer eligible domains than minDomains makes the global minimum 0); https://github.com/MaterializeInc/materialize/pull/36516 (minDomains above the zones available leaves replicas Pending)"
	w23bSrcRuntimeClass = "k8s-docs/concepts/scheduling-eviction/pod-overhead.md (runtimeClassName names a RuntimeClass object); https://github.com/canonical/microk8s/issues/2359 (pod rejected: RuntimeClass \"runc\" not found: the handler used instead of the class name)"
	w23bSrcLimitMin     = "k8s-docs/concepts/policy/limit-range.md (minimum compute usage per Container); https://github.com/kubernetes/ingress-nginx/issues/5210 (an injected container requesting 10m is refused: minimum cpu usage per Container is 100m, but request is 10m)"
	w23bSrcIstioPSA     = "https://kubernetes.io/docs/concepts/security/pod-security-standards/ (baseline: capabilities beyond the default set are forbidden); k8s-docs/tasks/configure-pod-container/security-context.md; https://github.com/istio/istio/issues/35894 (violates PodSecurity \"baseline:latest\": container \"istio-init\" must not include \"NET_ADMIN\", \"NET_RAW\")"
	w23bSrcHPAZero      = "k8s-docs/tasks/run-application/horizontal-pod-autoscale.md (Implicit maintenance-mode deactivation: a target at 0 replicas turns the HPA off); https://github.com/kedacore/keda/issues/3052 (scaling is disabled since the replica count of the target is zero)"
	w23bSrcJobSuspend   = "k8s-docs/concepts/workloads/controllers/job.md (Suspending a Job); https://github.com/kubernetes-sigs/kueue/issues/8228 (Jobs created with suspend: true for Kueue to admit)"
	w23bSrcPVCQuota     = "k8s-docs/concepts/workloads/controllers/statefulset.md (claims are not deleted with their StatefulSet); k8s-docs/concepts/policy/resource-quotas.md (persistentvolumeclaims count quota); https://github.com/kubernetes/website/pull/30597 (persistentVolumeClaimRetentionPolicy: claims are retained by default)"
	w23bSrcDefaultQuota = "k8s-docs/concepts/policy/resource-quotas.md (LimitRanger forces defaults for pods that request nothing); k8s-docs/concepts/policy/limit-range.md; https://github.com/ministryofjustice/cloud-platform/issues/4490 (LimitRange defaults become every unspecified pod's requests)"
)

// w23bResources is a container's requests (cpu, memory) and limits (cpu, memory).
func w23bResources(cpuReq, memReq, cpuLim, memLim string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpuReq), corev1.ResourceMemory: resource.MustParse(memReq)},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpuLim), corev1.ResourceMemory: resource.MustParse(memLim)},
	}
}

// w23bZoneSpread keeps t on the shared kwok nodes and spreads its pods (lbl) over zones with
// maxSkew 1 and DoNotSchedule; minDomains is left unset when nil.
func w23bZoneSpread(t *corev1.PodTemplateSpec, lbl map[string]string, minDomains *int32) {
	t.Spec.NodeSelector = map[string]string{"type": "kwok"}
	t.Spec.TopologySpreadConstraints = append(t.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: lbl}, MinDomains: minDomains,
	})
}

// w23bRuntimeClass creates RuntimeClass ClusterName(name) for handler, removed by Cleanup.
func (e *Env) w23bRuntimeClass(ctx context.Context, name, handler string) error {
	rc := &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Handler:    handler,
	}
	if _, err := e.Client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
		return wrap("RuntimeClass", rc.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w23bLimitRange creates LimitRange name with one Container item.
func (e *Env) w23bLimitRange(ctx context.Context, name string, item corev1.LimitRangeItem) error {
	item.Type = corev1.LimitTypeContainer
	_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{item}},
	}, metav1.CreateOptions{})
	return wrap("LimitRange", name, err)
}

// w23bCPUMem is a resource list of cpu and memory.
func w23bCPUMem(cpu, memory string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
}

// w23bStatsdSidecar appends the statsd-exporter sidecar a metrics migration adds to a pod,
// with the given requests and limits.
func w23bStatsdSidecar(t *corev1.PodTemplateSpec, res corev1.ResourceRequirements) {
	c := w10aContainer(t, "statsd-exporter", "prom/statsd-exporter:v0.27.1", "metrics", 9102,
		"--statsd.listen-udp=:9125", "--web.listen-address=:9102", "--statsd.mapping-config=/etc/statsd/mapping.yml")
	c.Resources = res
}

// w23bIstioInjected adds what `istioctl kube-inject` (without the Istio CNI plugin) writes into
// a pod template: the istio-init container that programs iptables with NET_ADMIN and NET_RAW,
// and the istio-proxy sidecar.
func w23bIstioInjected(t *corev1.PodTemplateSpec) {
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	t.Annotations["sidecar.istio.io/status"] = `{"initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":["istio-envoy","istio-data","istio-podinfo","istio-token","istiod-ca-cert"]}`
	t.Annotations["kubectl.kubernetes.io/default-container"] = t.Spec.Containers[0].Name
	t.Labels["security.istio.io/tlsMode"] = "istio"
	t.Labels["service.istio.io/canonical-name"] = t.Labels["app.kubernetes.io/name"]
	t.Spec.InitContainers = append(t.Spec.InitContainers, corev1.Container{
		Name: "istio-init", Image: "docker.io/istio/proxyv2:1.22.3",
		Args: []string{"istio-iptables", "-p", "15001", "-z", "15006", "-u", "1337", "-m", "REDIRECT", "-i", "*", "-x", "", "-b", "*", "-d", "15090,15021,15020", "--log_output_level=default:info"},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), Privileged: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(false),
			RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0), RunAsNonRoot: ptr.To(false),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN", "NET_RAW"}, Drop: []corev1.Capability{"ALL"}},
		},
	})
	p := w10aContainer(t, "istio-proxy", "docker.io/istio/proxyv2:1.22.3", "http-envoy-prom", 15090,
		"proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local", "--proxyLogLevel=warning", "--log_output_level=default:info")
	p.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), RunAsUser: ptr.To[int64](1337),
		RunAsGroup: ptr.To[int64](1337), RunAsNonRoot: ptr.To(true), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	p.Env = []corev1.EnvVar{{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		{Name: "ISTIO_META_CLUSTER_ID", Value: "Kubernetes"}, {Name: "PILOT_CERT_PROVIDER", Value: "istiod"}, {Name: "CA_ADDR", Value: "istiod.istio-system.svc:15012"}}
}

// w23bRollOut changes Deployment name's pod template with edit, as a release does.
func (e *Env) w23bRollOut(ctx context.Context, name string, edit func(t *corev1.PodTemplateSpec)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		edit(&d.Spec.Template)
		_, err = e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
}

// w23bOnce runs step once per scenario (key in e.State) after ready holds, then checks rest.
func w23bOnce(key string, ready func(context.Context, *Env) error, step func(context.Context, *Env) error,
	rest func(context.Context, *Env) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		if e.State[key] == "" {
			if err := ready(ctx, e); err != nil {
				return err
			}
			if err := step(ctx, e); err != nil {
				return err
			}
			e.State[key] = "done"
		}
		return rest(ctx, e)
	}
}

// w23bQuotaCounted succeeds once the quota controller has counted every resource of quota
// name: before that, admission refuses what the quota covers with "status unknown for quota".
func w23bQuotaCounted(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		q, err := e.Client.CoreV1().ResourceQuotas(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for k := range q.Spec.Hard {
			if _, ok := q.Status.Used[k]; !ok {
				return fmt.Errorf("quota %s has not counted %s yet", name, k)
			}
		}
		return nil
	}
}

// w23bHPAReason succeeds once HPA name reports condition t False with reason.
func w23bHPAReason(name string, t autoscalingv2.HorizontalPodAutoscalerConditionType, reason string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		h, err := e.Client.AutoscalingV2().HorizontalPodAutoscalers(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range h.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionFalse && c.Reason == reason {
				return nil
			}
		}
		return fmt.Errorf("HPA %s has no %s=False %s yet", name, t, reason)
	}
}

// w23bCronRun succeeds once a Job of CronJob cron has condition cond True.
func w23bCronRun(cron string, cond batchv1.JobConditionType) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.BatchV1().Jobs(e.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, j := range l.Items {
			owned := false
			for _, o := range j.OwnerReferences {
				owned = owned || (o.Kind == "CronJob" && o.Name == cron)
			}
			for _, c := range j.Status.Conditions {
				if owned && c.Type == cond && c.Status == corev1.ConditionTrue {
					return nil
				}
			}
		}
		return fmt.Errorf("no Job of CronJob %s is %s yet", cron, cond)
	}
}

// w23bEvent succeeds once an event about kind/name has reason and contains text.
func w23bEvent(kind, name, reason, text string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Events(e.Namespace).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name + ",reason=" + reason})
		if err != nil {
			return err
		}
		for _, ev := range l.Items {
			if strings.Contains(ev.Message, text) {
				return nil
			}
		}
		return errors.New("no " + reason + " event on " + kind + "/" + name + " with " + fmt.Sprintf("%q", text) + " yet")
	}
}
