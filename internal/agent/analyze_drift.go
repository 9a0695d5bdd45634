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
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Configuration that cannot work, read without the application's help. A Running pod whose
// log says nothing (or cannot be read) may still be configured to call a port its Service
// does not expose, or a misspelt Service name: the objects alone prove that fault.

// driftConfidence is below the text-backed findings: no error of the application confirms it.
const driftConfidence = 65

// nearMissService names the Service a host is most likely a misspelling of (edit distance
// at most 2, names of 4 characters or more, or the same name but for a Service-ish suffix or
// a plural), or "".
func nearMissService(name string, svcs []*corev1.Service) string {
	if len(name) < 4 {
		return ""
	}
	best, bestD := "", 3
	for _, s := range svcs {
		if s.Name == name || len(s.Name) < 4 {
			continue
		}
		d := editDistance(name, s.Name, bestD)
		if sameStem(name, s.Name) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = s.Name, d
		}
	}
	return best
}

// stemSuffixes are what people add to a Service's name when they write it from memory.
var stemSuffixes = []string{"-service", "-svc", "-srv", "service", "svc"}

// nameStem is a Service name without a Service-ish suffix and a plural "s":
// notification-svc, notifications and notification-service share the stem notification.
func nameStem(n string) string {
	for _, s := range stemSuffixes {
		if t := strings.TrimSuffix(n, s); t != n && len(t) >= 3 {
			n = strings.TrimRight(t, "-")
			break
		}
	}
	if len(n) > 4 && strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") {
		n = n[:len(n)-1]
	}
	return n
}

// sameStem reports two different names with the same stem (of 4 characters or more).
func sameStem(a, b string) bool {
	sa := nameStem(a)
	return a != b && len(sa) >= 4 && sa == nameStem(b)
}

// configuredDrift checks what a Running pod's containers are configured to call and reports
// the first address that cannot work: a Service port the Service does not expose, or an
// in-namespace name no Service has that is one or two letters away from one that does. When
// the log could not be read (note says why), a mount nothing can write is reported too.
func (pc *podCheck) configuredDrift(ctx context.Context, note string) bool {
	symptom := "is Running and Ready"
	if note != "" {
		symptom += " (" + clipString(note, 120) + ")"
	}
	specs := map[string]corev1.Container{}
	for _, c := range pc.pod.Spec.Containers {
		specs[c.Name] = c
	}
	if pc.driftHosts(ctx, symptom, specs, note != "") {
		return true
	}
	if note == "" {
		return false // the log was read and says nothing wrong: trust it over a guess from the spec
	}
	for i, cs := range pc.pod.Status.ContainerStatuses {
		if i >= maxLogContainers {
			break
		}
		d := &depCheck{pc: pc, cs: cs, spec: specs[cs.Name], symptom: symptom, conf: driftConfidence}
		if pc.readOnlyScratch(ctx, d) || pc.poolBelowConcurrency(ctx, d) || pc.configuredCertificates(ctx, d) || pc.egressDNSDenied(ctx, d) {
			return true
		}
	}
	return false
}

// driftHosts is configuredDrift's walk of the configured addresses.
// unread says the log could not be read: an address written as one (a URL, host:port) that
// names no Service is then reported even when no Service's name is close to it.
func (pc *podCheck) driftHosts(ctx context.Context, symptom string, specs map[string]corev1.Container, unread bool) bool {
	e := pc.e
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil || len(svcs) == 0 {
		return false
	}
	byName := map[string]*corev1.Service{}
	for _, s := range svcs {
		byName[s.Name] = s
	}
	for i, cs := range pc.pod.Status.ContainerStatuses {
		if i >= maxLogContainers {
			break
		}
		d := &depCheck{pc: pc, cs: cs, spec: specs[cs.Name], symptom: symptom, conf: driftConfidence}
		for j, ch := range pc.configuredHosts(ctx, d) {
			if j >= maxConfiguredHosts {
				break
			}
			name, hns, scope := classifyHost(ch.host.Host, e.s.Namespace)
			if scope == hostOtherNS && byName[hns] != nil {
				continue // pod.service of a StatefulSet: the pod's own port applies
			}
			if scope != hostInNamespace || !ch.hosty {
				continue
			}
			dd := *d
			dd.via = "configured by " + ch.where
			svc := byName[name]
			if svc == nil {
				if nearMissService(name, svcs) != "" || unread && ch.addr {
					dd.via = ch.where
					pc.hostUnknown(ctx, &dd, ch.host, name, svcs, "")
					return true
				}
				continue
			}
			if len(svc.Spec.Selector) > 0 && labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pc.pod.Labels)) {
				continue // the Service in front of the pod itself
			}
			// With the log unread, a policy that drops the calls is a fault on its face.
			if unread && len(svc.Spec.Selector) > 0 {
				if b := pc.backendOf(ctx, svc); b != nil && pc.policyBlocks(ctx, &dd, svc, b, ch.host) {
					return true
				}
			}
			p, err := strconv.Atoi(ch.host.Port)
			if err != nil || svc.Spec.ClusterIP == corev1.ClusterIPNone || serviceHasPort(svc, int32(p)) {
				continue
			}
			if pc.walkProvider(ctx, &dd, svc, ch.host) {
				return true
			}
		}
	}
	return false
}

// configuredCertificates checks, for a Running pod whose log cannot be read, the certificates
// of the Secrets it mounts and of those the servers it is configured to call mount: an
// expired one fails every TLS handshake whatever the application logs.
func (pc *podCheck) configuredCertificates(ctx context.Context, d *depCheck) bool {
	dd := *d
	dd.clue = Clue{}
	for _, ch := range pc.configuredHosts(ctx, d) {
		if ch.hosty && len(dd.clue.Hosts) < 2 {
			dd.clue.Hosts = append(dd.clue.Hosts, ch.host)
		}
	}
	return pc.certificates(ctx, &dd)
}
