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

package agent

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/tools"
)

func init() {
	analyzers["ingress"] = analyzeIngress
}

func analyzeIngress(ctx context.Context, e *env, ref ObjectRef) error {
	ing, err := getAs[*networkingv1.Ingress](ctx, e, "Ingress", ref.Name)
	if err != nil {
		return e.missingTarget(ObjectRef{Kind: "Ingress", Name: ref.Name}, err)
	}
	iref := e.ref("Ingress", ing.Name)
	statusEv := e.objEvidence(iref, "Ingress "+ing.Name+": "+tools.Summarize(ing, e.now).Status)
	e.ingressTLS(ctx, ing, statusEv)
	e.ingressClass(ctx, ing, statusEv)
	e.ingressAnnotationsIgnored(ctx, ing, statusEv)
	for i, be := range tools.IngressBackends(ing) {
		if i >= 20 {
			break
		}
		svc, err := getAs[*corev1.Service](ctx, e, "Service", be.Service)
		sref := e.ref("Service", be.Service)
		if tools.IsNotFound(err) {
			e.find(Finding{Rule: "ingress-backend-missing", Object: iref, Culprit: iref, Affected: []ObjectRef{sref}, Evidence: []string{statusEv},
				Facts:   map[string]string{"service": be.Service},
				Summary: fmt.Sprintf("Ingress %s routes %s to Service %s, which does not exist in %s.", ing.Name, be.String(), be.Service, e.s.Namespace)})
			continue
		}
		if err != nil {
			return err
		}
		if !servicePortExists(svc, be) {
			var ports []string
			for _, p := range svc.Spec.Ports {
				ports = append(ports, fmt.Sprintf("%s:%d", orDefault(p.Name, "-"), p.Port))
			}
			e.find(Finding{Rule: "ingress-backend-port-mismatch", Object: iref, Culprit: iref, Affected: []ObjectRef{sref}, Evidence: []string{statusEv},
				Facts:   map[string]string{"servicePorts": strings.Join(ports, ", "), "service": be.Service},
				Summary: fmt.Sprintf("Ingress %s routes %s to a port Service %s does not have (its ports: %s).", ing.Name, be.String(), be.Service, strings.Join(ports, ", "))})
			continue
		}
		e.followUp(sref)
	}
	// The controller serving the Ingress says in its own log what it cannot do for it (an
	// auth-url it cannot resolve, an upstream it cannot reach): one of its pods is read next.
	if p := e.ingressControllerPod(ctx); p != nil {
		e.followUp(e.ref("Pod", p.Name))
	}
	e.followControllers(ctx, iref, ing.Annotations)
	return nil
}

// ingressControllerPod is a Ready pod of the namespace's ingress-nginx controller, if any.
func (e *env) ingressControllerPod(ctx context.Context) *corev1.Pod {
	ctrl, c := e.ingressNginxController(ctx)
	if c == nil {
		return nil
	}
	var sel *metav1.LabelSelector
	switch ctrl.Kind {
	case "Deployment":
		if d, err := getAs[*appsv1.Deployment](ctx, e, "Deployment", ctrl.Name); err == nil {
			sel = d.Spec.Selector
		}
	case "DaemonSet":
		if d, err := getAs[*appsv1.DaemonSet](ctx, e, "DaemonSet", ctrl.Name); err == nil {
			sel = d.Spec.Selector
		}
	}
	if pods := e.podsReadyFirst(ctx, sel); len(pods) > 0 && isReady(pods[0]) {
		return pods[0]
	}
	return nil
}

func servicePortExists(svc *corev1.Service, be tools.IngressBackend) bool {
	for _, p := range svc.Spec.Ports {
		if (be.PortName != "" && p.Name == be.PortName) || (be.PortName == "" && p.Port == be.PortNumber) {
			return true
		}
	}
	return false
}

// ingressTLS reports an Ingress whose TLS section names a Secret that does not exist: the
// controller then serves its default certificate (or refuses the host).
func (e *env) ingressTLS(ctx context.Context, ing *networkingv1.Ingress, statusEv string) {
	iref := e.ref("Ingress", ing.Name)
	for i, t := range ing.Spec.TLS {
		if i >= 5 || t.SecretName == "" {
			continue
		}
		if obj, err := e.get(ctx, "Secret", t.SecretName); !tools.IsNotFound(err) {
			if sec, ok := obj.(*corev1.Secret); ok && err == nil && e.ingressCertExpired(ctx, ing, t, sec, statusEv) {
				return
			}
			continue
		}
		sref := e.ref("Secret", t.SecretName)
		e.find(Finding{Rule: "ingress-tls-secret-missing", Object: iref, Culprit: sref, Affected: []ObjectRef{iref}, Evidence: []string{statusEv},
			Facts: map[string]string{"secret": t.SecretName, "hosts": strings.Join(t.Hosts, ",")},
			Summary: fmt.Sprintf("Ingress %s serves TLS for %s with Secret %s, which does not exist, so clients get the controller's default certificate (or no TLS) for those hosts.", ing.Name, orDefault(strings.Join(t.Hosts, ", "), "its hosts"), t.SecretName) +
				e.issuerNote(ctx, ing)})
		return
	}
}

// issuerAnnotations ask cert-manager to issue an Ingress's TLS Secrets.
var issuerAnnotations = []string{"cert-manager.io/cluster-issuer", "cert-manager.io/issuer"}

// issuerNote says, for an Ingress whose TLS Secret is missing, which issuer it asks
// cert-manager to write that Secret, and which one an Ingress of the namespace whose TLS
// Secret does exist names instead: a renamed or never-created issuer leaves the Secret
// unwritten, and cert-manager says so only in its own log and the Certificate's status.
func (e *env) issuerNote(ctx context.Context, ing *networkingv1.Ingress) string {
	key, name := "", ""
	for _, k := range issuerAnnotations {
		if v := ing.Annotations[k]; v != "" {
			key, name = k, tools.Sanitize(v, 253, true)
			break
		}
	}
	if key == "" {
		return ""
	}
	note := fmt.Sprintf(" It asks cert-manager for the certificate (annotation %s: %s), so the Secret exists only once that issuer has issued it", key, name)
	others, err := listOnce[*networkingv1.Ingress](ctx, e, "Ingress", maxServiceList)
	if err == nil {
		for _, o := range others {
			v := o.Annotations[key]
			if o.Name == ing.Name || v == "" || v == ing.Annotations[key] || len(o.Spec.TLS) == 0 || o.Spec.TLS[0].SecretName == "" {
				continue
			}
			if _, err := e.get(ctx, "Secret", o.Spec.TLS[0].SecretName); err != nil {
				continue
			}
			return note + fmt.Sprintf("; Ingress %s, whose TLS Secret %s exists, names %s instead: check that %s exists (kubectl get %s) and what the Certificate for %s reports.",
				o.Name, o.Spec.TLS[0].SecretName, tools.Sanitize(v, 253, true), name, issuerKind(key), ing.Name)
		}
	}
	return note + fmt.Sprintf(": check that %s exists (kubectl get %s) and what the Certificate for %s reports.", name, issuerKind(key), ing.Name)
}

// issuerKind is the cert-manager kind an issuer annotation names.
func issuerKind(annotation string) string {
	if strings.HasSuffix(annotation, "cluster-issuer") {
		return "clusterissuer"
	}
	return "issuer"
}
