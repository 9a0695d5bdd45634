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
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
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
