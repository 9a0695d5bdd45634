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
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Wave 16b builders: a mutating webhook registration, a leader-election Lease kept renewed by
// a leftover operator, and a DNS Service on a fixed ClusterIP.

const (
	w16bSrcFluentBitES8   = "https://github.com/fluent/fluent-bit/issues/4825 (Elasticsearch output fails with ES 8: 'Action/metadata line [1] contains an unknown parameter [_type]'; enable Suppress_Type_Name)"
	w16bSrcAMv1Gone       = "https://github.com/thanos-io/thanos/issues/7208 (bad response status 410 Gone from .../api/v1/alerts; Alertmanager 'v1 API received a request on a removed endpoint'); https://github.com/prometheus/alertmanager/pull/3609 (Remove APIv1)"
	w16bSrcGrafanaSidecar = "kiwigrid k8s-sidecar README (LABEL / LABEL_VALUE select the ConfigMaps to collect); Grafana helm chart sidecar.dashboards.label grafana_dashboard, labelValue \"1\""
	w16bSrcPromRBAC       = "k8s-docs/reference/access-authn-authz/rbac.md; Prometheus docs, kubernetes_sd_config role endpoints (needs list/watch on endpoints, services, pods)"
	w16bSrcOtelLocalhost  = "https://github.com/open-telemetry/opentelemetry-collector-contrib/issues/33896 (OTLP receivers fail with 0.104.0: default endpoint changed from 0.0.0.0 to localhost)"
	w16bSrcCoreDNSLoop    = "https://github.com/coredns/coredns/issues/2087 (plugin/loop: loop detected with systemd-resolved 127.0.0.53 in /etc/resolv.conf); https://coredns.io/plugins/loop#troubleshooting"
	w16bSrcWebhookCerts   = "k8s-docs/reference/access-authn-authz/extensible-admission-controllers.md (failurePolicy Fail); controller-runtime webhook server: 'open /tmp/k8s-webhook-server/serving-certs/tls.crt: no such file or directory'"
	w16bSrcLeaderLease    = "k8s-docs/concepts/architecture/leases.md (leader election with Lease objects); client-go leaderelection 'lock is held by ... and has not yet expired'"
	w16bSrcVaultAuthPath  = "Vault docs, Agent auto-auth Kubernetes method: mount_path (default auth/kubernetes); Vault API error 'no handler for route ... route entry not found' for a path no auth method is mounted at"
	w16bSrcAutoscalerMax  = "cluster-autoscaler FAQ (How can I scale a node group to 0? / --nodes=<min>:<max>:<name>); cluster-autoscaler scale-up orchestrator: 'Skipping node group %s - max size reached', 'No expansion options'"
	w16bSrcNginxBodySize  = "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/#custom-max-body-size (nginx.ingress.kubernetes.io/proxy-body-size; 413 Request Entity Too Large); nginx.org/* annotations belong to F5 NGINX Ingress Controller"
)

// w16bPodWebhook registers a mutating webhook for pod creation in the scenario's namespace
// (failurePolicy Fail), served by Service svc on 443 at path, skipping pods labelled
// skipKey=true (the webhook's own pods and anything that opts out).
func (e *Env) w16bPodWebhook(ctx context.Context, name, hook, svc, path, skipKey string) error {
	scope := admissionregistrationv1.NamespacedScope
	w := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: hook,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
				Namespace: e.Namespace, Name: svc, Path: ptr.To(path), Port: ptr.To[int32](443)}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope},
			}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](3),
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.Namespace}},
			ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: skipKey, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"true"}}}},
		}},
	}
	if _, err := e.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, w, metav1.CreateOptions{}); err != nil {
		return wrap("MutatingWebhookConfiguration", w.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, w.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w16bHoldLease plays a running controller-runtime manager that holds leader Lease name: in the
// background it takes the first running pod labelled lbl as the holder (<pod>_<uuid>) and
// renews the Lease every 2 s, as the leader's client-go does, until the scenario ends.
func (e *Env) w16bHoldLease(name string, lbl map[string]string) {
	ctx := e.bg
	go func() {
		acquired := metav1.NewMicroTime(time.Now())
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			if pods, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, w15cSelect(lbl)); err == nil {
				for _, p := range pods.Items {
					if p.Status.Phase != corev1.PodRunning {
						continue
					}
					e.w16bRenew(ctx, name, p.Name+"_3b1f0e52-9a4d-4c6e-8f21-7d0a5b3c9e14", acquired)
					break
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// w16bRenew creates or renews Lease name for holder.
func (e *Env) w16bRenew(ctx context.Context, name, holder string, acquired metav1.MicroTime) {
	leases := e.Client.CoordinationV1().Leases(e.Namespace)
	now := metav1.NewMicroTime(time.Now())
	l, err := leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, _ = leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To[int32](15),
				AcquireTime: &acquired, RenewTime: &now, LeaseTransitions: ptr.To[int32](0)}}, metav1.CreateOptions{})
		return
	}
	if err != nil {
		return
	}
	l.Spec.HolderIdentity, l.Spec.RenewTime = ptr.To(holder), &now
	_, _ = leases.Update(ctx, l, metav1.UpdateOptions{})
}

// w16bDNSService is a DNS Service on 53/UDP and 53/TCP at a fixed ClusterIP.
func w16bDNSService(name string, sel map[string]string, ip string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: sel},
		Spec: corev1.ServiceSpec{Selector: sel, ClusterIP: ip, Ports: []corev1.ServicePort{
			{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromString("dns")},
			{Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("dns-tcp")},
		}}}
}

// w16bDNSPorts gives the first container of t the DNS ports the Service targets.
func w16bDNSPorts(t *corev1.PodTemplateSpec) {
	t.Spec.Containers[0].Ports = []corev1.ContainerPort{
		{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
		{Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP},
		{Name: "metrics", ContainerPort: 9153},
	}
}
