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
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Builders for wave 7b: changes a team makes after the first rollout, and cluster-scoped
// objects (removed by Cleanup) that only some scenarios need.

// updateDeployment applies edit to Deployment name, retrying on conflicts with the controller.
func (e *Env) updateDeployment(ctx context.Context, name string, edit func(*appsv1.Deployment)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		edit(d)
		_, err = e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
}

// readyStatefulSet succeeds once StatefulSet name reports n ready replicas.
func readyStatefulSet(ctx context.Context, e *Env, name string, n int32) error {
	s, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if s.Status.ReadyReplicas < n {
		return fmt.Errorf("statefulset %s: %d of %d replicas ready", name, s.Status.ReadyReplicas, n)
	}
	return nil
}

// createPriorityClass creates PriorityClass ClusterName(name) with value, removed by Cleanup.
func (e *Env) createPriorityClass(ctx context.Context, name string, value int32) error {
	pc := &schedulingv1.PriorityClass{
		ObjectMeta:  metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Value:       value,
		Description: "stateless request path: must never wait for capacity",
	}
	if _, err := e.Client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		return wrap("PriorityClass", pc.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.SchedulingV1().PriorityClasses().Delete(ctx, pc.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// createPodWebhook registers ValidatingWebhookConfiguration ClusterName(name) that sends every
// pod creation of the scenario's namespace to Service svc:443 and fails closed (removed by
// Cleanup; only this namespace is matched, so nothing else in the cluster is affected).
func (e *Env) createPodWebhook(ctx context.Context, name, svc string) error {
	scope := admissionregistrationv1.NamespacedScope
	w := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validating-webhook.openpolicyagent.org",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
				Namespace: e.Namespace, Name: svc, Path: ptr.To("/v1/admit"), Port: ptr.To[int32](443)}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope},
			}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](3),
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.Namespace}},
		}},
	}
	if _, err := e.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, w, metav1.CreateOptions{}); err != nil {
		return wrap("ValidatingWebhookConfiguration", w.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, w.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// createExpiredTLSSecret creates a kubernetes.io/tls Secret whose self-signed certificate for
// host expired on 2026-11-24 (valid for a year before), as a forgotten serving cert does.
func (e *Env) createExpiredTLSSecret(ctx context.Context, name, host string) error {
	key, err := newKey()
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(20251124),
		Subject:      pkix.Name{CommonName: host, Organization: []string{"internal"}},
		DNSNames:     []string{host, "ledger"},
		NotBefore:    time.Date(2025, 11, 24, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return e.createTLSSecret(ctx, name, tmpl, key, key)
}

// createHeadless creates headless Service name selecting app=app on the named container port.
func (e *Env) createHeadless(ctx context.Context, name, app, portName string, number int32) error {
	s := service(name, map[string]string{"app": app}, intstr.FromString(portName))
	s.Spec.ClusterIP, s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = corev1.ClusterIPNone, portName, number
	return e.createService(ctx, s)
}
