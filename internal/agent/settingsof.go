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

	"github.com/kubage/kubage/internal/tools"
)

// A server's or a client's settings reach its container in many spellings: an env var, a key
// of a ConfigMap it loads, a line of a configuration file a ConfigMap mounts (ini, conf,
// YAML, properties), a flag on its command line. configSettings reads them all into one list
// of name = value, each with the object a user edits to change it, so the catalogue of
// well-known errors (knownerrors.go) can ask for a setting by name without caring where it
// is written. Secret values are never read: a Secret key is listed with its name only.

// configSetting is one setting a container is given.
type configSetting struct {
	name   string // as written: env name, file key, flag ("--concurrency")
	value  string // sanitized, clipped; "" for a Secret's key (never read) or a bare flag
	secret bool
	where  string // "ConfigMap pgbouncer key pgbouncer.ini (pool_mode = transaction)"
	ref    ObjectRef
}

// Bounds of the settings read from one container.
const (
	maxSettings      = 400
	maxSettingValue  = 120
	maxSettingFileKB = 64
)

var (
	// fileSetting is a "key = value", "key: value" or "key value" line of a configuration
	// file (ini, redis.conf, YAML leaves, Java properties, HCL), section headers aside.
	fileSetting = regexp.MustCompile(`(?m)^[ \t]*(?:-[ \t]+)?["']?([A-Za-z_][\w.-]{0,100})["']?[ \t]*(?:[:=][ \t]*|[ \t]+)([^\n#;]{0,200})`)
	// flagSetting is "--name=value", "--name value", "-c 4" or "-Xmx4g" on a command line.
	flagSetting = regexp.MustCompile(`^(--?[A-Za-z][\w.-]{0,80})(?:=(.{0,200}))?$`)
	flagKey     = regexp.MustCompile(`^[A-Za-z][\w.-]{0,80}$`)
)

// configSettings lists the settings container c of pod p is given. wl is the workload that
// owns the pod (the object holding env and arguments).
func (e *env) configSettings(ctx context.Context, p *corev1.Pod, c corev1.Container, wl ObjectRef) []configSetting {
	var out []configSetting
	add := func(s configSetting) {
		if len(out) < maxSettings {
			s.value = tools.Sanitize(strings.TrimSpace(strings.Trim(strings.TrimSpace(s.value), `"',`)), maxSettingValue, true)
			out = append(out, s)
		}
	}
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	for _, ev := range c.Env {
		switch r := ev.ValueFrom; {
		case r == nil:
			add(configSetting{name: ev.Name, value: ev.Value, where: fmt.Sprintf("the env of %s %s", wl.Kind, wl.Name), ref: wl})
		case r.ConfigMapKeyRef != nil:
			if m := cm(r.ConfigMapKeyRef.Name); m != nil {
				add(configSetting{name: ev.Name, value: m.Data[r.ConfigMapKeyRef.Key], where: fmt.Sprintf("ConfigMap %s key %s (env %s)", m.Name, r.ConfigMapKeyRef.Key, ev.Name), ref: e.ref("ConfigMap", m.Name)})
			}
		case r.SecretKeyRef != nil:
			add(configSetting{name: ev.Name, secret: true, where: fmt.Sprintf("Secret %s key %s (env %s; its value is not read)", r.SecretKeyRef.Name, r.SecretKeyRef.Key, ev.Name), ref: e.ref("Secret", r.SecretKeyRef.Name)})
		}
	}
	for i, ef := range c.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			if m := cm(ef.ConfigMapRef.Name); m != nil {
				for _, k := range sortedKeys(m.Data) {
					add(configSetting{name: ef.Prefix + k, value: m.Data[k], where: fmt.Sprintf("ConfigMap %s key %s", m.Name, k), ref: e.ref("ConfigMap", m.Name)})
				}
			}
		case ef.SecretRef != nil && i < maxSourceObjects:
			if s, err := getAs[*corev1.Secret](ctx, e, "Secret", ef.SecretRef.Name); err == nil {
				for _, k := range sortedKeys(s.Data) {
					add(configSetting{name: ef.Prefix + k, secret: true, where: fmt.Sprintf("Secret %s key %s (envFrom; its value is not read)", s.Name, k), ref: e.ref("Secret", s.Name)})
				}
			}
		}
	}
	argv := commandWords(c)
	for i, a := range argv {
		m := flagSetting.FindStringSubmatch(a)
		if m == nil {
			continue
		}
		v, arg := m[2], a
		if v == "" && !strings.Contains(a, "=") && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
			v, arg = argv[i+1], a+" "+argv[i+1]
		}
		name := m[1]
		// "-c statement_timeout=5s" (postgres), "--set key=value": the setting is the value's key.
		if k, val, ok := strings.Cut(v, "="); ok && (name == "-c" || name == "--set") && flagKey.MatchString(k) {
			name, v = k, val
		}
		add(configSetting{name: name, value: v, where: fmt.Sprintf("the arguments of %s %s (%s)", wl.Kind, wl.Name, clipString(arg, 60)), ref: wl})
	}
	names, paths := mountedConfigMaps(c, p)
	for i, name := range names {
		m := cm(name)
		if m == nil {
			continue
		}
		for _, k := range sortedKeys(m.Data) {
			for _, f := range fileSetting.FindAllStringSubmatch(clipBytes(m.Data[k], maxSettingFileKB<<10), maxSettings) {
				v := f[2]
				if strings.TrimSpace(v) == "" {
					// A YAML section ("memory_limiter:") holds its settings on the lines below.
					v = strings.TrimSpace(strings.TrimPrefix(lineWith(m.Data[k], f[1]), f[1]+":"))
				}
				add(configSetting{name: f[1], value: v, where: fmt.Sprintf("ConfigMap %s key %s (mounted at %s)", m.Name, k, paths[i]), ref: e.ref("ConfigMap", m.Name)})
			}
		}
	}
	return out
}

// say is the setting as a reader checks it: "pool_mode = transaction in ConfigMap x key y".
func (c configSetting) say() string {
	if c.secret {
		return c.name + " in " + c.where
	}
	return c.name + " = " + urlPassword.ReplaceAllString(c.value, "$1:***@") + " in " + c.where
}

// urlPassword is the password of a URL's user info ("amqp://user:pass@host"), masked in what
// a summary quotes even from a ConfigMap.
var urlPassword = regexp.MustCompile(`(://[^:/@\s]+):[^@/\s]+@`)

// commandWords is the container's command line split into words, shell scripts too
// ("sh -c 'exec celery worker -c 2'" gives celery, worker, -c, 2).
func commandWords(c corev1.Container) []string {
	var out []string
	for _, a := range commandLine(c) {
		for _, w := range strings.Fields(clipBytes(a, 4<<10)) {
			if len(out) < 200 {
				out = append(out, strings.Trim(w, `"';`))
			}
		}
	}
	return out
}

// settingName normalizes a setting's name for matching: lower case, separators as "_", a
// leading dash run kept apart ("--concurrency" → "--concurrency"), so one pattern reads
// pool_mode, POOL_MODE, PGBOUNCER_POOL_MODE and pool-mode alike.
func settingName(n string) string {
	dashes := len(n) - len(strings.TrimLeft(n, "-"))
	rest := strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToLower(n[dashes:]))
	return n[:dashes] + rest
}

// volumeSource says what a volume is, for a reader checking a mount ("emptyDir medium=Memory sizeLimit=64Mi").
func volumeSource(v corev1.Volume) string {
	switch {
	case v.EmptyDir != nil:
		out := "emptyDir"
		if v.EmptyDir.Medium != "" {
			out += " medium=" + string(v.EmptyDir.Medium)
		}
		if v.EmptyDir.SizeLimit != nil {
			out += " sizeLimit=" + v.EmptyDir.SizeLimit.String()
		}
		return out
	case v.PersistentVolumeClaim != nil:
		return "claim " + v.PersistentVolumeClaim.ClaimName
	case v.ConfigMap != nil:
		return "ConfigMap " + v.ConfigMap.Name
	case v.Secret != nil:
		return "Secret " + v.Secret.SecretName
	case v.HostPath != nil:
		return "hostPath " + v.HostPath.Path
	}
	return "volume"
}

// knownSettings are configSettings plus where the container's volumes are mounted
// ("/dev/shm" = "emptyDir medium=Memory"): the catalogue of well-known errors asks for a
// mount as it asks for a setting.
func (e *env) knownSettings(ctx context.Context, p *corev1.Pod, c corev1.Container, wl ObjectRef) []configSetting {
	out := e.configSettings(ctx, p, c, wl)
	for _, m := range c.VolumeMounts {
		for _, v := range p.Spec.Volumes {
			if v.Name == m.Name && len(out) < maxSettings {
				out = append(out, configSetting{name: m.MountPath, value: volumeSource(v), where: fmt.Sprintf("the volumes of %s %s (volume %s mounted at %s)", wl.Kind, wl.Name, v.Name, m.MountPath), ref: wl})
			}
		}
	}
	return out
}
