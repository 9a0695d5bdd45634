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
)

// Spring Boot (and frameworks that copied it: Micronaut, Quarkus' profile files) reads
// application-<profile>.yml for each active profile and ignores a profile with no file
// without a word. A profile name that differs from the mounted file's (prod against
// application-production.yml) leaves the settings of that file unread; the names side by
// side are the explanation.

var profileFile = regexp.MustCompile(`^application-([A-Za-z0-9_.-]{1,60})\.(?:ya?ml|properties)$`)

// profileFilesNote compares the active profiles the container is given with the profile
// files its mounted ConfigMaps hold; it returns a sentence and the ConfigMap when an active
// profile has no file there and another file does.
func (pc *podCheck) profileFilesNote(ctx context.Context, d *depCheck) (string, ObjectRef) {
	active := ""
	for _, ev := range d.spec.Env {
		if ev.ValueFrom == nil && strings.EqualFold(ev.Name, "SPRING_PROFILES_ACTIVE") {
			active = ev.Value
		}
	}
	if active == "" {
		return "", ObjectRef{}
	}
	names, _ := d.mountedConfigMapsOf()
	cm := pc.configMapReader(ctx)
	for _, n := range names {
		c := cm(n)
		if c == nil {
			continue
		}
		have := map[string]string{}
		var files []string
		for _, k := range sortedKeys(c.Data) {
			if m := profileFile.FindStringSubmatch(k); m != nil {
				have[m[1]] = k
				files = append(files, k)
			}
		}
		if len(files) == 0 {
			continue
		}
		var missing []string
		for _, p := range strings.Split(active, ",") {
			if p = strings.TrimSpace(p); p != "" && have[p] == "" {
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 {
			return "", ObjectRef{}
		}
		return fmt.Sprintf("SPRING_PROFILES_ACTIVE = %s, but ConfigMap %s holds the profile file(s) %s: no application-%s.yml exists, so that profile's settings are never read",
			active, c.Name, strings.Join(clipList(files, 4), ", "), missing[0]), pc.e.ref("ConfigMap", c.Name)
	}
	return "", ObjectRef{}
}
