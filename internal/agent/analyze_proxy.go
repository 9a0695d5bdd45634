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
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A container given HTTP_PROXY / HTTPS_PROXY (a corporate egress proxy, often from a shared
// ConfigMap) sends every HTTP call through that proxy unless NO_PROXY covers the host. A
// call to a Service of the cluster then goes to the proxy, which cannot resolve or reach
// cluster names: the client sees the proxy's 502/503 (Squid's ERR_DNS_FAIL, "Via: … squid"),
// a timeout or a refusal, while the Service and its pods are healthy. NO_PROXY is the fix.

// proxyVars are the variables HTTP clients read for their proxy, in both spellings.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"}

// proxyIntercepts reports a call to an in-cluster host that the container's proxy settings
// send through the proxy.
func (pc *podCheck) proxyIntercepts(ctx context.Context, d *depCheck, svcs map[string]bool) bool {
	// Only HTTP clients read these variables: the call must be an HTTP one.
	low := strings.ToLower(d.clue.Line)
	httpCall := strings.Contains(low, "http://") || strings.Contains(low, "https://")
	if !d.clue.IsError() || !proxyWords(d.clue.Line) && !(httpCall && networkClass(d.clue.Class)) {
		return false
	}
	e := pc.e
	wl := pc.workloadOrPod(ctx)
	// The value the container sees: env entries win over envFrom, and both come first here.
	eff := map[string]configSetting{}
	for _, s := range e.configSettings(ctx, pc.pod, d.spec, wl) {
		if _, seen := eff[s.name]; !seen && !strings.HasPrefix(s.name, "-") {
			eff[s.name] = s
		}
	}
	var proxy configSetting
	for _, v := range proxyVars {
		if s, ok := eff[v]; ok && strings.TrimSpace(s.value) != "" {
			proxy = s
			break
		}
	}
	if proxy.name == "" {
		return false
	}
	noProxy, ok := eff["NO_PROXY"]
	if !ok {
		noProxy = eff["no_proxy"]
	}
	for i, h := range d.clue.Hosts {
		if i >= maxDepHosts {
			break
		}
		name, _, scope := classifyHost(h.Host, e.s.Namespace)
		inCluster := scope == hostInNamespace && svcs[name] || scope == hostOtherNS || scope == hostIP && svcs[name]
		if !inCluster || noProxyCovers(noProxy.value, h.Host) {
			continue
		}
		culprit, where := proxy.ref, proxy.where
		missing := "sets no NO_PROXY"
		if noProxy.name != "" {
			culprit, where = noProxy.ref, noProxy.where
			missing = fmt.Sprintf("has %s=%q (%s), which does not cover %s", noProxy.name, clipString(noProxy.value, 160), noProxy.where, h.Host)
		}
		facts := map[string]string{"host": h.Host, "key": orDefault(noProxy.name, "NO_PROXY"), "sourceResource": kubectlResource(culprit)}
		d.evIDs = append(d.evIDs, e.objEvidence(culprit, fmt.Sprintf("%s: %s=%s", where, proxy.name, proxy.value)))
		d.report(ctx, "proxy-intercepts-cluster-call", 0, culprit, fmt.Sprintf("%s: the container has %s=%s (%s) and %s, so its call to %s, a Service of the cluster, goes through that proxy, which cannot resolve or reach cluster names; the Service itself is not at fault. Add %s (or .svc, .cluster.local and the short Service names, and the cluster's address ranges) to NO_PROXY in %s.",
			d.opening(), proxy.name, clipString(proxy.value, 120), proxy.where, missing, h.Host, h.Host, where), nil, []ObjectRef{culprit, wl}, facts)
		return true
	}
	return false
}

// svcKeys is the set of the namespace's Service names and cluster IPs.
func svcKeys(byName, byIP map[string]*corev1.Service) map[string]bool {
	out := make(map[string]bool, len(byName)+len(byIP))
	for k := range byName {
		out[k] = true
	}
	for k := range byIP {
		out[k] = true
	}
	return out
}

// proxyWords reports a line that shows a proxy answered: Squid's error header, a Via header,
// a proxy status code or Go's proxyconnect.
func proxyWords(line string) bool {
	low := strings.ToLower(line)
	for _, w := range []string{"x-squid-error", "squid/", "via: 1.1", "proxyconnect", "proxy authentication required", "407 proxy", "502 bad gateway (proxy", "tunnel failed"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// noProxyCovers applies a NO_PROXY list to a host the way common HTTP clients do: "*" covers
// all, an entry covers the host itself and its subdomains (a leading dot or "*." only the
// subdomains), a CIDR covers the addresses in it; ports are ignored.
func noProxyCovers(list, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	ip := net.ParseIP(host)
	for _, raw := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		ent := strings.ToLower(strings.TrimSpace(raw))
		if ent == "*" {
			return true
		}
		if _, cidr, err := net.ParseCIDR(ent); err == nil {
			if ip != nil && cidr.Contains(ip) {
				return true
			}
			continue
		}
		if h, _, err := net.SplitHostPort(ent); err == nil {
			ent = h
		}
		if strings.HasPrefix(ent, "*.") {
			ent = ent[1:]
		}
		switch {
		case ent == "":
		case strings.HasPrefix(ent, "."):
			if strings.HasSuffix(host, ent) {
				return true
			}
		case host == ent || strings.HasSuffix(host, "."+ent):
			return true
		}
	}
	return false
}
