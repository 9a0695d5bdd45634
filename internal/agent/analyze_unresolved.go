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

// Names a client is given that resolve nowhere: a misspelt cluster domain (below), and, for
// a client that fails without a word, a name no Service of the namespace has
// (quietUnknownHost).
//
// A Service's DNS name is name.namespace.svc.cluster.local. A name written with the last
// labels a letter or two off (cluster.locl, svc.cluser.local, svc.cluster.lcoal) is read by
// every resolver as a name outside the cluster and resolves nowhere: the client sees "no such
// host" or "Name or service not known" for a Service that exists. Such a name is a fault
// wherever it is written (an ExternalName alias, an env value, a ConfigMap key), with or without
// the client's error to go on.

const clusterServiceSuffix = "svc.cluster.local"

// clusterDomainMisspelt reports whether host reads as a Service's DNS name whose
// svc.cluster.local tail is misspelt, and returns that tail as written.
func clusterDomainMisspelt(host string) (string, bool) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	labels := strings.Split(host, ".")
	if len(labels) < 4 || len(host) > 253 {
		return "", false
	}
	// The tail is the last three labels (svc.cluster.local) or, with a label dropped or split,
	// the last two or four: compare each with the real suffix.
	for _, n := range []int{3, 2, 4} {
		if len(labels)-n < 2 {
			continue
		}
		tail := strings.Join(labels[len(labels)-n:], ".")
		if tail == clusterServiceSuffix {
			return "", false
		}
		if d := editDistance(tail, clusterServiceSuffix, 3); d > 0 && d <= 2 {
			return tail, true
		}
	}
	return "", false
}

// misspeltAlias reports an ExternalName Service whose externalName misspells the cluster
// domain: the alias resolves to nothing, so every client calling the Service fails to look
// it up. via says where the client is told to call the Service ("env SMTP_HOST=smtp-relay"),
// empty when its own error named it.
func (pc *podCheck) misspeltAlias(ctx context.Context, d *depCheck, svc *corev1.Service, via string) bool {
	target := svc.Spec.ExternalName
	tail, ok := clusterDomainMisspelt(target)
	if !ok {
		return false
	}
	e := pc.e
	sref := e.ref("Service", svc.Name)
	e.examine(sref)
	d.evIDs = append(d.evIDs, e.objEvidence(sref, "Service "+svc.Name+": type ExternalName, externalName "+target))
	fixed := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(target), "."), tail) + clusterServiceSuffix
	if via != "" {
		via = " (" + via + ")"
	}
	d.report(ctx, "dependency-host-unknown", 0, sref, fmt.Sprintf("%s: it calls Service %s%s, an ExternalName alias of %s, which ends in %s instead of %s, so the name resolves nowhere and every lookup of %s fails. Set spec.externalName to %s.",
		d.opening(), svc.Name, via, target, tail, clusterServiceSuffix, svc.Name, fixed), nil, []ObjectRef{sref},
		map[string]string{"host": target, "service": svc.Name, "closest": fixed, "source": "Service " + svc.Name + " spec.externalName", "sourceResource": kubectlResource(sref)})
	return true
}

// misspeltHost reports a host the client calls, or is configured with, that misspells the
// cluster domain, blamed on the setting that holds it.
func (pc *podCheck) misspeltHost(ctx context.Context, d *depCheck, h HostPort) bool {
	tail, ok := clusterDomainMisspelt(h.Host)
	if !ok {
		return false
	}
	src := pc.findValue(ctx, d, h.Host)
	culprit, extra := ObjectRef{}, []ObjectRef(nil)
	where := ""
	if src != nil {
		culprit, extra = src.ref, []ObjectRef{src.ref}
		where = " The name comes from " + src.where + "; fix it there."
	}
	fixed := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(h.Host), "."), tail) + clusterServiceSuffix
	facts := map[string]string{"host": h.Host, "closest": fixed}
	if src != nil {
		facts["source"], facts["sourceResource"] = src.where, kubectlResource(src.ref)
	}
	d.report(ctx, "dependency-host-unknown", 0, culprit, fmt.Sprintf("%s: it calls %s, which ends in %s instead of %s, so the name resolves nowhere (meant: %s).%s",
		d.opening(), h.Host, tail, clusterServiceSuffix, fixed, where), nil, extra, facts)
	return true
}

// quietMisspeltName reports, for a client that failed without a word, a configured host
// that misspells the cluster domain, or a configured Service that is an ExternalName alias
// of such a name.
func (pc *podCheck) quietMisspeltName(ctx context.Context, d *depCheck) bool {
	e := pc.e
	var byName map[string]*corev1.Service
	for i, ch := range pc.configuredHosts(ctx, d) {
		if i >= maxConfiguredHosts {
			break
		}
		if pc.misspeltHost(ctx, d, ch.host) {
			return true
		}
		name, _, scope := classifyHost(ch.host.Host, e.s.Namespace)
		if scope != hostInNamespace {
			continue
		}
		if byName == nil {
			svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
			if err != nil {
				return false
			}
			byName = map[string]*corev1.Service{}
			for _, s := range svcs {
				byName[s.Name] = s
			}
		}
		if s := byName[name]; s != nil && s.Spec.Type == corev1.ServiceTypeExternalName && pc.misspeltAlias(ctx, d, s, ch.where) {
			return true
		}
	}
	return false
}

// quietUnknownHost reports, for a client that failed without a word, an address it is
// configured with (an address setting, a URL, a mounted configuration file's upstream) that
// names a Service this namespace does not have: such a name resolves nowhere, and a server
// that resolves its upstreams at start (nginx, HAProxy, Envoy) exits on it. Checked last of
// the quiet faults, after everything the spec shows more directly.
func (pc *podCheck) quietUnknownHost(ctx context.Context, d *depCheck) bool {
	e := pc.e
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil || len(svcs) == 0 {
		return false
	}
	byName := map[string]bool{}
	for _, s := range svcs {
		byName[s.Name] = true
	}
	for i, ch := range pc.configuredHosts(ctx, d) {
		if i >= maxConfiguredHosts {
			break
		}
		if !ch.hosty && !ch.addr {
			continue
		}
		name, _, scope := classifyHost(ch.host.Host, e.s.Namespace)
		if scope != hostInNamespace || byName[name] || ignoredHost(name) || pc.ownName(name) {
			continue
		}
		pc.hostUnknown(ctx, d, ch.host, name, svcs, "")
		return true
	}
	return false
}

// ownName reports a name the pod answers to itself: its hostname, its subdomain, or a name
// a hostAlias gives.
func (pc *podCheck) ownName(name string) bool {
	s := pc.pod.Spec
	if name == s.Hostname || name == s.Subdomain || name == pc.pod.Name {
		return true
	}
	for _, a := range s.HostAliases {
		for _, h := range a.Hostnames {
			if strings.EqualFold(h, name) {
				return true
			}
		}
	}
	return false
}
