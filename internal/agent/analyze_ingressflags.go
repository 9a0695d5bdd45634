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

	"github.com/kubage/kubage/internal/tools"
)

// Some ingress-nginx annotations do nothing unless the controller is started for them:
// ssl-passthrough needs --enable-ssl-passthrough, the snippet annotations need
// allow-snippet-annotations: "true" in the controller's ConfigMap (false by default since
// v1.9). The Ingress is accepted and silently served without them: TLS terminated at nginx
// (redirect loops for backends that redirect to HTTPS), snippets dropped. The controller's
// arguments, or its ConfigMap, are the fault.

const nginxAnnotation = "nginx.ingress.kubernetes.io/"

var snippetAnnotations = []string{"configuration-snippet", "server-snippet", "auth-snippet", "stream-snippet"}

// ingressNginxController finds a Deployment or DaemonSet of the namespace running the
// ingress-nginx controller, and its container.
func (e *env) ingressNginxController(ctx context.Context) (ObjectRef, *corev1.Container) {
	isController := func(c *corev1.Container) bool {
		return strings.Contains(c.Image, "ingress-nginx/controller") || strings.Contains(strings.Join(commandLine(*c), " "), "/nginx-ingress-controller")
	}
	var owners []ObjectRef
	var templates []*corev1.PodTemplateSpec
	if ds, err := listOnce[*appsv1.Deployment](ctx, e, "Deployment", scanMaxObjects); err == nil {
		for _, d := range ds {
			owners, templates = append(owners, e.ref("Deployment", d.Name)), append(templates, &d.Spec.Template)
		}
	}
	if ds, err := listOnce[*appsv1.DaemonSet](ctx, e, "DaemonSet", scanMaxObjects); err == nil {
		for _, d := range ds {
			owners, templates = append(owners, e.ref("DaemonSet", d.Name)), append(templates, &d.Spec.Template)
		}
	}
	for i, t := range templates {
		for j := range t.Spec.Containers {
			if c := &t.Spec.Containers[j]; isController(c) {
				return owners[i], c
			}
		}
	}
	return ObjectRef{}, nil
}

// ingressAnnotationsIgnored reports annotations of ing that the namespace's ingress-nginx
// controller is not started to honour.
func (e *env) ingressAnnotationsIgnored(ctx context.Context, ing *networkingv1.Ingress, statusEv string) bool {
	passthrough := strings.EqualFold(ing.Annotations[nginxAnnotation+"ssl-passthrough"], "true")
	var snippets []string
	for _, a := range snippetAnnotations {
		if strings.TrimSpace(ing.Annotations[nginxAnnotation+a]) != "" {
			snippets = append(snippets, nginxAnnotation+a)
		}
	}
	if !passthrough && len(snippets) == 0 {
		return false
	}
	ctrl, c := e.ingressNginxController(ctx)
	if c == nil {
		return false
	}
	iref := e.ref("Ingress", ing.Name)
	args := commandLine(*c)
	if passthrough && !hasFlag(args, "--enable-ssl-passthrough") {
		e.find(Finding{Rule: "ingress-annotation-ignored", Object: iref, Culprit: ctrl, Affected: []ObjectRef{iref}, Evidence: []string{statusEv},
			Facts: map[string]string{"annotation": nginxAnnotation + "ssl-passthrough", "flag": "--enable-ssl-passthrough", "sourceResource": kubectlResource(ctrl)},
			Summary: fmt.Sprintf("Ingress %s sets %sssl-passthrough: \"true\", but %s %s runs the ingress-nginx controller without --enable-ssl-passthrough, so the annotation is ignored: nginx terminates TLS itself and proxies plain HTTP to the backend (a backend that redirects HTTP to HTTPS then loops). Add --enable-ssl-passthrough to the controller's arguments.",
				ing.Name, nginxAnnotation, ctrl.Kind, ctrl.Name)})
		return true
	}
	if len(snippets) == 0 {
		return false
	}
	for _, a := range args {
		name, ok := strings.CutPrefix(a, "--configmap=")
		if !ok {
			continue
		}
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		cm, err := getAs[*corev1.ConfigMap](ctx, e, "ConfigMap", name)
		if err != nil || strings.EqualFold(cm.Data["allow-snippet-annotations"], "true") {
			return false
		}
		cref := e.ref("ConfigMap", cm.Name)
		e.find(Finding{Rule: "ingress-annotation-ignored", Object: iref, Culprit: cref, Affected: []ObjectRef{iref, ctrl}, Evidence: []string{statusEv},
			Facts: map[string]string{"annotation": snippets[0], "flag": "allow-snippet-annotations", "sourceResource": kubectlResource(cref)},
			Summary: fmt.Sprintf("Ingress %s sets %s, but ConfigMap %s of the ingress-nginx controller (%s %s) does not set allow-snippet-annotations: \"true\" (false by default since controller v1.9), so the snippet is not applied. Set it there, or move the configuration out of the snippet.",
				ing.Name, strings.Join(snippets, ", "), cm.Name, ctrl.Kind, ctrl.Name)})
		return true
	}
	return false
}

// hasFlag reports a boolean flag given (bare or =true) among args.
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		for _, f := range strings.Fields(a) {
			if f == flag || strings.EqualFold(f, flag+"=true") {
				return true
			}
		}
	}
	return false
}

// ingressAnnotationValue finds a value in the annotations of the namespace's Ingresses: an
// ingress controller is configured per Ingress by them (auth-url, a canary's or a mirror's
// target), so an address it cannot reach may be written there.
func (pc *podCheck) ingressAnnotationValue(ctx context.Context, needle string) *valueSource {
	ings, err := listOnce[*networkingv1.Ingress](ctx, pc.e, "Ingress", maxServiceList)
	if err != nil {
		return nil
	}
	for _, ing := range ings {
		for _, k := range sortedKeys(ing.Annotations) {
			if v := ing.Annotations[k]; containsToken(v, needle) {
				return &valueSource{ref: pc.e.ref("Ingress", ing.Name), key: k, value: tools.Sanitize(v, 200, true), where: fmt.Sprintf("annotation %s of Ingress %s", k, ing.Name)}
			}
		}
	}
	return nil
}
