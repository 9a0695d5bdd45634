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
)

// Faults the container's spec shows on its face, for a container that failed without a word
// (logs unreadable or empty, no termination message): what it was given cannot work whatever
// the application would have said.
//   - an env value that uses $(NAME) where NAME is defined later in the same env list: the
//     kubelet expands only variables defined before, so the application gets "$(NAME)";
//   - a setting the kubelet fills with a Service link value: a Service named like the prefix
//     of the container's own host setting (redis, for REDIS_HOST) makes the kubelet set
//     REDIS_PORT=tcp://IP:6379, which an application expecting a port number cannot read;
//   - a server setting that hands out a loopback or unspecified address (quietAdvertised);
//   - a configured name, or the ExternalName alias behind one, that misspells the cluster
//     domain (quietMisspeltName);
//   - egress policies that admit no DNS while it calls hosts by name (egressDNSDenied);
//   - an address it is configured with that names no Service of the namespace (quietUnknownHost).

// specFaults reports the first such fault of a quietly failing container.
func (pc *podCheck) specFaults(ctx context.Context, d *depCheck) bool {
	return pc.envDefinedLater(ctx, d) || pc.quietServiceLink(ctx, d) || pc.quietAdvertised(ctx, d) || pc.quietMisspeltName(ctx, d) || pc.egressDNSDenied(ctx, d) || pc.quietUnknownHost(ctx, d)
}

// laterRef is an env value's $(NAME) reference to a variable defined after it.
type laterRef struct{ user, name string }

// envRefsDefinedLater lists the env entries of c that refer to a variable defined only later
// in the same list (at most 3); envFrom ConfigMap keys (all defined before env) count as known.
func envRefsDefinedLater(c corev1.Container, envFromKeys map[string]bool) []laterRef {
	first := map[string]int{}
	for i, ev := range c.Env {
		if _, ok := first[ev.Name]; !ok {
			first[ev.Name] = i
		}
	}
	var out []laterRef
	for i, ev := range c.Env {
		if ev.ValueFrom != nil || !strings.Contains(ev.Value, "$(") {
			continue
		}
		v := strings.ReplaceAll(clipBytes(ev.Value, 4096), "$$(", "")
		for _, m := range envRef.FindAllStringSubmatch(v, 8) {
			j, ok := first[m[1]]
			if ok && j > i && !envFromKeys[m[1]] && len(out) < 3 {
				out = append(out, laterRef{ev.Name, m[1]})
			}
		}
	}
	return out
}

// envDefinedLater reports an env reference the kubelet leaves unexpanded because of the
// order of the env list.
func (pc *podCheck) envDefinedLater(ctx context.Context, d *depCheck) bool {
	known := map[string]bool{}
	for _, k := range pc.settingNames(ctx, &depCheck{spec: corev1.Container{EnvFrom: d.spec.EnvFrom}}) {
		known[k] = true
	}
	refs := envRefsDefinedLater(d.spec, known)
	if len(refs) == 0 {
		return false
	}
	r := refs[0]
	wl := pc.e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"key": r.name, "sourceResource": kubectlResource(wl)}
	d.report(ctx, "config-value-missing", 0, wl, fmt.Sprintf("%s: env %s of container %s uses $(%s), but %s is defined after it in the env list of %s %s; the kubelet expands only variables defined earlier, so the application receives the literal text \u201c$(%s)\u201d. Move %s above %s in the env list.",
		d.opening(), r.user, d.spec.Name, r.name, r.name, wl.Kind, wl.Name, r.name, r.name, r.user), nil, nil, facts)
	return true
}

// quietServiceLink reports a Service link variable that collides with the container's own
// settings, read from the spec alone: the pod keeps enableServiceLinks on, a Service in the
// namespace is named like the prefix of settings the container sets (REDIS_HOST), and the
// container does not set the link's PREFIX_PORT itself.
func (pc *podCheck) quietServiceLink(ctx context.Context, d *depCheck) bool {
	if l := pc.pod.Spec.EnableServiceLinks; l != nil && !*l {
		return false
	}
	svcs, err := listOnce[*corev1.Service](ctx, pc.e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	configured := pc.settingNames(ctx, d)
	wl := pc.e.workloadOf(ctx, pc.pod)
	values := map[string]string{}
	for _, cs := range pc.e.configSettings(ctx, pc.pod, d.spec, wl) {
		if _, ok := values[cs.name]; !ok {
			values[cs.name] = cs.value
		}
	}
	for _, s := range svcs {
		if s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone || len(s.Spec.Ports) == 0 {
			continue
		}
		prefix := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
		if containsStr(configured, prefix+"_PORT") {
			continue // the spec sets it, and the spec wins over links
		}
		own := ""
		for _, k := range configured {
			// A host set alone (REDIS_HOST) is read beside a port setting of the same prefix.
			if rest, ok := strings.CutPrefix(k, prefix+"_"); ok && hostOnlySuffix[rest] && !strings.Contains(values[k], ":") {
				own = k
				break
			}
		}
		if own == "" {
			continue
		}
		v := prefix + "_PORT"
		dd := *d
		if dd.conf == 0 || dd.conf > driftConfidence {
			dd.conf = driftConfidence
		}
		facts := map[string]string{"key": v, "service": s.Name, "sourceResource": kubectlResource(wl)}
		dd.report(ctx, "service-link-collision", 0, wl, fmt.Sprintf("%s: Service %s exists and the pod keeps enableServiceLinks on, so the kubelet sets env %s=tcp://%s:%d in the container, which configures %s itself (%s) but not %s: an application that reads %s as a port number fails on that value. Set enableServiceLinks: false in the pod template of %s %s (or set %s explicitly).",
			d.opening(), s.Name, v, s.Spec.ClusterIP, s.Spec.Ports[0].Port, strings.TrimSuffix(prefix, "_")+"_*", own, v, v, wl.Kind, wl.Name, v), nil, []ObjectRef{pc.e.ref("Service", s.Name)}, facts)
		return true
	}
	return false
}

// hostOnlySuffix ends the names of settings that give a host without its port.
var hostOnlySuffix = map[string]bool{"HOST": true, "HOSTNAME": true, "ADDR": true, "SERVER": true, "SERVICE_NAME": true}

// rootFSHint says, for a container that failed without a word, that it cannot write outside
// its volumes: many servers write a cache, a pid or a temp file at start.
func rootFSHint(c corev1.Container) string {
	if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
		return ""
	}
	var w []string
	for _, m := range c.VolumeMounts {
		if !m.ReadOnly {
			w = append(w, m.MountPath)
		}
	}
	return fmt.Sprintf("its root filesystem is read-only (securityContext.readOnlyRootFilesystem: true), so it can write only under its writable mounts (%s): a write anywhere else fails with \u201cread-only file system\u201d",
		orDefault(strings.Join(clipList(w, 4), ", "), "none"))
}

// execFailure is the container runtime's refusal to start the command it was given.
var execFailure = regexp.MustCompile(`exec: "([^"]{1,300})": (executable file not found in \$PATH|stat [^:]{1,300}: no such file or directory|permission denied)`)

// execNotFound reports a container the runtime could not start because its command names no
// executable of the image: most often a command written as one string ("bundle exec rails
// db:migrate"), which the runtime runs without a shell, looking for a file of that whole name.
func (pc *podCheck) execNotFound(ctx context.Context, d *depCheck) bool {
	text := d.clue.Line
	if t := lastTermination(d.cs); t != nil {
		text += "\n" + clipString(t.Message, 2000)
	}
	m := execFailure.FindStringSubmatch(strings.ReplaceAll(text, `\"`, `"`))
	if m == nil {
		return false
	}
	exe, why := m[1], m[2]
	field, list := "command", d.spec.Command
	if len(list) == 0 {
		field, list = "args", d.spec.Args
	}
	if len(list) == 0 || list[0] != exe {
		return false
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	exit := int32(128)
	if t := lastTermination(d.cs); t != nil {
		exit = t.ExitCode
	}
	var s string
	if strings.ContainsAny(exe, " \t") {
		parts := strings.Fields(exe)
		s = fmt.Sprintf("%s: the runtime could not start it (exit code %d, %q): the %s of container %s in %s %s is written as one string, %q, and the runtime runs no shell, so it looks for an executable named with the spaces included. Write it as a list, %s: [%s], or run it through a shell (sh -c).",
			d.opening(), exit, why, field, d.spec.Name, wl.Kind, wl.Name, exe, field, strings.Join(parts, ", "))
	} else {
		s = fmt.Sprintf("%s: the runtime could not start it (exit code %d, %q): the %s of container %s in %s %s names %q, which image %s does not provide at that path or on its PATH. Fix the %s (or the image).",
			d.opening(), exit, why, field, d.spec.Name, wl.Kind, wl.Name, exe, d.spec.Image, field)
	}
	facts := map[string]string{"exitCode": fmt.Sprint(exit), "exitMeaning": "the command could not be run", "field": field}
	d.report(ctx, "container-command-invalid", 0, wl, s, nil, nil, facts)
	return true
}
