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
	"regexp"
	"strings"
)

// Addresses are spelt many ways in a container's configuration: a URL in one variable, a host
// and a port in two (DB_HOST and DB_PORT), a command-line flag (--db-host=x, --db-host x,
// -Dspring.datasource.url=jdbc:...), or a value composed from other variables with the
// kubelet's $(VAR) expansion. This file reads them all into "setting = value" pairs, so the
// configured-provider walk sees the same host whichever way it is written.

// setting is one configured name and value.
type setting struct{ key, value string }

// envRef is the kubelet's $(VAR) reference in env values, command and args.
var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]{0,80})\)`)

// expandRefs replaces $(VAR) with the value of VAR when it is known, as the kubelet does when
// it starts the container; $$(VAR) is the escape for a literal $(VAR) and unknown ones stay.
func expandRefs(s string, vars map[string]string) string {
	if !strings.Contains(s, "$(") || len(vars) == 0 {
		return s
	}
	s = clipBytes(s, 4096)
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return clipBytes(v, 1024)
		}
		return m
	})
	return strings.ReplaceAll(out, "$$(", "$(")
}

// flagSettings reads the settings a command line passes as options: --name=value,
// -Dname=value, and --name value (the next word when it is not itself an option).
func flagSettings(argv []string) []setting {
	var words []string
	for _, a := range argv {
		if len(words) >= 256 {
			break
		}
		words = append(words, strings.Fields(clipBytes(a, 1024))...)
	}
	var out []setting
	for i, w := range words {
		if !strings.HasPrefix(w, "-") || len(w) < 2 {
			continue
		}
		name := strings.TrimLeft(w, "-")
		if strings.HasPrefix(w, "-D") && !strings.HasPrefix(w, "--") {
			name = w[2:] // a Java system property
		}
		if k, v, ok := strings.Cut(name, "="); ok {
			if k != "" && v != "" {
				out = append(out, setting{k, strings.Trim(v, shellPunct)})
			}
			continue
		}
		if i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && hostyKey.MatchString(name) {
			out = append(out, setting{name, strings.Trim(words[i+1], shellPunct)})
		}
	}
	return out
}

// hostPortPairs joins settings that give a host and a port apart (DB_HOST and DB_PORT,
// PGHOST and PGPORT, redis.host and redis.port) into host:port, so the port is checked too.
func hostPortPairs(ss []setting) []setting {
	ports := map[string]string{}
	for _, s := range ss {
		if p, ok := settingStem(s.key, "port"); ok && s.value != "" && strings.Trim(s.value, "0123456789") == "" {
			ports[p] = s.value
		}
	}
	var out []setting
	for _, s := range ss {
		for _, suffix := range []string{"host", "hostname", "server", "addr", "address", "service"} {
			stem, ok := settingStem(s.key, suffix)
			if !ok || ports[stem] == "" || strings.ContainsAny(s.value, ":/,") {
				continue
			}
			out = append(out, setting{s.key, s.value + ":" + ports[stem]})
			break
		}
	}
	return out
}

// settingStem cuts suffix off a setting's name, ignoring case and separators: DB_HOST,
// db-host, dbHost and db.host all have the stem "db".
func settingStem(key, suffix string) (string, bool) {
	k := strings.ToLower(key)
	if !strings.HasSuffix(k, suffix) {
		return "", false
	}
	return strings.TrimRight(k[:len(k)-len(suffix)], "_-."), true
}
