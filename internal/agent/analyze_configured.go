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
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// A failing client often names nothing useful in its text ("connection refused", a probe
// returning 503, no log at all). What it is configured to call — Service names and URLs in
// its env, arguments and the ConfigMaps it loads — is walked instead, and a provider is
// blamed only when it is really broken (no endpoints, not ready, wrong port, a policy).

// configuredHost is a host the container is configured to call, and where that is set.
type configuredHost struct {
	host  HostPort
	where string
	hosty bool // the setting's name or form says it is an address
	addr  bool // written as a URL or host:port
}

// Bounds of the configured-provider walk.
const (
	maxConfiguredHosts = 8
	maxHostsPerValue   = 3
)

var (
	bareValue       = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$`)
	discoveryPrefix = regexp.MustCompile(`(^|,)\s*(?:dnssrvnoa|dnssrv|dns)\+`)
	srvLabels       = regexp.MustCompile(`(^|,)(?:_[a-z0-9-]{1,63}\.){1,2}`)
)

// hostsInValue reads the hosts a configuration value names: URLs, host:port, or a bare name.
func hostsInValue(v string) ([]HostPort, bool) {
	low := strings.ToLower(strings.TrimSpace(clipBytes(v, 4096)))
	// Thanos, Cortex, Mimir and Loki resolve "dns+host:port" and SRV records
	// ("dnssrv+_grpc._tcp.svc"): the name after the prefix and the SRV labels is the host.
	low = srvLabels.ReplaceAllString(discoveryPrefix.ReplaceAllString(low, "$1"), "$1")
	var out []HostPort
	seen := map[string]bool{}
	add := func(h, port string) {
		h = strings.Trim(h, ".-")
		if h == "" || seen[h] || len(out) >= maxHostsPerValue || ignoredHost(h) {
			return
		}
		seen[h] = true
		out = append(out, HostPort{Host: h, Port: port})
	}
	for _, re := range []*regexp.Regexp{urlHost, hostPortRe, connString} {
		for _, m := range re.FindAllStringSubmatch(low, maxHostsPerValue) {
			add(m[1], m[2])
		}
	}
	if len(out) > 0 {
		return out, true
	}
	// host1:port,host2:port lists (brokers, seeds) without the patterns' leading separator.
	for _, part := range strings.Split(low, ",") {
		h, port, _ := strings.Cut(strings.TrimSpace(part), ":")
		h = strings.TrimSuffix(h, ".") // an absolute name (svc.ns.svc.cluster.local.)
		if bareValue.MatchString(h) && (port == "" || strings.Trim(port, "0123456789") == "") {
			add(h, port)
		}
	}
	return out, false
}

// configuredHosts lists what the pod's containers are configured to call, failing container first.
func (pc *podCheck) configuredHosts(ctx context.Context, d *depCheck) []configuredHost {
	e := pc.e
	var out []configuredHost
	addValue := func(key, value, where string) {
		hs, form := hostsInValue(value)
	next:
		for _, h := range hs {
			for i := range out {
				// The same host seen again with its port (DB_HOST, then DB_HOST with DB_PORT).
				if out[i].host.Host == h.Host && out[i].host.Port == "" && h.Port != "" {
					out[i].host.Port, out[i].hosty = h.Port, true
					continue next
				}
			}
			if len(out) < 4*maxConfiguredHosts {
				out = append(out, configuredHost{host: h, where: where, hosty: form || hostySetting(key), addr: form})
			}
		}
	}
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	for _, c := range d.containersFirst() {
		// vars are what $(VAR) expands to, in the order the kubelet defines them: envFrom
		// first, then env (Secret values are never read, so their references stay).
		vars := map[string]string{}
		var set []setting
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef == nil {
				continue
			}
			if m := cm(ef.ConfigMapRef.Name); m != nil {
				for _, k := range sortedKeys(m.Data) {
					vars[ef.Prefix+k] = m.Data[k]
					set = append(set, setting{ef.Prefix + k, m.Data[k]})
					addValue(k, m.Data[k], "ConfigMap "+m.Name+" key "+k)
				}
			}
		}
		for _, ev := range c.Env {
			switch {
			case ev.ValueFrom == nil:
				v := expandRefs(ev.Value, vars)
				vars[ev.Name] = v
				set = append(set, setting{ev.Name, v})
				addValue(ev.Name, v, "env "+ev.Name+"="+clipString(ev.Value, 80))
			case ev.ValueFrom.ConfigMapKeyRef != nil:
				if m := cm(ev.ValueFrom.ConfigMapKeyRef.Name); m != nil {
					k := ev.ValueFrom.ConfigMapKeyRef.Key
					vars[ev.Name] = m.Data[k]
					set = append(set, setting{ev.Name, m.Data[k]})
					addValue(ev.Name, m.Data[k], "env "+ev.Name+" from ConfigMap "+m.Name+" key "+k)
				}
			}
		}
		var argv []string
		for _, a := range commandLine(c) {
			argv = append(argv, expandRefs(a, vars))
		}
		flags := flagSettings(argv)
		for _, f := range flags {
			if !hostySetting(f.key) && !strings.ContainsAny(f.value, ":/") {
				continue // --log-level=debug names no host
			}
			addValue(f.key, f.value, "argument --"+clipString(f.key+"="+f.value, 80))
		}
		// A host and its port set apart are checked together (the host alone was added above).
		for _, hp := range hostPortPairs(append(set, flags...)) {
			addValue(hp.key, hp.value, "setting "+clipString(hp.key+" with its port", 80))
		}
		for _, a := range argv {
			if (strings.Contains(a, "://") || strings.Contains(a, ":")) && !strings.HasPrefix(a, "-") {
				addValue("arg", a, "argument "+clipString(a, 80))
			}
		}
		if isInitContainer(pc.pod, c.Name) && !isSidecar(c) {
			// An init container's command is usually a wait for what the pod needs.
			for _, h := range commandHosts(argv) {
				n := len(out)
				addValue("host", h, "the command of init container "+c.Name)
				for k := n; k < len(out); k++ {
					out[k].addr = true // a name waited for is an address, even without a port
				}
			}
		}
		for i, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
			if p != nil && p.Exec != nil {
				for _, h := range commandHosts(p.Exec.Command) {
					addValue("host", h, []string{"readiness", "liveness", "startup"}[i]+" probe command of container "+c.Name)
				}
			}
		}
	}
	// Files last: env and arguments say more plainly what the container calls.
	for _, c := range d.containersFirst() {
		names, paths := mountedConfigMaps(c, pc.pod)
		for i, name := range names {
			m := cm(name)
			if m == nil {
				continue
			}
			for _, k := range sortedKeys(m.Data) {
				for _, h := range hostsInFile(m.Data[k]) {
					if len(out) < 4*maxConfiguredHosts {
						out = append(out, configuredHost{host: h, where: "ConfigMap " + m.Name + " key " + k + " (mounted at " + paths[i] + ")", hosty: true, addr: h.Port != ""})
					}
				}
			}
		}
	}
	return out
}

// hostFlags are the options command-line clients take a server's address in.
var hostFlags = map[string]bool{"-h": true, "--host": true, "-host": true, "--hostname": true, "--server": true, "--addr": true, "--address": true, "-H": true}

// commandHosts reads the addresses a command line names: after a host option
// (pg_isready -h db, redis-cli -h cache), or written as a URL or host:port (at most 3).
func commandHosts(cmd []string) []string {
	var out []string
	var words []string
	for _, a := range cmd {
		words = append(words, strings.Fields(clipBytes(a, 1024))...)
	}
	for i, w := range words {
		if len(out) >= 3 {
			break
		}
		h := ""
		switch {
		case waitTools[strings.Trim(w, shellPunct)]:
			h = waitToolHost(words, i)
		case hostFlags[w] && i+1 < len(words):
			h = words[i+1]
		case strings.Contains(w, "=") && hostFlags[w[:strings.IndexByte(w, '=')]]:
			h = w[strings.IndexByte(w, '=')+1:]
		case strings.Contains(w, "://") || hostPortRe.MatchString(" "+w):
			h = w
		}
		if h = strings.Trim(h, shellPunct); h != "" && !containsStr(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// shellPunct is what a shell script puts around a word ("until nc -z 'db' 5432; do").
const shellPunct = ";&|()'\"`"

// followConfigured walks the Services the container is configured to call and reports the
// first one that is broken; an unresolvable configured name is reported on a DNS error.
func (pc *podCheck) followConfigured(ctx context.Context, d *depCheck) bool {
	e := pc.e
	hosts := pc.configuredHosts(ctx, d)
	if len(hosts) == 0 {
		return false
	}
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	byName := map[string]*corev1.Service{}
	for _, s := range svcs {
		byName[s.Name] = s
	}
	walked := map[string]bool{}
	for _, ch := range hosts {
		if len(walked) >= maxConfiguredHosts {
			break
		}
		name, hns, scope := classifyHost(ch.host.Host, e.s.Namespace)
		// A lookup error naming no host, or no text at all, while the pod's DNS settings
		// cannot resolve the cluster name it is configured to call.
		if (d.clue.Class == ErrDNS || !d.clue.IsError()) && ch.hosty && (byName[name] != nil || byName[hns] != nil || scope == hostExternal && clusterName(ch.host.Host, e.s.Namespace)) {
			dd := *d
			dd.via = ch.where
			if pc.dnsPolicyFault(ctx, &dd, ch.host) {
				return true
			}
		}
		if scope == hostOtherNS && byName[hns] != nil {
			if (d.clue.Class == ErrDNS || !d.clue.IsError()) && pc.podDNSMissing(ctx, d, ch.host, name, byName[hns]) {
				return true
			}
			name, scope = hns, hostInNamespace // pod.service of a StatefulSet
		}
		if scope == hostIP && (networkClass(d.clue.Class) || !d.clue.IsError()) {
			dd := *d
			dd.via = "configured by " + ch.where
			if pc.configuredIP(ctx, &dd, ch.host, svcs) {
				return true
			}
		}
		if scope == hostExternal {
			// pod.service.ns(.svc.cluster.local): a StatefulSet pod's full name.
			dd := *d
			dd.via = "configured by " + ch.where
			if done, ok := pc.podServiceFQDN(ctx, &dd, ch.host, byName); ok && done {
				return true
			}
		}
		if scope != hostInNamespace {
			continue
		}
		svc := byName[name]
		if svc == nil {
			// An in-cluster address no Service answers to is blamed on a lookup failure, when
			// the client failed without a word and the setting is clearly an address, or when
			// its words say nothing specific and the name is a near miss of a Service's.
			quiet := !d.clue.IsError() || d.clue.Class == ErrGeneric
			if ch.hosty && (d.clue.Class == ErrDNS || !d.clue.IsError() && ch.addr || quiet && nearMissService(name, svcs) != "") {
				dd := *d
				dd.via = ch.where
				pc.hostUnknown(ctx, &dd, ch.host, name, svcs, "")
				return true
			}
			continue
		}
		// A Service in front of the client itself is its own symptom, not its dependency.
		if walked[svc.Name] || len(svc.Spec.Selector) > 0 && labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pc.pod.Labels)) {
			continue
		}
		walked[svc.Name] = true
		dd := *d
		dd.via = "configured by " + ch.where
		if pc.walkProvider(ctx, &dd, svc, ch.host) {
			return true
		}
		// A healthy provider can still send its clients elsewhere (analyze_advertised.go).
		if (!d.clue.IsError() || networkClass(d.clue.Class)) && pc.providerHandsOutUnroutable(ctx, &dd, svc) {
			return true
		}
	}
	return false
}
