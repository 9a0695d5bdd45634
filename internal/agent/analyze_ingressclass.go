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

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubage/kubage/internal/tools"
)

// An ingress controller serves the Ingresses of its IngressClass (and, for the class marked
// default, those that name none). An Ingress that names a class no one defines is served by
// nobody: it gets no address and its hosts 404 or do not resolve, while every Service behind
// it is healthy. An Ingress that names none while no class is the default is not claimed:
// IngressClasses are cluster-wide (another team's class would make that true of every
// class-less Ingress) and many controllers are configured to serve Ingresses without a class;
// blaming it outranked what was really wrong behind such Ingresses.

// ingressClassAnnotation is the pre-1.18 way to name the class, still honoured by controllers.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// ingressClass reports an Ingress no controller serves because of its class; false when the
// class exists (or the classes cannot be read: nothing is claimed then).
func (e *env) ingressClass(ctx context.Context, ing *networkingv1.Ingress, statusEv string) bool {
	classes, err := listOnce[*networkingv1.IngressClass](ctx, e, "IngressClass", 100)
	if err != nil {
		return false
	}
	var names []string
	for _, c := range classes {
		names = append(names, c.Name)
	}
	iref := e.ref("Ingress", ing.Name)
	have := orDefault(strings.Join(names, ", "), "none")
	facts := map[string]string{"classes": have, "ingress": ing.Name, "class": "<class>"}
	name, field := "", "spec.ingressClassName"
	if ing.Spec.IngressClassName != nil {
		name = *ing.Spec.IngressClassName
	} else if a := ing.Annotations[ingressClassAnnotation]; a != "" {
		name, field = a, "annotation "+ingressClassAnnotation
	}
	if name == "" {
		return false
	}
	for _, n := range names {
		if n == name {
			return false
		}
	}
	if len(classes) == 0 {
		// No class at all: either no controller runs here or the classes are out of sight.
		if _, err := e.get(ctx, "IngressClass", name); !tools.IsNotFound(err) {
			return false
		}
	}
	cref := ObjectRef{Kind: "IngressClass", Name: name}
	facts["class"] = name
	summary := fmt.Sprintf("Ingress %s names IngressClass %s (%s), which does not exist, so no ingress controller serves it: it gets no address and its hosts are not routed (IngressClasses: %s).", ing.Name, name, field, have)
	if near := closestName(name, names); near != "" {
		summary += fmt.Sprintf(" IngressClass %s exists: if the name is a typo, fix it in Ingress %s.", near, ing.Name)
		facts["closest"] = near
	}
	e.find(Finding{Rule: "ingress-class-missing", Object: iref, Culprit: cref, Affected: []ObjectRef{iref}, Evidence: []string{statusEv}, Facts: facts, Summary: summary})
	return true
}
