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
	"testing"

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
