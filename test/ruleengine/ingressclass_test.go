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
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// An Ingress that names no class while no IngressClass is the default is a weak finding:
// IngressClasses are cluster-wide (another team's class makes it true of every class-less
// Ingress) and some controllers serve Ingresses without a class. Backends that crash
// explain what users see; the class is no more than a remark then.
func TestClasslessIngressYieldsToWhatIsWrongBehindIt(t *testing.T) {
	otherTeams := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "internal-nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	for _, tc := range []struct {
		name string
		objs func() []runtime.Object
	}{
		{name: "backends crash", objs: func() []runtime.Object {
			svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
			_, _, o := webApp(2, func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 6) })
			return append(o, ingress("shop", "web", 80), svc, otherTeams)
		}},
		{name: "backend port not on the Service", objs: func() []runtime.Object {
			svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
			_, _, o := webApp(1, nil)
			return append(o, ingress("shop", "web", 8080), svc, fx.EndpointSlice(svc, o[4].(*corev1.Pod)), otherTeams)
		}},
	} {
		for _, target := range []*agent.Target{nil, {Kind: "Ingress", Name: "shop"}} {
			s := agent.Session{ID: "t", Problem: "shop.example returns 503", Namespace: ns, Target: target}
			c, _, err := runSession(context.Background(), engine(tc.objs()...), s, agent.Budget{})
			if err != nil {
				t.Fatalf("session: %v", err)
			}
			if rc := c.RootCause; rc.Rule == "ingress-class-missing" {
				t.Errorf("%s, target %v: the class-less Ingress outranked it: %s", tc.name, target, rc.Summary)
			}
		}
	}
}
