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
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A container that fails without a word (no termination message, logs unreachable or
// empty) still leaves its exit code, and its spec still says what it was given. Two kinds of
// configuration fail silently and are checked here before anything else is guessed:
//   - the command or arguments run a file from a ConfigMap or Secret volume that does not
//     provide it (sh exits 127 or 2, an interpreter 1 or 2, the runtime 126/127/128);
//   - an optional reference (env valueFrom or envFrom with optional: true) points at an
//     object or key that does not exist: the kubelet starts the container anyway, with the
//     variables silently unset, and the application exits on its own.

// quietConfig reports the configuration a quietly failing container was not really given.
// It also runs for a container whose error text named nothing the cluster knows: the spec
// proves the same thing whether or not the log could be read.
func (pc *podCheck) quietConfig(ctx context.Context, d *depCheck) bool {
	dd := *d
	if t := lastTermination(d.cs); t != nil && !d.clue.IsError() {
		dd.symptom += fmt.Sprintf(" with no error in its termination message or log (exit code %d: %s)", t.ExitCode, ExitMeaning(t.ExitCode))
	}
	if paths := commandPaths(d.spec, pc.pod); len(paths) > 0 {
		df := dd
		df.clue = Clue{Class: ErrConfig, Paths: paths, Line: d.clue.Line}
		if pc.missingFiles(ctx, &df) {
			return true
		}
	}
	return pc.optionalRefsMissing(ctx, &dd) || pc.downwardUnits(ctx, &dd) || pc.invalidConfigFiles(ctx, &dd) || pc.readOnlyScratch(ctx, &dd) ||
		!d.clue.IsError() && pc.specFaults(ctx, &dd)
}

// commandPaths are the absolute paths the container's command, arguments and literal env
// values (CONFIG_FILE=/etc/app/app.yaml, AWS_SHARED_CREDENTIALS_FILE=/creds/cloud) name that
// lie inside a ConfigMap or Secret volume it mounts (at most 3).
func commandPaths(c corev1.Container, p *corev1.Pod) []string {
	var out []string
	words := commandLine(c)
	for _, ev := range c.Env {
		if ev.ValueFrom == nil && strings.HasPrefix(ev.Value, "/") {
			words = append(words, ev.Value)
		}
	}
	for _, a := range words {
		for _, f := range strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == '=' || r == ',' || r == ';' || r == '"' || r == '\'' }) {
			if len(out) >= 3 || !strings.HasPrefix(f, "/") || len(f) > 512 || path.Clean(f) != f {
				continue
			}
			if m, v := mountFor(c, p, f); m != nil && v != nil && (v.ConfigMap != nil || v.Secret != nil) && f != strings.TrimSuffix(m.MountPath, "/") && !containsStr(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// optionalRefsMissing blames an optional env reference of the failing container whose
// object or key does not exist.
func (pc *podCheck) optionalRefsMissing(ctx context.Context, d *depCheck) bool {
	e := pc.e
	type miss struct {
		kind, name, key, envName string
	}
	var misses []miss
	checked := 0
	exists := func(kind, name string) (bool, []string, bool) {
		if checked >= maxSourceObjects {
			return false, nil, false
		}
		checked++
		o, err := e.get(ctx, kind, name)
		switch {
		case tools.IsNotFound(err):
			return false, nil, true
		case err != nil:
			return false, nil, false
		}
		return true, objectKeys(o), true
	}
	for _, ev := range d.spec.Env {
		if ev.ValueFrom == nil {
			continue
		}
		var kind, name, key string
		switch {
		case ev.ValueFrom.ConfigMapKeyRef != nil && ev.ValueFrom.ConfigMapKeyRef.Optional != nil && *ev.ValueFrom.ConfigMapKeyRef.Optional:
			r := ev.ValueFrom.ConfigMapKeyRef
			kind, name, key = "ConfigMap", r.Name, r.Key
		case ev.ValueFrom.SecretKeyRef != nil && ev.ValueFrom.SecretKeyRef.Optional != nil && *ev.ValueFrom.SecretKeyRef.Optional:
			r := ev.ValueFrom.SecretKeyRef
			kind, name, key = "Secret", r.Name, r.Key
		default:
			continue
		}
		found, keys, ok := exists(kind, name)
		if ok && (!found || !containsStr(keys, key)) {
			misses = append(misses, miss{kind: kind, name: name, key: key, envName: ev.Name})
		}
	}
	for _, ef := range d.spec.EnvFrom {
		var kind, name string
		switch {
		case ef.ConfigMapRef != nil && ef.ConfigMapRef.Optional != nil && *ef.ConfigMapRef.Optional:
			kind, name = "ConfigMap", ef.ConfigMapRef.Name
		case ef.SecretRef != nil && ef.SecretRef.Optional != nil && *ef.SecretRef.Optional:
			kind, name = "Secret", ef.SecretRef.Name
		default:
			continue
		}
		if found, _, ok := exists(kind, name); ok && !found {
			misses = append(misses, miss{kind: kind, name: name})
		}
	}
	if len(misses) == 0 {
		return false
	}
	m := misses[0]
	ref := e.ref(m.kind, m.name)
	wl := e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"sourceResource": kubectlResource(ref)}
	var summary string
	if m.key == "" {
		facts["missing"], facts["key"] = m.name, "the settings it loads"
		summary = fmt.Sprintf("%s: it loads every key of %s %s with envFrom marked optional, and %s %s does not exist, so the kubelet started it with none of those settings. Create %s %s, or fix the name in %s %s.",
			d.opening(), m.kind, m.name, m.kind, m.name, m.kind, m.name, wl.Kind, wl.Name)
	} else {
		facts["key"], facts["env"] = m.key, m.envName
		_, keys, _ := exists(m.kind, m.name)
		have := "the object does not exist"
		if keys != nil {
			have = "it has " + orDefault(strings.Join(clipList(keys, 8), ", "), "no keys")
		}
		summary = fmt.Sprintf("%s: env %s comes from key %s of %s %s, marked optional, and that key is missing (%s), so the variable is unset. Add key %s to %s %s, or point %s at the key it was renamed to in %s %s.",
			d.opening(), m.envName, m.key, m.kind, m.name, have, m.key, m.kind, m.name, m.envName, wl.Kind, wl.Name)
	}
	d.report(ctx, "config-value-missing", 0, ref, summary, nil, []ObjectRef{ref}, facts)
	return true
}

// lastTermination is the container's current or previous termination.
func lastTermination(cs corev1.ContainerStatus) *corev1.ContainerStateTerminated {
	if cs.State.Terminated != nil {
		return cs.State.Terminated
	}
	return cs.LastTerminationState.Terminated
}

// commandLineHint says, for a failure without text, what the spec shows about the exit code's
// usual cause: a usage error (exit 2, or 64 from sysexits) is the command line the program
// rejected; 126 and 127 are the command that cannot run. "" when the code says nothing of it.
func commandLineHint(exit int32, c corev1.Container) string {
	line := strings.Join(commandLine(c), " ")
	if strings.TrimSpace(line) == "" {
		return ""
	}
	switch exit {
	case 2, 64:
		return fmt.Sprintf("exit code %d usually means the program rejected its command line, which is: %s", exit, tools.Sanitize(line, 200, true))
	case 126, 127:
		if len(c.Command) > 0 {
			return fmt.Sprintf("exit code %d means its command %s could not be run", exit, tools.Sanitize(c.Command[0], 120, true))
		}
	}
	return ""
}

// commandLine is the container's command followed by its arguments (a new slice).
func commandLine(c corev1.Container) []string {
	return append(append([]string(nil), c.Command...), c.Args...)
}
