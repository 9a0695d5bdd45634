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
)

// "Could not obtain a connection from the pool": the application's own connection pool has
// no free connection. The server is fine; the pool is smaller than the work the process
// runs at once (its threads, its concurrency), or a number the error names is the size
// someone set. The numeric settings the container is given — env, the ConfigMaps it loads,
// the configuration files it mounts, its arguments — are read, the pool's size is matched
// against its concurrency and against the numbers of the error, and the object that sets
// the pool is the culprit.

// numSetting is a setting with a whole-number value, and where it is set.
type numSetting struct {
	key   string // the setting's own name (a YAML leaf key, an env var)
	value int64
	where string // "ConfigMap db key database.yml (pool: 5)"
	ref   ObjectRef
}

var (
	// poolKey names a connection pool's size; concurrencyKey a process's parallel work.
	poolKey        = regexp.MustCompile(`(?i)^(pool|.*[_.-]pool|.*pool[_.-]?(max[_.-]?)?size|.*max[_.-]?pool([_.-]?size)?|.*pool[_.-]?max|max[_.-]?(open[_.-]?)?conn(ection)?s|.*conn(ection)?[_.-]?limit|maximumpoolsize|.*max[_.-]?pool[_.-]?size)$`)
	concurrencyKey = regexp.MustCompile(`(?i)^(.*[_.-])?(max[_.-]?)?(threads?([_.-]?max)?|concurrency|thread[_.-]?count|worker[_.-]?threads|parallelism)$`)
	// processKey counts processes, each with a pool of its own (Puma's WEB_CONCURRENCY).
	processKey = regexp.MustCompile(`(?i)(^|[_.-])(web[_.-]?concurrency|workers?|processes|min[_.-]?threads?)$`)
	// fileNumber is a "key: 5", "key = 5" or "\"key\": 5" line of a configuration file.
	fileNumber = regexp.MustCompile(`(?m)^\s*["']?([A-Za-z_][\w.-]{0,80})["']?\s*[:=]\s*["']?(\d{1,7})["']?\s*,?\s*(?:#.*)?$`)
	// argNumber is "--key=5" or "--key 5" on a command line.
	argNumber = regexp.MustCompile(`^--?([A-Za-z][\w.-]{0,80})(?:=(\d{1,7}))?$`)
	// sizeNumber is a size the error itself names ("limit of size 5", "total=10", "max 20").
	sizeNumber = regexp.MustCompile(`(?i)\b(?:size|limit|max(?:imum)?|total|capacity|pool)(?:\s+of)?(?:\s+size)?\s*[=:]?\s*(\d{1,7})\b`)
)

// maxNumSettings bounds the settings read.
const maxNumSettings = 64

// numericSettings lists the whole-number settings the failing container is given.
func (pc *podCheck) numericSettings(ctx context.Context, d *depCheck) []numSetting {
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	var out []numSetting
	add := func(key, value, where string, ref ObjectRef) {
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err == nil && n >= 0 && len(out) < maxNumSettings {
			out = append(out, numSetting{key: key, value: n, where: where, ref: ref})
		}
	}
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	c := d.spec
	for _, ev := range c.Env {
		switch {
		case ev.ValueFrom == nil:
			add(ev.Name, ev.Value, fmt.Sprintf("env %s=%s of %s %s", ev.Name, clipString(ev.Value, 20), wl.Kind, wl.Name), wl)
		case ev.ValueFrom.ConfigMapKeyRef != nil:
			if m := cm(ev.ValueFrom.ConfigMapKeyRef.Name); m != nil {
				k := ev.ValueFrom.ConfigMapKeyRef.Key
				add(ev.Name, m.Data[k], fmt.Sprintf("ConfigMap %s key %s=%s (env %s)", m.Name, k, clipString(m.Data[k], 20), ev.Name), e.ref("ConfigMap", m.Name))
			}
		}
	}
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef == nil {
			continue
		}
		if m := cm(ef.ConfigMapRef.Name); m != nil {
			for _, k := range sortedKeys(m.Data) {
				add(ef.Prefix+k, m.Data[k], fmt.Sprintf("ConfigMap %s key %s=%s", m.Name, k, clipString(m.Data[k], 20)), e.ref("ConfigMap", m.Name))
			}
		}
	}
	argv := commandLine(c)
	for i, a := range argv {
		m := argNumber.FindStringSubmatch(a)
		if m == nil {
			continue
		}
		v, arg := m[2], a
		if v == "" && i+1 < len(argv) {
			v, arg = argv[i+1], a+" "+argv[i+1]
		}
		add(m[1], v, fmt.Sprintf("argument %s of %s %s", clipString(arg, 60), wl.Kind, wl.Name), wl)
	}
	names, paths := mountedConfigMaps(c, pc.pod)
	for i, name := range names {
		m := cm(name)
		if m == nil {
			continue
		}
		for _, k := range sortedKeys(m.Data) {
			for _, f := range fileNumber.FindAllStringSubmatch(clipBytes(m.Data[k], 64<<10), maxNumSettings) {
				add(f[1], f[2], fmt.Sprintf("ConfigMap %s key %s (%s: %s, mounted at %s)", m.Name, k, f[1], f[2], paths[i]), e.ref("ConfigMap", m.Name))
			}
		}
	}
	return out
}

// errorSizes are the sizes the error text names.
func errorSizes(line string) map[int64]bool {
	out := map[int64]bool{}
	for _, m := range sizeNumber.FindAllStringSubmatch(clipBytes(line, maxClueLineLen), 8) {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			out[n] = true
		}
	}
	return out
}

// leafKey is the last segment of a dotted or nested key.
func leafKey(k string) string {
	if i := strings.LastIndexAny(k, "."); i >= 0 && i+1 < len(k) {
		return k[i+1:]
	}
	return k
}

// poolSettings finds the setting that sizes the container's connection pool and the one
// that sets how much work it runs at once; a pool whose size the error names comes first.
func (pc *podCheck) poolSettings(ctx context.Context, d *depCheck, sizes map[int64]bool) (pool, threads *numSetting) {
	settings := pc.numericSettings(ctx, d)
	for i := range settings {
		s := &settings[i]
		k := leafKey(s.key)
		switch {
		case poolKey.MatchString(k) && s.value > 0:
			if pool == nil || sizes[s.value] && !sizes[pool.value] {
				pool = s
			}
		case concurrencyKey.MatchString(k) && !processKey.MatchString(k) && s.value > 0:
			if threads == nil || s.value > threads.value {
				threads = s
			}
		}
	}
	return pool, threads
}

// poolFacts are the facts of a pool finding.
func poolFacts(pool *numSetting) map[string]string {
	return map[string]string{"poolSetting": pool.key, "poolSize": fmt.Sprint(pool.value), "sourceResource": kubectlResource(pool.ref)}
}

// belowConcurrency says how a pool smaller than the work sharing it fails.
func belowConcurrency(pool, threads *numSetting) string {
	return fmt.Sprintf("its connection pool holds %d connections (%s) while up to %d threads or concurrent tasks share it (%s), so %d of them wait for a connection and time out. Raise %s to at least %d, or lower %s.",
		pool.value, pool.where, threads.value, threads.where, threads.value-pool.value, pool.key, threads.value, threads.key)
}

// connectionPool explains a client's exhausted connection pool by the setting that sizes it.
func (pc *podCheck) connectionPool(ctx context.Context, d *depCheck) bool {
	sizes := errorSizes(d.clue.Line)
	pool, threads := pc.poolSettings(ctx, d, sizes)
	if pool == nil {
		return false
	}
	facts := poolFacts(pool)
	conf := 0
	var why string
	switch {
	case threads != nil && threads.value > pool.value:
		facts["concurrency"] = fmt.Sprint(threads.value)
		why = belowConcurrency(pool, threads)
	case sizes[pool.value]:
		conf = 70
		why = fmt.Sprintf("the pool size the error names, %d, is set by %s. Raise %s, or find what holds its connections (slow queries, leaked connections).", pool.value, pool.where, pool.key)
	default:
		conf = 62
		why = fmt.Sprintf("its pool size is set by %s. Raise %s, or find what holds its connections (slow queries, leaked connections).", pool.where, pool.key)
	}
	d.report(ctx, "connection-pool-exhausted", conf, pool.ref, fmt.Sprintf("%s: the application's own connection pool has no free connection; %s", d.opening(), why), nil, nil, facts)
	return true
}

// poolBelowConcurrency reports, without error text (the log could not be read), a pool
// configured smaller than the threads that share it: under load the threads queue for
// connections whatever the server does.
func (pc *podCheck) poolBelowConcurrency(ctx context.Context, d *depCheck) bool {
	pool, threads := pc.poolSettings(ctx, d, nil)
	if pool == nil || threads == nil || threads.value <= pool.value {
		return false
	}
	facts := poolFacts(pool)
	facts["concurrency"] = fmt.Sprint(threads.value)
	d.report(ctx, "connection-pool-exhausted", 0, pool.ref, fmt.Sprintf("%s, but under load its connection pool runs out: %s", d.opening(), belowConcurrency(pool, threads)), nil, nil, facts)
	return true
}
