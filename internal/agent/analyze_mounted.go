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

	corev1 "k8s.io/api/core/v1"
)

// Addresses in configuration files. Many applications take their upstreams from a file a
// ConfigMap mounts (nginx.conf, appsettings.json, application.yaml) rather than from env, and
// when their logs cannot be read that file is the only place that still says what they call.
// The file is untrusted text: it is clipped, read line by line, and only address forms count
// (URLs, host:port, connection-string keys), never a bare word, which in a file is as likely
// an nginx upstream block or a YAML value as a host.

// connString is a host in a connection string: "Server=catalog-sql,1433",
// "Data Source=tcp:db,1433", "Host=postgres;Port=5432", "addr=cache:6379".
var connString = regexp.MustCompile(`(?:^|[\s;{"',])(?:server|data source|host|hostname|addr|address)\s*=\s*(?:tcp:)?([a-z0-9][a-z0-9.-]{0,252})(?:\s*[,:]\s*(\d{2,5}))?`)

// Bounds of the file walk.
const (
	maxFileBytes      = 64 << 10
	maxFileLines      = 1000
	maxHostsPerFile   = 6
	maxMountedConfigs = 4
)

// hostsInFile reads the addresses a configuration file names. A host counts as an address
// (addr) only with a port: "proxy_pass http://backend" may name an nginx upstream block.
func hostsInFile(content string) []HostPort {
	var out []HostPort
	seen := map[string]bool{}
	for i, line := range strings.Split(clipBytes(content, maxFileBytes), "\n") {
		if i >= maxFileLines || len(out) >= maxHostsPerFile {
			break
		}
		low := strings.ToLower(strings.TrimSpace(clipBytes(line, maxClueLineLen)))
		if low == "" || strings.HasPrefix(low, "#") || strings.HasPrefix(low, "//") || strings.HasPrefix(low, ";") {
			continue
		}
		for _, re := range []*regexp.Regexp{urlHost, hostPortRe, connString} {
			for _, m := range re.FindAllStringSubmatch(low, maxHostsPerFile) {
				h := strings.Trim(m[1], ".-")
				if h == "" || seen[h] || len(out) >= maxHostsPerFile || ignoredHost(h) {
					continue
				}
				seen[h] = true
				out = append(out, HostPort{Host: h, Port: m[2]})
			}
		}
	}
	return out
}

// mountedConfigMaps names the ConfigMaps container c mounts (directly or in a projected
// volume), with the path each is mounted at.
func mountedConfigMaps(c corev1.Container, p *corev1.Pod) (names, paths []string) {
	vols := map[string]*corev1.Volume{}
	for i := range p.Spec.Volumes {
		vols[p.Spec.Volumes[i].Name] = &p.Spec.Volumes[i]
	}
	add := func(name, at string) {
		if len(names) < maxMountedConfigs && !containsStr(names, name) {
			names, paths = append(names, name), append(paths, at)
		}
	}
	for _, m := range c.VolumeMounts {
		v := vols[m.Name]
		switch {
		case v == nil:
		case v.ConfigMap != nil:
			add(v.ConfigMap.Name, m.MountPath)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					add(s.ConfigMap.Name, m.MountPath)
				}
			}
		}
	}
	return names, paths
}
