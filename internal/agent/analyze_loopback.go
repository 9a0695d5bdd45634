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
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A client that fails on 127.0.0.1:PORT (localhost, ::1) for a dependency, while no
// container of its pod listens on PORT, never got the address it was meant to call: client
// libraries fall back to the loopback default when the setting they read (REDIS_URL,
// DATABASE_URL, PGHOST, spring.datasource.url, ...) is absent, or the setting itself says
// localhost. The fault is that setting, on the object a user edits: the ConfigMap that gives
// the client its other connection settings, or the workload's env.

// loopbackHost finds a loopback address in an error line; loopbackPortAfter and portWord
// read the port next to it ("127.0.0.1:6379", "localhost/127.0.0.1:9092", "\"localhost\"
// (::1), port 5432").
var (
	loopbackHost      = regexp.MustCompile(`(?i)(?:\blocalhost\b|\b127\.0\.0\.1\b|\[::1\]|\(::1\)|\b0\.0\.0\.0\b)`)
	loopbackPortAfter = regexp.MustCompile(`^(?:/127\.0\.0\.1)?["']?:(\d{2,5})\b`)
	portWord          = regexp.MustCompile(`(?i)\bport[ =:"]*(\d{2,5})\b`)
)

// loopbackTarget returns the loopback address and the port an error line calls ("" when none).
func loopbackTarget(line string) (addr, port string) {
	for _, m := range loopbackHost.FindAllStringIndex(line, 3) {
		if p := loopbackPortAfter.FindStringSubmatch(line[m[1]:]); p != nil {
			return strings.Trim(line[m[0]:m[1]+len(p[0])], "()\"'"), p[1]
		}
		if p := portWord.FindStringSubmatch(line[m[1]:]); p != nil {
			return strings.Trim(line[m[0]:m[1]], "()") + " port " + p[1], p[1]
		}
	}
	return "", ""
}

// isLoopbackValue reports a setting value that points at the pod itself.
func isLoopbackValue(v string) bool { return loopbackHost.MatchString(v) }

// podListens reports a container of the pod (a sidecar proxy, an ambassador) that declares
// port: then loopback is the intended address and the fault is elsewhere.
func podListens(p *corev1.Pod, port string) bool {
	n, err := strconv.Atoi(port)
	if err != nil {
		return false
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			for _, cp := range c.Ports {
				if int(cp.ContainerPort) == n {
					return true
				}
			}
		}
	}
	return false
}

// loopbackDefault handles a dependency error on a loopback address nothing in the pod serves.
func (pc *podCheck) loopbackDefault(ctx context.Context, d *depCheck) bool {
	if !networkClass(d.clue.Class) && d.clue.Class != ErrGeneric {
		return false
	}
	if len(d.clue.alsoKeys) > 0 && networkClass(d.clue.Class) {
		return false // a line names the setting that is not set: missingSettings says so
	}
	line := d.clue.Line
	addr, port := loopbackTarget(line)
	if port == "" {
		// The line that scored highest may be a framework's "run failed"; the connection
		// error it wraps is a few lines away.
		line, addr, port = loopbackErrorLine(pc.lines[d.cs.Name])
	}
	if port == "" || podListens(pc.pod, port) {
		return false
	}
	opening := d.opening()
	if line != d.clue.Line {
		opening += fmt.Sprintf(", after %s", quoteLine(tools.Sanitize(line, maxClueLineLen, true)))
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	settings := e.configSettings(ctx, pc.pod, d.spec, wl)
	svc := pc.serviceOnPort(ctx, port, settings)
	to := "the address of the Service that serves it"
	if svc != "" {
		to = fmt.Sprintf("the address of Service %s (%s:%s)", svc, svc, port)
	}
	// The setting itself says loopback: it is the one to change.
	for _, s := range settings {
		if s.secret || !isLoopbackValue(s.value) || connectionScore(s, "", port) == 0 && !strings.Contains(s.value, ":"+port) {
			continue
		}
		d.evIDs = append(d.evIDs, e.objEvidence(s.ref, s.where+": "+s.value))
		d.report(ctx, "dependency-default-address", 86, s.ref, fmt.Sprintf("%s: %s is the pod's own loopback address and nothing in the pod listens on port %s: %s points the client at itself, a default fit for a laptop, not for a pod. Set %s to %s in %s.",
			opening, addr, port, s.say(), s.name, to, s.where), nil, pc.withService(s.ref, svc),
			map[string]string{"key": s.name, "address": addr, "sourceResource": kubectlResource(s.ref)})
		return true
	}
	related := connectionSettings(settings, "", port, 4)
	// The client reaches the configured host elsewhere in its log: it reads the setting, and
	// the loopback address came from somewhere else (a server that advertises it).
	var missing []string
	for _, k := range append(d.clue.Keys, unsetNames(pc.lines[d.cs.Name])...) {
		if connectionScore(configSetting{name: k}, "", port) > 0 && !settingGiven(settings, k) && !containsStr(missing, k) && len(missing) < 2 {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 && len(related) > 0 && relatedHostLogged(d, related) {
		return false
	}
	holder, conf := wl, 72
	var why string
	switch {
	case len(missing) > 0 && len(related) > 0:
		holder, conf = related[0].ref, 84
		why = fmt.Sprintf("its log says it looks for %s, which is not set, and falls back to the default; it is given %s, which it does not read", strings.Join(missing, " and "), saySettings(related))
	case len(missing) > 0:
		holder, conf = envHolder(pc.pod, d.spec, wl, e), 82
		why = fmt.Sprintf("its log says it looks for %s, which is not set, so it falls back to the default", strings.Join(missing, " and "))
	case len(related) > 0:
		holder, conf = related[0].ref, 80
		why = fmt.Sprintf("it is given %s, which it does not read: the client expects its address under another name (a URL, another prefix), so it falls back to the default", saySettings(related))
	default:
		holder = envHolder(pc.pod, d.spec, wl, e)
		why = "none of its env, ConfigMaps or arguments gives it an address for that server, so it falls back to the default"
	}
	name, fix := "", fmt.Sprintf("Give the client %s under the setting name it reads, in %s %s.", to, holder.Kind, holder.Name)
	if len(missing) > 0 {
		name, fix = missing[0], fmt.Sprintf("Set %s to %s in %s %s.", missing[0], to, holder.Kind, holder.Name)
	}
	d.report(ctx, "dependency-default-address", conf, holder, fmt.Sprintf("%s: %s is the client's built-in default, the pod's own loopback address, where nothing listens on port %s: %s. %s",
		opening, addr, port, why, fix), nil, pc.withService(holder, svc),
		map[string]string{"key": name, "address": addr, "sourceResource": kubectlResource(holder)})
	return true
}

// connErrorWord marks a line about a failed connection.
var connErrorWord = regexp.MustCompile(`(?i)refused|unable to connect|could not connect|cannot connect|can't connect|failed to connect|connect(?:ion)? (?:error|failed|timed out)|timeout|timed out|unreachable|no route`)

// loopbackErrorLine is the newest log line that reports a failed connection to a loopback
// address and port.
func loopbackErrorLine(lines []string) (line, addr, port string) {
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-maxClueLines; i-- {
		if !connErrorWord.MatchString(lines[i]) {
			continue
		}
		if a, p := loopbackTarget(lines[i]); p != "" {
			return lines[i], a, p
		}
	}
	return "", "", ""
}

// unsetWords find the setting a log line says is not set: "DATABASE_URL not set", "REDIS_URL
// is not set, using ...", "env var KAFKA_BROKERS is undefined", "missing MONGO_URI".
var unsetWords = []*regexp.Regexp{
	regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9_.]{2,80}[A-Za-z0-9])["']?\s+(?:is\s+|was\s+)?(?:not set|unset|not defined|undefined|not provided|not configured|is empty|empty)\b`),
	regexp.MustCompile(`(?i:missing|no)\s+(?:(?i:env(?:ironment)?)\s+)?(?:(?i:var(?:iable)?)\s+)?["']?([A-Z][A-Z0-9_]{2,80})\b`),
}

// unsetNames are the settings the log lines say are not set (at most 4).
func unsetNames(lines []string) []string {
	var out []string
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-maxClueLines && len(out) < 4; i-- {
		for _, re := range unsetWords {
			for _, m := range re.FindAllStringSubmatch(lines[i], 2) {
				if !containsStr(out, m[1]) && len(out) < 4 {
					out = append(out, m[1])
				}
			}
		}
	}
	return out
}

// settingGiven reports a setting of that name (any case and separator) among settings.
func settingGiven(settings []configSetting, name string) bool {
	n := settingName(name)
	for _, s := range settings {
		if settingName(s.name) == n {
			return true
		}
	}
	return false
}

// relatedHostLogged reports a host a related setting names in the client's error line.
func relatedHostLogged(d *depCheck, related []configSetting) bool {
	low := strings.ToLower(d.clue.Line)
	for _, s := range related {
		for _, h := range d.clue.Hosts {
			if h.Host != "" && containsToken(strings.ToLower(s.value), h.Host) {
				return true
			}
		}
		if v := strings.ToLower(s.value); len(v) >= 4 && !isLoopbackValue(v) && strings.Trim(v, "0123456789") != "" && strings.Contains(low, v) {
			return true
		}
	}
	return false
}

// envHolder is where a new setting goes: the first ConfigMap the container loads whole with
// envFrom, else its workload's env.
func envHolder(p *corev1.Pod, c corev1.Container, wl ObjectRef, e *env) ObjectRef {
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef != nil {
			return e.ref("ConfigMap", ef.ConfigMapRef.Name)
		}
	}
	return wl
}

// serviceOnPort names the Service of the namespace the client was meant to call on port: one
// a related setting names, else the only one exposing that port.
func (pc *podCheck) serviceOnPort(ctx context.Context, port string, settings []configSetting) string {
	svcs, err := listOnce[*corev1.Service](ctx, pc.e, "Service", maxServiceList)
	if err != nil {
		return ""
	}
	n, _ := strconv.Atoi(port)
	var on []*corev1.Service
	for _, s := range svcs {
		if serviceHasPort(s, int32(n)) {
			on = append(on, s)
		}
	}
	for _, st := range settings {
		for _, s := range on {
			if !st.secret && containsToken(strings.ToLower(st.value), s.Name) {
				return s.Name
			}
		}
	}
	// Headless Services sit beside a normal one for the same pods: count the normal ones.
	var normal []*corev1.Service
	for _, s := range on {
		if s.Spec.ClusterIP != corev1.ClusterIPNone {
			normal = append(normal, s)
		}
	}
	if len(normal) == 1 {
		return normal[0].Name
	}
	return ""
}

// withService lists the holder and the Service meant (when known).
func (pc *podCheck) withService(holder ObjectRef, svc string) []ObjectRef {
	refs := []ObjectRef{holder}
	if svc != "" {
		refs = append(refs, pc.e.ref("Service", svc))
	}
	return refs
}
