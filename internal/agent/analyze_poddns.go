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

	"github.com/kubage/kubage/internal/tools"
)

// pod.service names resolve only for pods that exist: ledger-db-2.ledger-db of a
// StatefulSet that runs two replicas (ledger-db-0 and -1) does not resolve, although the
// headless Service is there and healthy. The name's source is the fault.

// podDNSMissing reports a pod.service host whose pod does not exist under headless Service svc.
func (pc *podCheck) podDNSMissing(ctx context.Context, d *depCheck, h HostPort, podName string, svc *corev1.Service) bool {
	e := pc.e
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return false
	}
	if _, err := e.get(ctx, "Pod", podName); !tools.IsNotFound(err) {
		return false
	}
	// Only a StatefulSet's pods get such names; without one governing the Service, the walk
	// goes on to its pods as for any provider.
	sts := e.governedBy(ctx, svc.Name)
	if sts == nil {
		return false
	}
	sref := e.ref("Service", svc.Name)
	facts := map[string]string{"host": h.Host, "service": svc.Name, "pod": podName, "statefulset": sts.Name}
	extra := []ObjectRef{sref, e.ref("StatefulSet", sts.Name)}
	n := replicasOf(sts.Spec.Replicas)
	owner := fmt.Sprintf(" StatefulSet %s governed by it runs %d replica(s), so its pods are %s-0 to %s-%d.", sts.Name, n, sts.Name, sts.Name, max(n-1, 0))
	if n == 0 {
		owner = fmt.Sprintf(" StatefulSet %s governed by it is scaled to 0.", sts.Name)
	}
	summary := fmt.Sprintf("%s: it calls %s, the DNS name of pod %s under headless Service %s, and no such pod exists, so the name does not resolve.%s",
		d.opening(), h.String(), podName, svc.Name, owner)
	culprit := ObjectRef{}
	if src := pc.findValue(ctx, d, h.Host); src != nil {
		summary += fmt.Sprintf(" The name comes from %s; fix it there.", src.where)
		culprit = src.ref
		extra = append([]ObjectRef{src.ref}, extra...)
		facts["source"], facts["sourceResource"], facts["key"] = src.where, kubectlResource(src.ref), src.key
		d.evIDs = append(d.evIDs, e.objEvidence(src.ref, fmt.Sprintf("%s: %s", src.where, src.value)))
	} else {
		facts["sourceResource"] = kubectlResource(e.workloadOf(ctx, pc.pod))
	}
	facts["closest"] = svc.Name
	d.report(ctx, "dependency-host-unknown", 0, culprit, summary, nil, extra, facts)
	return true
}

// governingServiceGone reports a pod.service host whose service part is the governing
// Service (spec.serviceName) of a StatefulSet of the namespace, and that Service does not
// exist: the name reads like another namespace, but it is a pod's stable DNS name, and it
// resolves again once the headless Service is back.
func (pc *podCheck) governingServiceGone(ctx context.Context, d *depCheck, h HostPort, podName, service string) bool {
	e := pc.e
	sts := e.governedBy(ctx, service)
	if sts == nil {
		return false
	}
	if _, err := e.get(ctx, "Service", service); !tools.IsNotFound(err) {
		return false
	}
	sref, stref := e.ref("Service", service), e.ref("StatefulSet", sts.Name)
	e.governingService(ctx, sts, []string{e.objEvidence(stref, "StatefulSet "+sts.Name+": "+tools.Summarize(sts, e.now).Status)})
	facts := map[string]string{"host": h.Host, "service": service, "pod": podName, "statefulset": sts.Name}
	d.report(ctx, "dependency-unreachable", 0, sref, fmt.Sprintf("%s: it calls %s, the stable DNS name of pod %s under Service %s, the governing Service (spec.serviceName) of StatefulSet %s; that Service does not exist, so the name does not resolve. Recreate headless Service %s (clusterIP: None) selecting the StatefulSet's pods.",
		d.opening(), h.String(), podName, service, sts.Name, service), nil, []ObjectRef{sref, stref}, facts)
	return true
}

// governedBy is the first StatefulSet of the namespace whose spec.serviceName is service
// (nil when there is none or the list fails).
func (e *env) governedBy(ctx context.Context, service string) *appsv1.StatefulSet {
	stss, err := listOnce[*appsv1.StatefulSet](ctx, e, "StatefulSet", scanMaxObjects)
	if err != nil {
		return nil
	}
	for _, s := range stss {
		if s.Spec.ServiceName == service {
			return s
		}
	}
	return nil
}

// podServiceFQDN handles pod.service.ns and pod.service.ns.svc(.cluster.local), a StatefulSet
// pod's longer names in this namespace: ok reports that the host's walk ends here, done that a
// finding explains the call (a pod name under a Service that is gone and explains nothing lets
// the caller go on).
func (pc *podCheck) podServiceFQDN(ctx context.Context, d *depCheck, h HostPort, byName map[string]*corev1.Service) (done, ok bool) {
	p := strings.Split(strings.TrimSuffix(strings.TrimSuffix(h.Host, "."), ".cluster.local"), ".")
	if len(p) == 4 && p[3] == "svc" {
		p = p[:3]
	}
	if len(p) != 3 || p[2] != pc.e.s.Namespace {
		return false, false
	}
	if s := byName[p[1]]; s != nil {
		return d.clue.Class == ErrDNS && pc.podDNSMissing(ctx, d, h, p[0], s) || pc.walkProvider(ctx, d, s, h), true
	}
	if d.clue.Class == ErrDNS && pc.governingServiceGone(ctx, d, h, p[0], p[1]) {
		return true, true
	}
	return false, false
}
