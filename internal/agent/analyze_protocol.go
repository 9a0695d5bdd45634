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
)

// A client that speaks TLS to a port serving plain HTTP, or plain HTTP to a TLS port, gets an
// answer it cannot read: "http: server gave HTTP response to HTTPS client", "wrong version
// number", "first record does not look like a TLS handshake", "plain HTTP request was sent to
// HTTPS port". No certificate is at fault; the scheme or port in the client's address is.

// protocolNeedles map the words of each side of the mismatch to what the client did.
var protocolNeedles = []struct{ needle, client string }{
	{"server gave http response to https client", "speaks TLS (https) to a port that serves plain HTTP"},
	{"first record does not look like a tls handshake", "speaks TLS to a port that answers in plain text"},
	{"wrong version number", "speaks TLS to a port that answers in plain text"},
	{"packet length too long", "speaks TLS to a port that answers in plain text"},
	{"plain http request was sent to https port", "speaks plain HTTP to a port that serves HTTPS"},
	{"client sent an http request to an https server", "speaks plain HTTP to a port that serves HTTPS"},
	{"malformed http response", "speaks plain HTTP to a port that answers with TLS or another protocol"},
	{"server gave https response to http client", "speaks plain HTTP to a port that serves HTTPS"},
}

// protocolMismatch reports a scheme that does not match what the port serves.
func (pc *podCheck) protocolMismatch(ctx context.Context, d *depCheck) bool {
	low := strings.ToLower(d.clue.Line)
	what := ""
	for _, n := range protocolNeedles {
		if strings.Contains(low, n.needle) {
			what = n.client
			break
		}
	}
	if what == "" {
		return false
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	var src *valueSource
	addr := ""
	for _, h := range d.clue.Hosts {
		if src = pc.findValue(ctx, d, h.String()); src == nil {
			src = pc.findValue(ctx, d, h.Host)
		}
		if src != nil {
			addr = h.String()
			break
		}
	}
	if src == nil {
		// The text may name no host: the configured addresses with a scheme are the candidates.
		for _, ch := range pc.configuredHosts(ctx, d) {
			if ch.addr {
				if src = pc.findValue(ctx, d, ch.host.Host); src != nil {
					addr = ch.host.String()
					break
				}
			}
		}
	}
	facts := map[string]string{"sourceResource": kubectlResource(wl)}
	culprit := wl
	var extra []ObjectRef
	msg := fmt.Sprintf("%s: the client %s; no certificate is at fault, the scheme or port of the address it calls is", d.opening(), what)
	for _, h := range d.clue.Hosts {
		if sref, why := pc.serviceProtocolTarget(ctx, h, strings.Contains(what, "speaks TLS")); why != "" {
			msg = fmt.Sprintf("%s: the client %s; no certificate is at fault, and the scheme of the address it calls matches the Service port's name: the Service's target port is wrong.%s", d.opening(), what, why)
			facts["sourceResource"] = kubectlResource(sref)
			d.evIDs = append(d.evIDs, e.objEvidence(sref, strings.TrimSpace(why)))
			if src != nil {
				extra = append(extra, src.ref)
			}
			d.report(ctx, "dependency-protocol-mismatch", 0, sref, msg, nil, extra, facts)
			return true
		}
	}
	if src != nil {
		culprit = src.ref
		extra = append(extra, src.ref)
		facts["sourceResource"], facts["source"], facts["key"] = kubectlResource(src.ref), src.where, src.key
		msg += fmt.Sprintf(" (%s, set in %s: %s). Use the scheme the port serves (http:// or https://), or the Service's other port.", addr, src.where, src.value)
		d.evIDs = append(d.evIDs, e.objEvidence(src.ref, fmt.Sprintf("%s: %s", src.where, src.value)))
	} else {
		msg += ". Use the scheme the port serves (http:// or https://), or the Service's other port."
	}
	d.report(ctx, "dependency-protocol-mismatch", 0, culprit, msg, nil, extra, facts)
	return true
}

// tlsPort says a port is meant for TLS by its name or its number.
func tlsPort(name string, number int32) bool {
	low := strings.ToLower(name)
	return strings.Contains(low, "https") || strings.Contains(low, "tls") || strings.Contains(low, "ssl") || strings.HasSuffix(low, "s") && strings.HasPrefix(low, "grpc") ||
		number == 443 || number == 8443 || number == 9443 || number == 6443
}

// serviceProtocolTarget finds a Service whose port says one protocol while its targetPort
// sends to a container port of the other: a port 8443 named https targeting the pods' plain
// http port, while they serve TLS on another port. The client's scheme is then right; the
// Service's targetPort is what to change.
func (pc *podCheck) serviceProtocolTarget(ctx context.Context, h HostPort, clientTLS bool) (ObjectRef, string) {
	e := pc.e
	name, _, scope := classifyHost(h.Host, e.s.Namespace)
	if scope != hostInNamespace || h.Port == "" {
		return ObjectRef{}, ""
	}
	svc, err := getAs[*corev1.Service](ctx, e, "Service", name)
	if err != nil {
		return ObjectRef{}, ""
	}
	var sp *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if fmt.Sprint(svc.Spec.Ports[i].Port) == h.Port {
			sp = &svc.Spec.Ports[i]
		}
	}
	backend := pc.backendOf(ctx, svc)
	if sp == nil || backend == nil || tlsPort(sp.Name, sp.Port) != clientTLS {
		return ObjectRef{}, ""
	}
	tp := targetPortOf(svc, backend, h.Port)
	if tp.Name == "" && tp.Number == 0 || tlsPort(tp.Name, tp.Number) == clientTLS {
		return ObjectRef{}, ""
	}
	for _, c := range backend.Spec.Containers {
		for _, cp := range c.Ports {
			if tlsPort(cp.Name, cp.ContainerPort) == clientTLS {
				want := cp.Name
				if want == "" {
					want = fmt.Sprint(cp.ContainerPort)
				}
				return e.ref("Service", svc.Name), fmt.Sprintf(" Service %s port %d (%s) has targetPort %s, the pods' %s port %s, while they serve the client's protocol on port %s (%d): set targetPort to %s.",
					svc.Name, sp.Port, orDefault(sp.Name, "unnamed"), sp.TargetPort.String(), map[bool]string{true: "TLS", false: "plain"}[!clientTLS], portString(tp), want, cp.ContainerPort, want)
			}
		}
	}
	return ObjectRef{}, ""
}
