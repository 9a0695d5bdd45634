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
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Many applications read every setting from env variables that share one prefix (KC_ for
// Keycloak, GF_ for Grafana, MM_ for Mattermost); their errors name the setting in words
// ("no hostname setting provided"). When the settings the container is given follow such a
// convention, the word is the variable the convention makes of it: KC_HOSTNAME.

// minPrefixed is how many of the container's settings must share a prefix to make it the
// container's convention.
const minPrefixed = 3

// conventionalEnvName returns the env variable the container's naming convention makes of
// the setting word, or "" when its settings follow no one prefix.
func (pc *podCheck) conventionalEnvName(ctx context.Context, d *depCheck, word string) string {
	var names []string
	for _, ev := range d.spec.Env {
		names = append(names, ev.Name)
	}
	for _, ef := range d.spec.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			if m, err := getAs[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", ef.ConfigMapRef.Name); err == nil {
				for _, k := range sortedKeys(m.Data) {
					names = append(names, ef.Prefix+k)
				}
			}
		case ef.SecretRef != nil:
			if s, err := getAs[*corev1.Secret](ctx, pc.e, "Secret", ef.SecretRef.Name); err == nil {
				for _, k := range tools.SecretKeys(s) {
					names = append(names, ef.Prefix+k)
				}
			}
		}
	}
	p := commonEnvPrefix(names)
	if p == "" {
		return ""
	}
	return p + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(word))
}

// commonEnvPrefix returns the prefix ("KC_") that at least minPrefixed names and more than
// half of them share, or "".
func commonEnvPrefix(names []string) string {
	count := map[string]int{}
	n := 0
	for _, name := range names {
		if !envName.MatchString(name) {
			continue
		}
		n++
		if i := strings.IndexByte(name, '_'); i > 0 && i < len(name)-1 {
			count[name[:i+1]]++
		}
	}
	best, bestN := "", 0
	for p, c := range count {
		if c > bestN || c == bestN && p < best {
			best, bestN = p, c
		}
	}
	if bestN < minPrefixed || bestN*2 <= n {
		return ""
	}
	return best
}
