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

	corev1 "k8s.io/api/core/v1"
)

// Where a name comes from when the pod's plain configuration does not hold it. Connection
// strings and broker URLs often live in Secrets, whose values the engine never reads. When a
// host the application cannot reach appears in no env value, argument or ConfigMap, the one
// place left is a Secret key that holds an address: the engine names that key (never its
// value) as the thing to check.

// addressKey is a setting name that holds an address or a connection string.
var addressKey = regexp.MustCompile(`(?i)(url|uri|host|addr|address|endpoint|dsn|broker|server|connection|conn_str)`)

// secretSource names the Secret key the container's address most likely comes from, or nil
// when the container loads no such key. Only key names are looked at.
func (pc *podCheck) secretSource(ctx context.Context, d *depCheck) *valueSource {
	e := pc.e
	c := d.spec
	found := func(name, key, via string) *valueSource {
		return &valueSource{ref: e.ref("Secret", name), key: key, value: "(a Secret value: not read)",
			where: fmt.Sprintf("Secret %s key %s (%s of container %s; its value is not read, check it)", name, key, via, c.Name)}
	}
	for _, ev := range c.Env {
		if r := ev.ValueFrom; r != nil && r.SecretKeyRef != nil && (addressKey.MatchString(ev.Name) || addressKey.MatchString(r.SecretKeyRef.Key)) {
			return found(r.SecretKeyRef.Name, r.SecretKeyRef.Key, "env "+ev.Name)
		}
	}
	for i, ef := range c.EnvFrom {
		if ef.SecretRef == nil || i >= maxSourceObjects {
			continue
		}
		s, err := getAs[*corev1.Secret](ctx, e, "Secret", ef.SecretRef.Name)
		if err != nil {
			continue
		}
		for _, k := range sortedKeys(s.Data) {
			if addressKey.MatchString(k) {
				return found(s.Name, k, "envFrom")
			}
		}
	}
	// A configuration file kept in a Secret (Alertmanager's alertmanager.yaml, a chart's
	// rendered config): the address may be written in it.
	for i, m := range c.VolumeMounts {
		if i >= maxSourceObjects {
			break
		}
		for _, v := range pc.pod.Spec.Volumes {
			if v.Name != m.Name || v.Secret == nil {
				continue
			}
			sec, err := getAs[*corev1.Secret](ctx, e, "Secret", v.Secret.SecretName)
			if err != nil {
				continue
			}
			for _, k := range sortedKeys(sec.Data) {
				if configFileKey.MatchString(k) {
					return found(sec.Name, k, "a configuration file mounted at "+m.MountPath)
				}
			}
		}
	}
	return nil
}

// configFileKey is a Secret key that holds a configuration file.
var configFileKey = regexp.MustCompile(`(?i)\.(ya?ml|json|conf|cfg|ini|toml|properties)(\.gz)?$`)
