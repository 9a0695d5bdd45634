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
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A client that balances on its own (gRPC, Kafka, Cassandra, a headless Service) quotes a
// pod's IP, not a ClusterIP: "dial tcp 10.244.3.9:5432: i/o timeout". The IP is matched to
// the pod that holds it, and the walk goes on through the Service that selects that pod, on
// the Service port that sends to the quoted container port.

// podByIP is the pod of the namespace holding ip (nil when none does).
func (e *env) podByIP(ctx context.Context, ip string) *corev1.Pod {
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return nil
	}
	for _, p := range pods {
		if p.Status.PodIP == ip && !p.Spec.HostNetwork {
			return p
		}
		for _, x := range p.Status.PodIPs {
			if x.IP == ip && !p.Spec.HostNetwork {
				return p
			}
		}
	}
	return nil
}

// followPodIP walks the provider behind a pod IP the text names.
func (pc *podCheck) followPodIP(ctx context.Context, d *depCheck, h HostPort, svcs []*corev1.Service) bool {
	e := pc.e
	p := e.podByIP(ctx, h.Host)
	if p == nil || p.Name == pc.pod.Name {
		return false
	}
	for _, s := range svcs {
		if len(s.Spec.Selector) == 0 || !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(p.Labels)) {
			continue
		}
		// The quoted port is the container's; the Service's own port is what its checks read.
		hh := HostPort{Host: h.Host, Port: servicePortFor(s, p, h.Port)}
		dd := *d
		dd.via = fmt.Sprintf("pod %s holds IP %s", p.Name, h.Host)
		if d.via != "" {
			dd.via = d.via + "; " + dd.via
		}
		return pc.walkProvider(ctx, &dd, s, hh)
	}
	return false
}

// servicePortFor is the port of svc that sends to container port cport of pod p ("" when
// none does, which leaves the Service's port check out).
func servicePortFor(svc *corev1.Service, p *corev1.Pod, cport string) string {
	n, err := strconv.Atoi(cport)
	if err != nil {
		return ""
	}
	for _, sp := range svc.Spec.Ports {
		if np := targetPortOf(svc, p, strconv.Itoa(int(sp.Port))); np.Number == int32(n) {
			return strconv.Itoa(int(sp.Port))
		}
	}
	return ""
}

// staleAddress reports an IP from the cluster's own ranges that no Service or pod holds any
// more, written into the pod's configuration: a ClusterIP changes when its Service is
// recreated and a pod IP with every new pod, so the configuration should name the Service.
func (pc *podCheck) staleAddress(ctx context.Context, d *depCheck, h HostPort, svcs []*corev1.Service) bool {
	e := pc.e
	ip := net.ParseIP(h.Host)
	if ip == nil || !inClusterRange(ip, svcs, pc.pod) {
		return false
	}
	src := pc.findValue(ctx, d, h.Host)
	if src == nil {
		return false
	}
	var names []string
	suggest := ""
	for _, s := range svcs {
		names = append(names, s.Name)
		if p, err := strconv.Atoi(h.Port); err == nil && suggest == "" && s.Spec.Type != corev1.ServiceTypeExternalName && serviceHasPort(s, int32(p)) && len(s.Spec.Ports) > 0 {
			suggest = s.Name
		}
	}
	summary := fmt.Sprintf("%s: it calls %s, an IP address written into %s, and no Service or pod of namespace %s holds that IP now (a ClusterIP changes when its Service is recreated, a pod IP with every new pod).",
		d.opening(), h.String(), src.where, e.s.Namespace)
	extra := []ObjectRef{src.ref}
	if suggest != "" {
		summary += fmt.Sprintf(" Service %s listens on port %s: use its name (%s) there instead of the address.", suggest, h.Port, net.JoinHostPort(suggest, h.Port))
		extra = append(extra, e.ref("Service", suggest))
	} else {
		summary += " Use the name of the Service it means instead of the address."
	}
	facts := map[string]string{"host": h.Host, "service": h.Host, "closest": orDefault(suggest, "<service>"), "source": src.where,
		"sourceResource": kubectlResource(src.ref), "key": src.key}
	d.evIDs = append(d.evIDs, e.objEvidence(src.ref, fmt.Sprintf("%s: %s", src.where, src.value)))
	d.report(ctx, "dependency-host-unknown", 80, src.ref, summary, nil, extra, facts)
	return true
}

// inClusterRange reports an IP in a /16 the namespace's ClusterIPs or the pod's own IP live
// in: an address of the cluster, not of a server outside it.
func inClusterRange(ip net.IP, svcs []*corev1.Service, self *corev1.Pod) bool {
	same := func(s string) bool {
		o := net.ParseIP(s)
		if o == nil || (o.To4() == nil) != (ip.To4() == nil) {
			return false
		}
		mask := net.CIDRMask(16, 32)
		if ip.To4() == nil {
			mask = net.CIDRMask(64, 128)
			return o.Mask(mask).Equal(ip.Mask(mask))
		}
		return o.To4().Mask(mask).Equal(ip.To4().Mask(mask))
	}
	if same(self.Status.PodIP) {
		return true
	}
	for _, s := range svcs {
		if s.Spec.ClusterIP != corev1.ClusterIPNone && same(s.Spec.ClusterIP) {
			return true
		}
	}
	return false
}

// configuredIP walks an IP address the pod is configured with: the Service holding it as
// its ClusterIP, the pod holding it, or no one any more.
func (pc *podCheck) configuredIP(ctx context.Context, d *depCheck, h HostPort, svcs []*corev1.Service) bool {
	for _, s := range svcs {
		if s.Spec.ClusterIP == h.Host {
			return pc.walkProvider(ctx, d, s, h)
		}
	}
	return pc.followPodIP(ctx, d, h, svcs) || pc.e.podByIP(ctx, h.Host) == nil && pc.staleAddress(ctx, d, h, svcs)
}

// aliasInCluster follows an ExternalName Service whose externalName is a Service of this
// namespace (name.ns.svc.cluster.local): to that Service, or, when it does not exist, to the
// alias as the fault. ok reports that the alias points inside the namespace.
func (pc *podCheck) aliasInCluster(ctx context.Context, d *depCheck, svc *corev1.Service, h HostPort) (done, ok bool) {
	e := pc.e
	if pc.misspeltAlias(ctx, d, svc, d.via) {
		return true, true
	}
	target := strings.ToLower(svc.Spec.ExternalName)
	if net.ParseIP(strings.Trim(target, "[]")) != nil {
		// ExternalName takes a DNS name: an address written there is answered as a CNAME to
		// a name made of digits, which resolves to nothing.
		sref := e.ref("Service", svc.Name)
		d.evIDs = append(d.evIDs, e.objEvidence(sref, "Service "+svc.Name+": type ExternalName, externalName "+target))
		d.report(ctx, "dependency-host-unknown", 0, sref, fmt.Sprintf("%s: it calls Service %s, of type ExternalName with externalName %s, an IP address: cluster DNS answers the Service's name with a CNAME to %s, taken as a host name made of digits, which resolves to nothing. ExternalName takes a DNS name; for a fixed address make %s a Service without a selector, with an EndpointSlice for %s.",
			d.opening(), svc.Name, target, target, svc.Name, target), nil, []ObjectRef{sref},
			map[string]string{"host": target, "service": svc.Name, "source": "Service " + svc.Name + " spec.externalName", "sourceResource": kubectlResource(sref)})
		return true, true
	}
	name, _, scope := classifyHost(target, e.s.Namespace)
	if scope != hostInNamespace || !strings.Contains(target, ".") || name == svc.Name {
		return false, false
	}
	sref := e.ref("Service", svc.Name)
	t, err := getAs[*corev1.Service](ctx, e, "Service", name)
	if tools.IsNotFound(err) {
		d.report(ctx, "dependency-host-unknown", 0, sref, fmt.Sprintf("%s: it calls Service %s, an ExternalName alias of %s, and no Service named %s exists in namespace %s, so the alias resolves to nothing. Point externalName at an existing Service, or create Service %s.",
			d.opening(), svc.Name, target, name, e.s.Namespace, name), nil, []ObjectRef{sref, e.ref("Service", name)},
			map[string]string{"host": target, "service": name, "closest": name, "source": "Service " + svc.Name + " spec.externalName", "sourceResource": kubectlResource(sref)})
		return true, true
	}
	if err != nil || t.Spec.Type == corev1.ServiceTypeExternalName {
		return false, false // one alias deep at most
	}
	dd := *d
	dd.via = strings.TrimPrefix(d.via+"; ", "; ") + "through ExternalName Service " + svc.Name
	return pc.walkProvider(ctx, &dd, t, HostPort{Host: name, Port: h.Port}), true
}
