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

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// A Service without a selector gets the endpoints someone writes by hand: an EndpointSlice
// labelled kubernetes.io/service-name=<service>, or an Endpoints object of the Service's own
// name (mirrored into a slice). When it has none, the likely fault is the hand-written object
// that was meant for it and does not attach: a slice labelled with another name (or none), or
// Endpoints under another name. That object is the one to fix.

// strayEndpoints looks for the hand-written endpoints meant for svc that do not attach to it.
// It returns the object, what is wrong with it, and ok; ok is false when nothing looks meant
// for the Service.
func (e *env) strayEndpoints(ctx context.Context, svc *corev1.Service) (ObjectRef, string, bool) {
	slices, err := listOnce[*discoveryv1.EndpointSlice](ctx, e, "EndpointSlice", 2000)
	if err != nil {
		return ObjectRef{}, "", false
	}
	var es *discoveryv1.EndpointSlice
	for _, s := range slices {
		owner := s.Labels[discoveryv1.LabelServiceName]
		if owner == svc.Name {
			continue
		}
		// A slice named after the Service, or labelled with a name close to it, was meant for it.
		if strings.HasPrefix(s.Name, svc.Name) || owner != "" && closestName(svc.Name, []string{owner}) != "" {
			es = s
			break
		}
	}
	if es != nil {
		label := "has no kubernetes.io/service-name label"
		if v := es.Labels[discoveryv1.LabelServiceName]; v != "" {
			label = fmt.Sprintf("is labelled kubernetes.io/service-name=%s", v)
		}
		return e.ref("EndpointSlice", es.Name), fmt.Sprintf("EndpointSlice %s holds %s but %s, so Service %s, which has no selector, does not use it: label the slice kubernetes.io/service-name=%s",
			es.Name, sliceAddresses(es), label, svc.Name, svc.Name), true
	}
	eps, err := listOnce[*corev1.Endpoints](ctx, e, "Endpoints", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	var epNames []string
	for _, ep := range eps {
		if ep.Name == svc.Name {
			if !hasAddresses(ep) {
				return e.ref("Endpoints", ep.Name), fmt.Sprintf("Endpoints %s, written by hand for Service %s, which has no selector, list no ready address", ep.Name, svc.Name), true
			}
			continue
		}
		epNames = append(epNames, ep.Name)
	}
	if near := closestName(svc.Name, epNames); near != "" {
		return e.ref("Endpoints", near), fmt.Sprintf("Endpoints %s look meant for Service %s, which has no selector, but Endpoints attach only to the Service of the same name: rename them %s (or the Service)", near, svc.Name, svc.Name), true
	}
	return ObjectRef{}, "", false
}

// sliceAddresses renders a slice's endpoints as "10.0.0.5:8080" (at most three).
func sliceAddresses(es *discoveryv1.EndpointSlice) string {
	port := ""
	if len(es.Ports) > 0 && es.Ports[0].Port != nil {
		port = fmt.Sprintf(":%d", *es.Ports[0].Port)
	}
	var out []string
	for _, ep := range es.Endpoints {
		for _, a := range ep.Addresses {
			if len(out) < 3 {
				out = append(out, a+port)
			}
		}
	}
	if len(out) == 0 {
		return "no endpoints"
	}
	return "endpoints " + strings.Join(out, ", ")
}

// hasAddresses reports whether hand-written Endpoints list a ready address.
func hasAddresses(ep *corev1.Endpoints) bool { //nolint:staticcheck // hand-written Endpoints are what selectorless Services use
	for _, s := range ep.Subsets {
		if len(s.Addresses) > 0 {
			return true
		}
	}
	return false
}

// selectorlessFinding reports a selectorless Service without endpoints, blaming the stray
// hand-written endpoints when there are some; it returns the culprit.
func (e *env) selectorlessFinding(ctx context.Context, svc *corev1.Service, evIDs []string) (ObjectRef, string) {
	sref := e.ref("Service", svc.Name)
	culprit, why, ok := e.strayEndpoints(ctx, svc)
	summary := fmt.Sprintf("Service %s has no selector and no endpoints, so it sends traffic nowhere: no EndpointSlice labelled kubernetes.io/service-name=%s and no Endpoints named %s exist.", svc.Name, svc.Name, svc.Name)
	f := Finding{Rule: "service-no-endpoints", Object: sref, Culprit: sref, Evidence: evIDs, Facts: map[string]string{"service": svc.Name}}
	if ok {
		summary = fmt.Sprintf("Service %s has no endpoints: %s.", svc.Name, why)
		f.Culprit, f.Affected = culprit, []ObjectRef{sref}
		f.Evidence = append(f.Evidence, e.objEvidence(culprit, why))
	} else {
		culprit = sref
	}
	f.Summary = summary
	e.find(f)
	return culprit, summary
}

// slicePortUnnamed finds, for a selectorless Service, a Service port that no port of its
// hand-written EndpointSlices carries by name: kube-proxy pairs a Service port with the
// slice ports of the same name ("" with ""), so a slice written with an unnamed port (or
// another name) gives a named Service port no endpoints, and connections to it are refused.
func slicePortUnnamed(svc *corev1.Service, slices []*discoveryv1.EndpointSlice) (*discoveryv1.EndpointSlice, corev1.ServicePort, bool) {
	if len(svc.Spec.Selector) > 0 || len(slices) == 0 {
		return nil, corev1.ServicePort{}, false
	}
	for _, sp := range svc.Spec.Ports {
		found := false
		for _, es := range slices {
			for _, p := range es.Ports {
				if ptrOr(p.Name, "") == sp.Name {
					found = true
				}
			}
		}
		if !found {
			return slices[0], sp, true
		}
	}
	return nil, corev1.ServicePort{}, false
}

// slicePortNames describes the names a slice gives its ports.
func slicePortNames(es *discoveryv1.EndpointSlice) string {
	var out []string
	for _, p := range es.Ports {
		port := "?"
		if p.Port != nil {
			port = fmt.Sprint(*p.Port)
		}
		out = append(out, fmt.Sprintf("%s named %q", port, ptrOr(p.Name, "")))
	}
	if len(out) == 0 {
		return "no ports"
	}
	return strings.Join(clipList(out, 4), ", ")
}

// slicePortFinding reports a selectorless Service whose slices do not name its port; it
// returns the slice to fix.
func (e *env) slicePortFinding(svc *corev1.Service, slices []*discoveryv1.EndpointSlice, evIDs []string) (ObjectRef, bool) {
	es, sp, ok := slicePortUnnamed(svc, slices)
	if !ok {
		return ObjectRef{}, false
	}
	sref, eref := e.ref("Service", svc.Name), e.ref("EndpointSlice", es.Name)
	why := fmt.Sprintf("EndpointSlice %s lists port %s, but Service %s's port %d is named %q; endpoints attach to a Service port by its name, so that port has no endpoints and connections to it are refused", es.Name, slicePortNames(es), svc.Name, sp.Port, sp.Name)
	e.find(Finding{Rule: "service-no-endpoints", Object: sref, Culprit: eref, Affected: []ObjectRef{sref}, Evidence: append(evIDs, e.objEvidence(eref, why)),
		Facts:   map[string]string{"service": svc.Name},
		Summary: fmt.Sprintf("Service %s has no selector, and no endpoints for port %d: %s. Name the slice's port %q.", svc.Name, sp.Port, why, sp.Name)})
	return eref, true
}
