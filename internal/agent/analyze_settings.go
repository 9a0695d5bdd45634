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
	"regexp"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// What a failing container's text says is missing (a setting, a file, working credentials,
// a database schema) is matched against the configuration the pod is given: its env, the
// ConfigMaps and Secrets it loads, the volumes it mounts, and the Jobs that prepare it.

// valueSource is where a value the application uses comes from.
type valueSource struct {
	ref   ObjectRef // the ConfigMap holding it, or the workload whose spec sets it
	key   string
	value string
	where string // "ConfigMap web-config key DB_HOST"
}

const maxSourceObjects = 6

// configMapsUpTo returns a reader of the namespace's ConfigMaps by name that reads at most
// max of them (nil for the rest, and for any it cannot read): one check's bound on what a
// pod's references make it fetch.
func (e *env) configMapsUpTo(ctx context.Context, max int) func(name string) *corev1.ConfigMap {
	fetched := 0
	return func(name string) *corev1.ConfigMap {
		if fetched >= max {
			return nil
		}
		fetched++
		c, err := getAs[*corev1.ConfigMap](ctx, e, "ConfigMap", name)
		if err != nil {
			return nil
		}
		return c
	}
}

// containersFirst lists the failing container first, then the pod's other containers.
func (d *depCheck) containersFirst() []corev1.Container {
	out := []corev1.Container{d.spec}
	for _, c := range append(append([]corev1.Container(nil), d.pc.pod.Spec.InitContainers...), d.pc.pod.Spec.Containers...) {
		if c.Name != d.spec.Name {
			out = append(out, c)
		}
	}
	return out
}

// findValue finds needle (a host, host:port or port) in the values the pod is configured
// with: literal env values, arguments, and the ConfigMaps it loads. Secret values are never
// read.
func (pc *podCheck) findValue(ctx context.Context, d *depCheck, needle string) *valueSource {
	needle = strings.ToLower(needle)
	if needle == "" {
		return nil
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	fromCM := func(c *corev1.ConfigMap, only string) *valueSource {
		for _, k := range sortedKeys(c.Data) {
			if (only == "" || k == only) && containsToken(c.Data[k], needle) {
				return &valueSource{ref: e.ref("ConfigMap", c.Name), key: k, value: tools.Sanitize(c.Data[k], 200, true), where: fmt.Sprintf("ConfigMap %s key %s", c.Name, k)}
			}
		}
		return nil
	}
	for _, c := range d.containersFirst() {
		for _, ev := range c.Env {
			switch {
			case ev.ValueFrom == nil && containsToken(ev.Value, needle):
				return &valueSource{ref: wl, key: ev.Name, value: tools.Sanitize(ev.Value, 200, true), where: fmt.Sprintf("env %s of container %s in %s %s", ev.Name, c.Name, wl.Kind, wl.Name)}
			case ev.ValueFrom != nil && ev.ValueFrom.ConfigMapKeyRef != nil:
				if m := cm(ev.ValueFrom.ConfigMapKeyRef.Name); m != nil {
					if s := fromCM(m, ev.ValueFrom.ConfigMapKeyRef.Key); s != nil {
						return s
					}
				}
			}
		}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef != nil {
				if m := cm(ef.ConfigMapRef.Name); m != nil {
					if s := fromCM(m, ""); s != nil {
						return s
					}
				}
			}
		}
		for _, a := range commandLine(c) {
			if containsToken(a, needle) {
				return &valueSource{ref: wl, key: "args", value: tools.Sanitize(a, 200, true), where: fmt.Sprintf("the arguments of container %s in %s %s", c.Name, wl.Kind, wl.Name)}
			}
		}
	}
	for _, v := range pc.pod.Spec.Volumes {
		if v.ConfigMap != nil {
			if m := cm(v.ConfigMap.Name); m != nil {
				if s := fromCM(m, ""); s != nil {
					return s
				}
			}
		}
	}
	return pc.ingressAnnotationValue(ctx, needle)
}

// containsToken finds needle in s as a whole host-like token (not inside a longer name).
func containsToken(s, needle string) bool {
	s = strings.ToLower(clipBytes(s, 64<<10))
	for i := 0; ; {
		j := strings.Index(s[i:], needle)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isNameByte(s[j-1]) && s[j-1] != '.'
		after := j+len(needle) == len(s) || !isNameByte(s[j+len(needle)]) && !keyPosition(s[j+len(needle):])
		if before && after {
			return true
		}
		i = j + 1
	}
}

// keyPosition reports text that follows a setting's name rather than its value ("=…",
// "\": …", ": " at the end of a YAML key): "Database=catalog" names no host "database".
func keyPosition(rest string) bool {
	rest = strings.TrimLeft(clipBytes(rest, 3), `"'`)
	return strings.HasPrefix(rest, "=") || rest == ":" || strings.HasPrefix(rest, ": ") || strings.HasPrefix(rest, ":\n")
}

func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_'
}

var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]{2,80}$`)

// missingSettings handles "X is not set": the setting is absent from everything the
// container loads, so the fix is a key in the ConfigMap it loads with envFrom, or an env
// entry on the workload.
func (pc *podCheck) missingSettings(ctx context.Context, d *depCheck) bool {
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	for i, key := range d.clue.Keys {
		if i >= 3 {
			continue
		}
		if !envName.MatchString(key) {
			if key = pc.conventionalEnvName(ctx, d, key); key == "" {
				continue
			}
		}
		c := d.spec
		defined, empty := false, false
		for _, ev := range c.Env {
			if ev.Name == key {
				defined, empty = true, ev.ValueFrom == nil && ev.Value == ""
			}
		}
		var envFromCMs []*corev1.ConfigMap
		var envFromSecrets []string
		var absent []ObjectRef // envFrom sources that do not exist (possible only when optional)
		var prefixed []string  // "ConfigMap x (prefix P)" that has the key, renamed by its prefix
		for _, ef := range c.EnvFrom {
			switch {
			case ef.ConfigMapRef != nil:
				m, err := getAs[*corev1.ConfigMap](ctx, e, "ConfigMap", ef.ConfigMapRef.Name)
				if tools.IsNotFound(err) {
					absent = append(absent, e.ref("ConfigMap", ef.ConfigMapRef.Name))
				}
				if err != nil {
					continue
				}
				if _, ok := m.Data[strings.TrimPrefix(key, ef.Prefix)]; ok && strings.HasPrefix(key, ef.Prefix) {
					defined = true
				} else if _, ok := m.Data[key]; ok && ef.Prefix != "" {
					prefixed = append(prefixed, fmt.Sprintf("ConfigMap %s loads it as %s%s (envFrom prefix %s)", m.Name, ef.Prefix, key, ef.Prefix))
				}
				envFromCMs = append(envFromCMs, m)
			case ef.SecretRef != nil:
				envFromSecrets = append(envFromSecrets, ef.SecretRef.Name)
				s, err := getAs[*corev1.Secret](ctx, e, "Secret", ef.SecretRef.Name)
				if tools.IsNotFound(err) {
					absent = append(absent, e.ref("Secret", ef.SecretRef.Name))
				}
				if err == nil && containsStr(tools.SecretKeys(s), strings.TrimPrefix(key, ef.Prefix)) {
					defined = true
				}
			}
		}
		if !defined && pc.serviceLinkMissing(ctx, d, key) {
			return true
		}
		var near ObjectRef
		nearNote := ""
		for _, m := range envFromCMs {
			if nearNote = nearKeyNote(key, sortedKeys(m.Data)); nearNote != "" {
				near = e.ref("ConfigMap", m.Name)
				break
			}
		}
		for _, name := range envFromSecrets {
			if nearNote != "" {
				break
			}
			if sec, err := getAs[*corev1.Secret](ctx, e, "Secret", name); err == nil {
				if nearNote = nearKeyNote(key, tools.SecretKeys(sec)); nearNote != "" {
					near = e.ref("Secret", name)
				}
			}
		}
		facts := map[string]string{"key": key}
		switch {
		case empty:
			facts["sourceResource"] = kubectlResource(wl)
			d.report(ctx, "config-value-missing", 0, wl, fmt.Sprintf("%s: env %s is set to an empty value in %s %s.", d.opening(), key, wl.Kind, wl.Name), nil, nil, facts)
			return true
		case defined:
			continue
		case len(prefixed) > 0:
			// The value is there under another name: the prefix envFrom adds renames it.
			facts["sourceResource"] = kubectlResource(wl)
			d.report(ctx, "config-value-missing", 0, wl, fmt.Sprintf("%s: %s has no env %s, but %s: drop the prefix or set %s explicitly in %s %s.",
				d.opening(), c.Name, key, prefixed[0], key, wl.Kind, wl.Name), nil, nil, facts)
			return true
		case len(absent) > 0:
			// The container loads its settings from an object that does not exist (allowed
			// only with optional: true): that object, not a missing key, is the fault.
			ref := absent[0]
			facts["sourceResource"], facts["missing"] = kubectlResource(ref), ref.Name
			d.report(ctx, "config-value-missing", 0, ref, fmt.Sprintf("%s: the setting %s is in none of its env entries; container %s loads its settings with envFrom from %s %s, marked optional, which does not exist. Create %s %s with %s, or fix the name in %s %s.",
				d.opening(), key, c.Name, ref.Kind, ref.Name, ref.Kind, ref.Name, key, wl.Kind, wl.Name), nil, []ObjectRef{ref}, facts)
			return true
		case near.Name != "":
			// A source it loads holds the setting under a near name (master_key for
			// RAILS_MASTER_KEY, sentry-dsn for SENTRY_DSN): that key is the likelier fix.
			facts["sourceResource"] = kubectlResource(near)
			d.report(ctx, "config-value-missing", 0, near, fmt.Sprintf("%s: the setting %s is in none of its env entries, and %s %s, which it loads with envFrom, has no key %s.%s",
				d.opening(), key, near.Kind, near.Name, key, nearNote), nil, []ObjectRef{near}, facts)
			return true
		case pc.settingInLoadedFile(ctx, d, key, facts):
			return true
		case len(envFromCMs) > 0:
			m := envFromCMs[0]
			ref := e.ref("ConfigMap", m.Name)
			facts["sourceResource"] = kubectlResource(ref)
			keys := sortedKeys(m.Data)
			d.evIDs = append(d.evIDs, e.objEvidence(ref, fmt.Sprintf("ConfigMap %s keys: %s", m.Name, orDefault(strings.Join(clipList(keys, 12), ", "), "none"))))
			d.report(ctx, "config-value-missing", 0, ref, fmt.Sprintf("%s: the setting %s is in none of its env entries, and ConfigMap %s, which it loads with envFrom, has no key %s (keys: %s). Add the key to the ConfigMap, then restart %s %s.",
				d.opening(), key, m.Name, key, orDefault(strings.Join(clipList(keys, 8), ", "), "none"), wl.Kind, wl.Name), nil, []ObjectRef{ref}, facts)
			return true
		case len(envFromSecrets) > 0 && secretLike(key):
			ref := e.ref("Secret", envFromSecrets[0])
			facts["sourceResource"] = kubectlResource(ref)
			d.report(ctx, "config-value-missing", 0, ref, fmt.Sprintf("%s: the setting %s is in none of its env entries, and Secret %s, which it loads with envFrom, has no key %s.", d.opening(), key, ref.Name, key), nil, []ObjectRef{ref}, facts)
			return true
		default:
			facts["sourceResource"] = kubectlResource(wl)
			d.report(ctx, "config-value-missing", 0, wl, fmt.Sprintf("%s: container %s has no env %s and loads no ConfigMap or Secret that sets it; add it to %s %s.", d.opening(), c.Name, key, wl.Kind, wl.Name), nil, nil, facts)
			return true
		}
	}
	return false
}

func secretLike(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"pass", "token", "secret", "key", "cred", "auth", "cert"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// missingFiles handles "open /path: no such file": the volume mounted there lacks the file,
// or nothing is mounted there at all.
func (pc *podCheck) missingFiles(ctx context.Context, d *depCheck) bool {
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	for i, p := range d.clue.Paths {
		if i >= 3 {
			break
		}
		m, vol := mountFor(d.spec, pc.pod, p)
		facts := map[string]string{"path": p}
		if m == nil {
			if d.clue.Class != ErrConfig || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/") {
				continue
			}
			facts["sourceResource"] = kubectlResource(wl)
			d.report(ctx, "config-file-missing", 70, wl, fmt.Sprintf("%s: no volume of container %s is mounted at %s, so the file is not there; mount the ConfigMap or Secret that holds %s in %s %s.",
				d.opening(), d.spec.Name, path.Dir(p), path.Base(p), wl.Kind, wl.Name), nil, nil, facts)
			return true
		}
		file := strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(m.MountPath, "/")), "/")
		if m.SubPath != "" {
			file = m.SubPath
		}
		if i := strings.IndexByte(file, '/'); i >= 0 && !strings.Contains(file[:i], "..") {
			file = file[:i] // a directory inside the volume: judge its first element
		}
		var kind, name string
		var keys []string
		var items []corev1.KeyToPath
		switch {
		case vol.ConfigMap != nil:
			kind, name, items = "ConfigMap", vol.ConfigMap.Name, vol.ConfigMap.Items
			c, err := getAs[*corev1.ConfigMap](ctx, e, "ConfigMap", name)
			if err != nil {
				continue
			}
			keys = append(sortedKeys(c.Data), sortedKeys(c.BinaryData)...)
		case vol.Secret != nil:
			kind, name, items = "Secret", vol.Secret.SecretName, vol.Secret.Items
			s, err := getAs[*corev1.Secret](ctx, e, "Secret", name)
			if err != nil {
				continue
			}
			keys = tools.SecretKeys(s)
		case vol.Projected != nil:
			pf := pc.projectedSource(ctx, vol.Projected, file)
			if pf.found || pf.name == "" {
				continue
			}
			kind, name, keys = pf.kind, pf.name, pf.files
		case (vol.PersistentVolumeClaim != nil || vol.EmptyDir != nil || vol.Ephemeral != nil) && d.clue.Class == ErrDisk:
			return pc.reportFull(ctx, d, m, vol, "")
		default:
			continue
		}
		if len(items) > 0 {
			// With items only the listed keys appear, under their paths.
			var mapped []string
			found := false
			for _, it := range items {
				mapped = append(mapped, it.Path)
				if it.Path == file || strings.HasPrefix(it.Path, file+"/") {
					found = containsStr(keys, it.Key)
				}
			}
			if found {
				continue
			}
			keys = mapped
		} else if containsStr(keys, file) {
			continue
		}
		ref := e.ref(kind, name)
		facts["sourceResource"], facts["key"] = kubectlResource(ref), file
		more, pointer := pc.pathSetBy(ctx, d, p, file, ref, keys)
		extra := mergeRefs([]ObjectRef{ref}, pointer)
		d.report(ctx, "config-file-missing", 0, ref, fmt.Sprintf("%s: %s comes from %s %s, mounted at %s, which has no key %s (it provides: %s). Add the key or fix the path.%s",
			d.opening(), p, kind, name, m.MountPath, file, orDefault(strings.Join(clipList(keys, 8), ", "), "nothing"), more), nil, extra, facts)
		return true
	}
	return false
}

// mountFor finds the container's mount that holds path p (the longest mount path wins).
func mountFor(c corev1.Container, p *corev1.Pod, file string) (*corev1.VolumeMount, *corev1.Volume) {
	var best *corev1.VolumeMount
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		mp := strings.TrimSuffix(m.MountPath, "/")
		if (file == mp || strings.HasPrefix(file, mp+"/")) && (best == nil || len(mp) > len(best.MountPath)) {
			best = m
		}
	}
	if best == nil {
		return nil, nil
	}
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == best.Name {
			return best, &p.Spec.Volumes[i]
		}
	}
	return nil, nil
}

// schemaJob handles database schema errors: a migration Job that did not complete explains them.
func (pc *podCheck) schemaJob(ctx context.Context, d *depCheck) bool {
	e := pc.e
	jobs, err := listOnce[*batchv1.Job](ctx, e, "Job", scanMaxObjects)
	if err != nil {
		return false
	}
	// A Job's own pod failing on the schema is that Job's failure, not its consumer's.
	own := ""
	if or := controllerOf(pc.pod); or != nil && or.Kind == "Job" {
		own = or.Name
	}
	var best *batchv1.Job
	bestScore := 0
	for _, j := range jobs {
		if j.Status.Succeeded > 0 || j.Name == own {
			continue
		}
		s := 1
		low := strings.ToLower(j.Name)
		for _, w := range []string{"migrat", "schema", "db", "init", "seed", "setup"} {
			if strings.Contains(low, w) {
				s += 2
			}
		}
		if s > bestScore {
			best, bestScore = j, s
		}
	}
	if best == nil {
		return false
	}
	ref := e.ref("Job", best.Name)
	state := "has not completed"
	for _, c := range best.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			state = "failed (" + c.Reason + ")"
		}
	}
	d.report(ctx, "schema-not-migrated", 0, ref, fmt.Sprintf("%s: the database schema it expects is not there, and Job %s, which prepares it, %s.", d.opening(), best.Name, state),
		[]ObjectRef{ref}, []ObjectRef{ref}, map[string]string{"job": best.Name})
	return true
}
