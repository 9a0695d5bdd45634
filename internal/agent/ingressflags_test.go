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

package agent_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A controller started for what the Ingress asks (--enable-ssl-passthrough, snippets
// allowed) is no fault.
func TestIngressAnnotationsTheControllerHonours(t *testing.T) {
	pt := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "argocd", Namespace: ns, Annotations: map[string]string{
		"nginx.ingress.kubernetes.io/ssl-passthrough": "true", "nginx.ingress.kubernetes.io/server-snippet": "location /x { return 404; }"}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "argocd.example", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "argocd", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}
	ctrl := fx.Deployment(ns, "ingress-nginx-controller", 1, "registry.k8s.io/ingress-nginx/controller:v1.11.3")
	ctrl.Spec.Template.Spec.Containers[0].Args = []string{"/nginx-ingress-controller", "--enable-ssl-passthrough", "--configmap=$(POD_NAMESPACE)/ingress-nginx-controller"}
	cm := fx.ConfigMap(ns, "ingress-nginx-controller")
	cm.Data["allow-snippet-annotations"] = "true"
	o := app("argocd", 1, nil, nil)
	o = append(o, ing, fx.Service(ns, "argocd", map[string]string{"app": "argocd"}, intstr.FromString("http")), ctrl, cm, fx.Node("node-1"))
	e := engine(o...)
	e.Logs = logBook{}.source()
	s := sessionFor("argocd loops")
	s.Target = &agent.Target{Kind: "Ingress", Name: "argocd"}
	if rc := drive(t, e, s).RootCause; rc.Rule == "ingress-annotation-ignored" {
		t.Errorf("a controller started for the annotations was blamed: %s", rc.Summary)
	}
}

// A host the ingress controller cannot resolve, written in an Ingress's annotation (auth-url
// to a namespace that does not exist), names that Ingress and annotation.
func TestIngressAnnotationHostUnresolved(t *testing.T) {
	pt := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "dashboards", Namespace: ns, Annotations: map[string]string{
		"nginx.ingress.kubernetes.io/auth-url": "http://sso-proxy.identity.svc.cluster.local/oauth2/auth", "nginx.ingress.kubernetes.io/proxy-body-size": "8m"}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "dashboards.example", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "dashboards", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}
	o := app("dashboards", 1, nil, nil)
	o = append(o, app("ingress-nginx-controller", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Image = "registry.k8s.io/ingress-nginx/controller:v1.11.3"
		s.Containers[0].Args = []string{"/nginx-ingress-controller", "--publish-service=$(POD_NAMESPACE)/ingress-nginx-controller"}
	}, nil)...)
	o = append(o, app("sso-proxy", 1, nil, nil)...)
	o = append(o, ing, svcAt("dashboards", "10.96.0.60", map[string]string{"app": "dashboards"}, 80), svcAt("sso-proxy", "10.96.0.61", map[string]string{"app": "sso-proxy"}, 80),
		svcAt("ingress-nginx-controller", "10.96.0.62", map[string]string{"app": "ingress-nginx-controller"}, 80), fx.Node("node-1"))
	e := engine(o...)
	e.Logs = logBook{"ingress-nginx-controller-": strings.Repeat(`2026/11/28 10:00:00 [error] 31#31: *2204 sso-proxy.identity.svc.cluster.local could not be resolved (3: Host not found), client: 10.244.0.1, server: dashboards.example, request: "GET / HTTP/2.0", subrequest: "/_external-auth-Lw-Prefix", host: "dashboards.example"`+"\n", 3)}.source()
	s := sessionFor("dashboards.example returns 500 Internal Server Error before the SSO login page even appears")
	s.Target = &agent.Target{Kind: "Ingress", Name: "dashboards"}
	rc := drive(t, e, s).RootCause
	var aff []string
	for _, r := range rc.AffectedObjects {
		aff = append(aff, r.Kind+"/"+r.Name)
	}
	if !contains(aff, "Ingress/dashboards") || !strings.Contains(rc.Summary, "auth-url") {
		t.Errorf("got %s on %v %v: %s", rc.Rule, rc.Culprit, aff, rc.Summary)
	}
}
