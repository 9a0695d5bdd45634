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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/tools"
)

// A Service whose numeric targetPort no container listens on still has ready endpoints: the
// pods pass their own probes on their own port, the EndpointSlice lists them, and only the
// clients see the failure (refused connections, an Ingress answering 502). The namespace scan
// cannot find it by counting endpoints, so it checks the Services an Ingress sends traffic to.

// targetPortServed reports whether pod p serves the targetPort of Service port sp: a named
// targetPort must name one of its container ports; a number is judged only when the pod
// declares ports at all (declaring them is optional).
func targetPortServed(sp corev1.ServicePort, p *corev1.Pod) bool {
	tp := sp.TargetPort
	switch {
	case tp.Type == intstr.String && tp.StrVal != "":
		return namedPortExists(p, tp.StrVal)
	case tp.Type == intstr.Int:
		port := tp.IntVal
		if port == 0 {
			port = sp.Port
		}
		declared := false
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.ContainerPort == port {
					return true
				}
				declared = true
			}
		}
		return !declared
	}
	return true
}

// backendPortUnserved reports whether the Service port an Ingress backend addresses sends
// traffic to a targetPort that none of the Service's ready pods (among pods) serves. A
// backend whose Service lacks the port, or whose Service selects no ready pod, is judged
// elsewhere and reported false here.
func backendPortUnserved(svc *corev1.Service, be tools.IngressBackend, pods []*corev1.Pod) bool {
	if len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName {
		return false
	}
	var sp *corev1.ServicePort
	for i, p := range svc.Spec.Ports {
		if (be.PortName != "" && p.Name == be.PortName) || (be.PortName == "" && p.Port == be.PortNumber) {
			sp = &svc.Spec.Ports[i]
			break
		}
	}
	if sp == nil {
		return false
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	readyPods := 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil || !isReady(p) || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		readyPods++
		if targetPortServed(*sp, p) {
			return false
		}
	}
	return readyPods > 0
}

// protocolOf is a port's protocol, TCP when unset.
func protocolOf(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

// protocolUnserved finds a port of svc whose targetPort the pod declares only with another
// protocol (a Service port left at the default TCP in front of a UDP listener, a statsd or
// syslog receiver): kube-proxy forwards the Service's protocol only, so the clients' packets
// never reach the container. It returns the Service port, the container port and its container.
func protocolUnserved(svc *corev1.Service, p *corev1.Pod) (*corev1.ServicePort, corev1.ContainerPort, string) {
	for i, sp := range svc.Spec.Ports {
		tp := sp.TargetPort
		same, found := false, false
		var other corev1.ContainerPort
		var in string
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				hit := tp.Type == intstr.String && tp.StrVal != "" && cp.Name == tp.StrVal ||
					tp.Type == intstr.Int && (cp.ContainerPort == tp.IntVal || tp.IntVal == 0 && cp.ContainerPort == sp.Port)
				switch {
				case !hit:
				case protocolOf(cp.Protocol) == protocolOf(sp.Protocol):
					same = true
				default:
					found, other, in = true, cp, c.Name
				}
			}
		}
		if !same && found {
			return &svc.Spec.Ports[i], other, in
		}
	}
	return nil, corev1.ContainerPort{}, ""
}

// firstSelected is the first pod of pods that svc selects and that is not being deleted.
func firstSelected(svc *corev1.Service, pods []*corev1.Pod) *corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	for _, p := range pods {
		if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) {
			return p
		}
	}
	return nil
}
