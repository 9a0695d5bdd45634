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
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A cluster name (a Service, name.ns, name.ns.svc.cluster.local) resolves only through the
// cluster DNS and its search path. A pod whose dnsPolicy is Default (the node's resolv.conf),
// None without the namespace's search domain, or ClusterFirst on the host network (which falls
// back to Default) cannot resolve them, however healthy the Service is: the pod's DNS
// settings are the cause, and the error often quotes the resolver it asked
// ("lookup risk-rules on 192.168.10.2:53: no such host").

// resolverRe is the nameserver a Go resolver error names.
var resolverRe = regexp.MustCompile(`lookup [a-z0-9.-]{1,253} on \[?([0-9a-f.:]{3,45}?)\]?:53\b`)

// clusterName reports whether host can only be resolved by the cluster DNS.
func clusterName(host, ns string) bool {
	_, _, scope := classifyHost(host, ns)
	h := strings.TrimSuffix(host, ".")
	return scope == hostInNamespace || scope == hostOtherNS || strings.HasSuffix(h, ".svc") || strings.HasSuffix(h, ".svc.cluster.local")
}

// podDNSFault says why the pod's DNS settings cannot resolve host ("" when they can).
func podDNSFault(p *corev1.Pod, host, ns string, lookupFailed bool, anyInRange func([]string) bool) string {
	s := p.Spec
	switch {
	case s.HostNetwork && (s.DNSPolicy == "" || s.DNSPolicy == corev1.DNSClusterFirst):
		return "the pod runs with hostNetwork: true and dnsPolicy " + orDefault(string(s.DNSPolicy), "ClusterFirst (the default)") +
			", which on the host network falls back to the node's resolver (Default); set dnsPolicy: ClusterFirstWithHostNet"
	case s.DNSPolicy == corev1.DNSDefault:
		return "the pod sets dnsPolicy: Default, so it uses the node's resolv.conf, which does not know cluster names; remove it (ClusterFirst is the default) or set dnsPolicy: ClusterFirst"
	case s.DNSPolicy == corev1.DNSNone:
		var servers, searches []string
		if s.DNSConfig != nil {
			servers, searches = s.DNSConfig.Nameservers, s.DNSConfig.Searches
		}
		h := strings.TrimSuffix(host, ".")
		qualified := strings.HasSuffix(h, ".svc.cluster.local")
		if len(servers) > 0 && !anyInRange(servers) {
			return fmt.Sprintf("the pod sets dnsPolicy: None and its dnsConfig sends every lookup to %s, which is not the cluster DNS (no address of the cluster's ranges), so cluster names do not resolve; use dnsPolicy: ClusterFirst, which still lets dnsConfig add nameservers and search domains",
				strings.Join(servers, ", "))
		}
		if !qualified && !searchCovers(searches, ns, h) {
			return fmt.Sprintf("the pod sets dnsPolicy: None and its dnsConfig (nameservers %s, searches %s) has no search domain that completes %s to a cluster name (%s.svc.cluster.local); use dnsPolicy: ClusterFirst or add the search domains",
				orDefault(strings.Join(servers, ", "), "none"), orDefault(strings.Join(searches, ", "), "none"), h, ns)
		}
	}
	if s.DNSConfig != nil && lookupFailed {
		// ndots at or below the name's dots makes the resolver try it as an absolute name
		// first; resolvers that do not fall back to the search list then (musl, in Alpine
		// images) never complete name.ns to name.ns.svc.cluster.local.
		h := strings.TrimSuffix(host, ".")
		for _, o := range s.DNSConfig.Options {
			n, err := strconv.Atoi(ptrOr(o.Value, ""))
			if o.Name != "ndots" || err != nil || strings.HasSuffix(h, ".svc.cluster.local") || strings.HasSuffix(host, ".") {
				continue
			}
			if dots := strings.Count(h, "."); dots >= n {
				return fmt.Sprintf("the pod's dnsConfig sets ndots:%d, so %s (%d dot(s)) is looked up as an absolute name first, and resolvers that do not go on to the search list (musl, in Alpine images) never complete it to %s.%s.svc.cluster.local; remove the ndots option or call the full name",
					n, h, dots, strings.Split(h, ".")[0], ns)
			}
		}
	}
	return ""
}

// searchCovers reports whether some search domain turns h into a Service's full name.
func searchCovers(searches []string, ns, h string) bool {
	dots := strings.Count(h, ".")
	for _, sd := range searches {
		sd = strings.TrimSuffix(sd, ".")
		switch {
		case dots == 0 && strings.HasPrefix(sd, ns+".svc."):
			return true
		case dots >= 1 && strings.HasPrefix(sd, "svc."), dots >= 1 && sd == "cluster.local" && strings.HasSuffix(h, ".svc"):
			return true
		}
	}
	return false
}

// dnsPolicyFault reports a cluster name the pod cannot resolve because of its DNS settings:
// on a lookup error naming it, or, with no error text, when the pod is configured to call it.
func (pc *podCheck) dnsPolicyFault(ctx context.Context, d *depCheck, h HostPort) bool {
	e := pc.e
	if !clusterName(h.Host, e.s.Namespace) {
		return false
	}
	svcs, _ := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	anyInRange := func(ips []string) bool {
		for _, s := range ips {
			if ip := net.ParseIP(s); ip != nil && inClusterRange(ip, svcs, pc.pod) {
				return true
			}
		}
		return len(svcs) == 0 // nothing to compare with: say nothing
	}
	why := podDNSFault(pc.pod, h.Host, e.s.Namespace, d.clue.Class == ErrDNS, anyInRange)
	if why == "" {
		return false
	}
	wl := e.workloadOf(ctx, pc.pod)
	var b strings.Builder
	b.WriteString(d.opening())
	if d.clue.IsError() {
		fmt.Fprintf(&b, ": the name %s does not resolve", h.Host)
		if m := resolverRe.FindStringSubmatch(strings.ToLower(d.clue.Line)); m != nil {
			fmt.Fprintf(&b, " (the lookup went to %s, not the cluster DNS)", m[1])
		}
	} else {
		fmt.Fprintf(&b, ": it is configured to call %s (%s), a cluster name, which does not resolve", h.Host, d.via)
	}
	fmt.Fprintf(&b, ": %s. Fix the pod template of %s %s.", why, wl.Kind, wl.Name)
	conf := 0
	if !d.clue.IsError() {
		conf = 65 // no lookup error seen: the settings alone
	}
	facts := map[string]string{"host": h.Host, "dnsPolicy": orDefault(string(pc.pod.Spec.DNSPolicy), "ClusterFirst"), "workload": kubectlResource(wl)}
	d.evIDs = append(d.evIDs, e.objEvidence(wl, fmt.Sprintf("%s %s: dnsPolicy %s, hostNetwork %t", wl.Kind, wl.Name, facts["dnsPolicy"], pc.pod.Spec.HostNetwork)))
	d.report(ctx, "pod-dns-misconfigured", conf, wl, b.String(), nil, nil, facts)
	return true
}

// validForRe reads the names a certificate is valid for and the name the client asked for.
var validForRe = regexp.MustCompile(`certificate is valid for ([*a-z0-9., -]{1,400}?),? not ([a-z0-9][a-z0-9.-]{0,252})`)

// searchDomainCapture reports an outside name that a search domain of the pod's dnsConfig
// captured: with ndots (5 unless set) above the name's dots, the resolver tries name.<domain>
// first, and a wildcard record there answers, so the client reaches a server of that domain,
// whose certificate is valid for *.<domain> and not for the name it asked for.
func (pc *podCheck) searchDomainCapture(ctx context.Context, d *depCheck) bool {
	s := pc.pod.Spec
	if s.DNSConfig == nil || len(s.DNSConfig.Searches) == 0 {
		return false
	}
	m := validForRe.FindStringSubmatch(strings.ToLower(d.clue.Line))
	if m == nil || strings.HasSuffix(m[2], ".") {
		return false
	}
	host := m[2]
	ndots := 5
	for _, o := range s.DNSConfig.Options {
		if n, err := strconv.Atoi(ptrOr(o.Value, "")); o.Name == "ndots" && err == nil {
			ndots = n
		}
	}
	if strings.Count(host, ".") >= ndots {
		return false
	}
	domain := ""
	for _, sd := range s.DNSConfig.Searches {
		sd = strings.ToLower(strings.TrimSuffix(sd, "."))
		if sd == "" || strings.HasSuffix(host, "."+sd) {
			continue
		}
		for _, v := range strings.Split(m[1], ",") {
			v = strings.TrimPrefix(strings.TrimSpace(v), "*.")
			if v == sd || strings.HasSuffix(v, "."+sd) {
				domain = sd
			}
		}
	}
	if domain == "" {
		return false
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"host": host, "dnsPolicy": orDefault(string(s.DNSPolicy), "ClusterFirst"), "workload": kubectlResource(wl), "sourceResource": kubectlResource(wl)}
	d.evIDs = append(d.evIDs, e.objEvidence(wl, fmt.Sprintf("%s %s: dnsConfig searches %s, ndots %d", wl.Kind, wl.Name, strings.Join(s.DNSConfig.Searches, ", "), ndots)))
	d.report(ctx, "pod-dns-misconfigured", 84, wl, fmt.Sprintf("%s: the pod's dnsConfig adds the search domain %s, and with ndots:%d the resolver tries %s.%s before %s itself; a wildcard record in %s answers, so %s resolves to a server of that domain, whose certificate is valid for %s. Fix the pod template of %s %s: drop the search domain, set ndots lower (options ndots:1), or call %s. with a trailing dot.",
		d.opening(), domain, ndots, host, domain, host, domain, host, strings.TrimSpace(m[1]), wl.Kind, wl.Name, host), nil, nil, facts)
	return true
}
