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
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Clustered servers hand their clients the address to call next: Kafka's advertised
// listeners, a Redis Sentinel's announced master, Elasticsearch's publish host, a MongoDB
// replica set's member names. A client configured with the Service's name that then fails on
// localhost:9092 got that address from the server, and the server's setting is the fault.

var loopbackAddr = regexp.MustCompile(`\b(?:localhost|127\.0\.0\.1)(?:/127\.0\.0\.1)?:(\d{2,5})\b`)

// advertisedLoopback reports a loopback address the client calls although its own
// configuration names a Service, found in that Service's backends' settings.
func (pc *podCheck) advertisedLoopback(ctx context.Context, d *depCheck) bool {
	m := loopbackAddr.FindStringSubmatch(strings.ToLower(d.clue.Line))
	if m == nil {
		return false
	}
	port := m[1]
	e := pc.e
	if pc.findValue(ctx, d, "localhost") != nil || pc.findValue(ctx, d, "127.0.0.1") != nil {
		return false // the client itself is told to call a loopback address
	}
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	byName := map[string]*corev1.Service{}
	for _, s := range svcs {
		byName[s.Name] = s
	}
	for i, ch := range pc.configuredHosts(ctx, d) {
		if i >= maxConfiguredHosts {
			break
		}
		name, _, scope := classifyHost(ch.host.Host, e.s.Namespace)
		s := byName[name]
		if scope != hostInNamespace || s == nil || len(s.Spec.Selector) == 0 {
			continue
		}
		pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
		if err != nil {
			return false
		}
		for _, p := range pods {
			if p.Name == pc.pod.Name || !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(p.Labels)) {
				continue
			}
			pd := &depCheck{pc: &podCheck{e: e, pod: p}, spec: p.Spec.Containers[0]}
			for _, needle := range []string{"localhost:" + port, "127.0.0.1:" + port} {
				src := pd.pc.findValue(ctx, pd, needle)
				if src == nil {
					continue
				}
				sref := e.ref("Service", s.Name)
				d.evIDs = append(d.evIDs, e.objEvidence(src.ref, fmt.Sprintf("%s: %s", src.where, src.value)))
				d.report(ctx, "server-advertises-loopback", 0, src.ref, fmt.Sprintf("%s: the client is configured with Service %s (%s), but the server behind it hands out %s as the address to call next: %s sets %s. Advertise the Service's or the pod's DNS name (for example %s:%s) instead.",
					d.opening(), s.Name, ch.where, needle, src.where, src.value, s.Name, port), nil, []ObjectRef{src.ref, sref},
					map[string]string{"key": src.key, "service": s.Name, "sourceResource": kubectlResource(src.ref)})
				return true
			}
			break // one backend's settings speak for its workload
		}
	}
	return false
}

// quotedSetting is a server setting an error quotes: "used memory > 'maxmemory'", "bigger
// than 'max_allowed_packet' bytes", "[cluster.max_shards_per_node]".
var quotedSetting = regexp.MustCompile(`['\x60\[]([a-z][a-z0-9_.-]{3,60})['\x60\]]`)

// serverSettingNamed reports a server error that quotes one of the server's own settings,
// found in the configuration of the Service's backends that the client is configured with.
func (pc *podCheck) serverSettingNamed(ctx context.Context, d *depCheck) bool {
	var tokens []string
	for _, m := range quotedSetting.FindAllStringSubmatch(strings.ToLower(d.clue.Line), 3) {
		if strings.ContainsAny(m[1], "_.-") || len(m[1]) >= 6 {
			tokens = append(tokens, m[1])
		}
	}
	if len(tokens) == 0 {
		return false
	}
	e := pc.e
	for _, s := range pc.configuredServices(ctx, d) {
		p := pc.backendOf(ctx, s)
		if p == nil {
			continue
		}
		pd := &depCheck{pc: &podCheck{e: e, pod: p}, spec: p.Spec.Containers[0]}
		for _, tok := range tokens {
			src := pd.pc.settingLine(ctx, pd, tok)
			if src == nil {
				continue
			}
			sref := e.ref("Service", s.Name)
			d.evIDs = append(d.evIDs, e.objEvidence(src.ref, fmt.Sprintf("%s: %s", src.where, src.value)))
			d.report(ctx, "provider-setting-limit", 0, src.ref, fmt.Sprintf("%s: the error is the server's own: Service %s, which the client calls, refuses the work because of its setting %s, which %s sets (%s). Raise or change %s there (and its policy), or send the server less.",
				d.opening(), s.Name, tok, src.where, src.value, tok), nil, []ObjectRef{src.ref, sref},
				map[string]string{"key": tok, "service": s.Name, "sourceResource": kubectlResource(src.ref)})
			return true
		}
	}
	return false
}

// configuredServices are the Services of the namespace the client is configured to call.
func (pc *podCheck) configuredServices(ctx context.Context, d *depCheck) []*corev1.Service {
	e := pc.e
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return nil
	}
	byName := map[string]*corev1.Service{}
	for _, s := range svcs {
		byName[s.Name] = s
	}
	var out []*corev1.Service
	for i, ch := range pc.configuredHosts(ctx, d) {
		if i >= maxConfiguredHosts {
			break
		}
		name, _, scope := classifyHost(ch.host.Host, e.s.Namespace)
		if s := byName[name]; scope == hostInNamespace && s != nil && len(s.Spec.Selector) > 0 && !containsSvc(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func containsSvc(l []*corev1.Service, s *corev1.Service) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// backendOf is one pod the Service selects, other than the client's own.
func (pc *podCheck) backendOf(ctx context.Context, s *corev1.Service) *corev1.Pod {
	pods, err := listOnce[*corev1.Pod](ctx, pc.e, "Pod", scanMaxObjects)
	if err != nil {
		return nil
	}
	for _, p := range pods {
		if p.Name != pc.pod.Name && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(p.Labels)) {
			return p
		}
	}
	return nil
}

// settingLine finds a line setting tok ("maxmemory 64mb", "max_allowed_packet = 1M") in the
// ConfigMaps the pod mounts or loads, or an env of that name.
func (pc *podCheck) settingLine(ctx context.Context, d *depCheck, tok string) *valueSource {
	e := pc.e
	re := regexp.MustCompile(`(?im)^\s*` + regexp.QuoteMeta(tok) + `\s*[:= ]\s*(\S[^\n]{0,80})$`)
	envName := strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(tok))
	wl := e.workloadOf(ctx, pc.pod)
	for _, c := range pc.pod.Spec.Containers {
		for _, ev := range c.Env {
			if ev.ValueFrom == nil && strings.HasSuffix(strings.ToUpper(ev.Name), envName) {
				return &valueSource{ref: wl, key: ev.Name, value: ev.Value, where: fmt.Sprintf("env %s of %s %s", ev.Name, wl.Kind, wl.Name)}
			}
		}
	}
	seen := 0
	for _, v := range pc.pod.Spec.Volumes {
		if v.ConfigMap == nil || seen >= maxSourceObjects {
			continue
		}
		seen++
		m, err := getAs[*corev1.ConfigMap](ctx, e, "ConfigMap", v.ConfigMap.Name)
		if err != nil {
			continue
		}
		for _, k := range sortedKeys(m.Data) {
			if mm := re.FindStringSubmatch(clipBytes(m.Data[k], 64<<10)); mm != nil {
				return &valueSource{ref: e.ref("ConfigMap", m.Name), key: k, value: strings.TrimSpace(mm[0]), where: fmt.Sprintf("ConfigMap %s key %s", m.Name, k)}
			}
		}
	}
	return nil
}

// Without any text (logs unreachable, no termination message), a server's own settings can
// still show it hands out an address no other pod can call: an advertised, announced or
// published address that is a loopback or the unspecified address 0.0.0.0 (which a listener
// may bind, but nobody can dial). Kafka refuses to start on 0.0.0.0 in advertised.listeners;
// with localhost it starts and every client that bootstraps through the Service is sent to
// its own loopback.

// handedOutName marks a setting whose value is the address handed to clients or peers:
// Kafka's advertised.listeners, Redis' replica-announce-ip and cluster-announce-ip,
// Elasticsearch's network.publish_host, Consul's advertise_addr, NATS' advertise.
var handedOutName = regexp.MustCompile(`(?i)advertis|announce|publish[_.-]?(?:host|addr|address)`)

// unroutable is the first host of a setting value that no other pod can call, with its
// port; "" when every host in it is routable. Values are lists of URLs, host:port pairs or
// bare hosts ("PLAINTEXT://localhost:9092,CONTROLLER://kafka-0:9093").
func unroutable(v string) (host, port string) {
	for _, f := range strings.FieldsFunc(clipBytes(v, 512), func(r rune) bool { return r == ',' || r == ' ' || r == ';' || r == '"' || r == '\'' }) {
		if _, rest, ok := strings.Cut(f, "://"); ok {
			f = rest
		}
		f = strings.TrimSuffix(f, "/")
		h, p := f, ""
		switch {
		case strings.HasPrefix(f, "["): // [::1]:9092
			if i := strings.Index(f, "]"); i > 0 {
				h, p = f[1:i], strings.TrimPrefix(f[i+1:], ":")
			}
		case strings.Count(f, ":") == 1:
			h, p, _ = strings.Cut(f, ":")
		}
		h = strings.ToLower(h)
		if h == "localhost" || h == "0.0.0.0" || h == "::" || h == "::1" || strings.HasPrefix(h, "127.") && strings.Count(h, ".") == 3 {
			return h, p
		}
	}
	return "", ""
}

// handedOutUnroutable is the first setting of container c of pod p that hands out an
// address no other pod can call.
func (e *env) handedOutUnroutable(ctx context.Context, p *corev1.Pod, c corev1.Container) (configSetting, string, bool) {
	for _, s := range e.configSettings(ctx, p, c, e.workloadOf(ctx, p)) {
		if s.secret || !handedOutName.MatchString(s.name) {
			continue
		}
		if h, port := unroutable(s.value); h != "" {
			if port != "" {
				h += ":" + port
			}
			return s, h, true
		}
	}
	return configSetting{}, "", false
}

// quietAdvertised reports a quietly failing server whose own settings hand out an address
// no other pod can call.
func (pc *podCheck) quietAdvertised(ctx context.Context, d *depCheck) bool {
	s, addr, ok := pc.e.handedOutUnroutable(ctx, pc.pod, d.spec)
	if !ok {
		return false
	}
	d.evIDs = append(d.evIDs, pc.e.objEvidence(s.ref, s.where+": "+s.name+" = "+s.value))
	d.report(ctx, "server-advertises-loopback", 0, s.ref, fmt.Sprintf("%s: its own configuration hands out %s, which no other pod can call, as its address for clients and peers: %s. Advertise the pod's or the Service's DNS name instead (a server may bind 0.0.0.0, but never advertise it).",
		d.opening(), addr, s.say()), nil, []ObjectRef{s.ref},
		map[string]string{"key": s.name, "sourceResource": kubectlResource(s.ref)})
	return true
}

// providerHandsOutUnroutable reports a Service the client is configured with whose backend
// hands out an address no other pod can call, for a client that failed without a word or
// on the connection itself (its logs unreadable, or its error naming no address).
func (pc *podCheck) providerHandsOutUnroutable(ctx context.Context, d *depCheck, svc *corev1.Service) bool {
	p := pc.backendOf(ctx, svc)
	if p == nil || len(p.Spec.Containers) == 0 {
		return false
	}
	e := pc.e
	s, addr, ok := e.handedOutUnroutable(ctx, p, p.Spec.Containers[0])
	if !ok {
		return false
	}
	sref := e.ref("Service", svc.Name)
	d.evIDs = append(d.evIDs, e.objEvidence(s.ref, s.where+": "+s.name+" = "+s.value))
	d.report(ctx, "server-advertises-loopback", 0, s.ref, fmt.Sprintf("%s: it is %s to call Service %s, whose server hands out %s as the address to call next, which no other pod can reach: %s. Advertise the Service's or the pod's DNS name instead.",
		d.opening(), d.via, svc.Name, addr, s.say()), nil, []ObjectRef{s.ref, sref},
		map[string]string{"key": s.name, "service": svc.Name, "sourceResource": kubectlResource(s.ref)})
	return true
}
