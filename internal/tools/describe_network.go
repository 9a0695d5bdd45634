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

package tools

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

func describeService(b *summaryBuilder, s *corev1.Service) {
	var ports []string
	for _, p := range s.Spec.Ports {
		ports = append(ports, fmt.Sprintf("%s %d→%s/%s", orNone(p.Name), p.Port, p.TargetPort.String(), p.Protocol))
	}
	sel := "<none>"
	if len(s.Spec.Selector) > 0 {
		sel = LabelsString(s.Spec.Selector)
	}
	b.s.Status = fmt.Sprintf("%s %s, selector %s, ports %s", s.Spec.Type, orNone(s.Spec.ClusterIP), sel, strings.Join(ports, ", "))
	if s.Spec.ExternalName != "" {
		b.field("externalName", "%s", s.Spec.ExternalName)
	}
}

// IngressBackend is one Service backend of an Ingress.
type IngressBackend struct {
	Host, Path, Service, PortName string
	PortNumber                    int32
}

func (b IngressBackend) String() string {
	port := b.PortName
	if port == "" {
		port = strconv.Itoa(int(b.PortNumber))
	}
	return fmt.Sprintf("%s%s→%s:%s", orNone(b.Host), b.Path, b.Service, port)
}

// IngressBackends lists every Service backend of an Ingress (default backend included).
func IngressBackends(ing *networkingv1.Ingress) []IngressBackend {
	var out []IngressBackend
	add := func(host, path string, be *networkingv1.IngressBackend) {
		if be == nil || be.Service == nil {
			return
		}
		out = append(out, IngressBackend{Host: host, Path: path, Service: be.Service.Name, PortName: be.Service.Port.Name, PortNumber: be.Service.Port.Number})
	}
	add("", "", ing.Spec.DefaultBackend)
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			add(r.Host, p.Path, &p.Backend)
		}
	}
	return out
}
