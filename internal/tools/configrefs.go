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

package tools

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// ConfigRef is one ConfigMap or Secret a pod template refers to, with the keys it needs.
type ConfigRef struct {
	Kind     string   `json:"kind"` // ConfigMap or Secret
	Name     string   `json:"name"`
	Keys     []string `json:"keys,omitempty"`
	Optional bool     `json:"optional"`
	UsedBy   []string `json:"usedBy"`
	// Filled by ResolveConfigRefs.
	Checked     bool     `json:"checked"`
	Exists      bool     `json:"exists"`
	MissingKeys []string `json:"missingKeys,omitempty"`
	KeysPresent []string `json:"keysPresent,omitempty"`
}

// PodConfigRefs lists ConfigMaps and Secrets referenced by a pod spec (volumes, projected
// volumes, env, envFrom, image pull secrets), merged per object.
func PodConfigRefs(spec *corev1.PodSpec) []ConfigRef {
	idx := map[string]*ConfigRef{}
	var order []string
	add := func(kind, name, key, usedBy string, optional *bool) {
		if name == "" {
			return
		}
		id := kind + "/" + name
		r, ok := idx[id]
		if !ok {
			r = &ConfigRef{Kind: kind, Name: name, Optional: true}
			idx[id] = r
			order = append(order, id)
		}
		if optional == nil || !*optional {
			r.Optional = false
		}
		if key != "" && !contains(r.Keys, key) {
			r.Keys = append(r.Keys, key)
		}
		if len(r.UsedBy) < 8 && !contains(r.UsedBy, usedBy) {
			r.UsedBy = append(r.UsedBy, usedBy)
		}
	}
	for _, v := range spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			add("ConfigMap", v.ConfigMap.Name, "", "volume "+v.Name, v.ConfigMap.Optional)
			for _, it := range v.ConfigMap.Items {
				add("ConfigMap", v.ConfigMap.Name, it.Key, "volume "+v.Name, v.ConfigMap.Optional)
			}
		case v.Secret != nil:
			add("Secret", v.Secret.SecretName, "", "volume "+v.Name, v.Secret.Optional)
			for _, it := range v.Secret.Items {
				add("Secret", v.Secret.SecretName, it.Key, "volume "+v.Name, v.Secret.Optional)
			}
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				if src.ConfigMap != nil {
					add("ConfigMap", src.ConfigMap.Name, "", "volume "+v.Name, src.ConfigMap.Optional)
					for _, it := range src.ConfigMap.Items {
						add("ConfigMap", src.ConfigMap.Name, it.Key, "volume "+v.Name, src.ConfigMap.Optional)
					}
				}
				if src.Secret != nil {
					add("Secret", src.Secret.Name, "", "volume "+v.Name, src.Secret.Optional)
					for _, it := range src.Secret.Items {
						add("Secret", src.Secret.Name, it.Key, "volume "+v.Name, src.Secret.Optional)
					}
				}
			}
		}
	}
	for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
				add("ConfigMap", r.Name, r.Key, "env "+e.Name+" in container "+c.Name, r.Optional)
			}
			if r := e.ValueFrom.SecretKeyRef; r != nil {
				add("Secret", r.Name, r.Key, "env "+e.Name+" in container "+c.Name, r.Optional)
			}
		}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef != nil {
				add("ConfigMap", ef.ConfigMapRef.Name, "", "envFrom in container "+c.Name, ef.ConfigMapRef.Optional)
			}
			if ef.SecretRef != nil {
				add("Secret", ef.SecretRef.Name, "", "envFrom in container "+c.Name, ef.SecretRef.Optional)
			}
		}
	}
	t := true
	for _, s := range spec.ImagePullSecrets {
		// The kubelet only warns about a missing pull secret, so treat it as optional.
		add("Secret", s.Name, "", "imagePullSecrets", &t)
	}
	out := make([]ConfigRef, 0, len(order))
	for _, id := range order {
		out = append(out, *idx[id])
	}
	return out
}

const maxConfigRefs = 15

// ResolveConfigRefs checks which referenced objects and keys exist (at most 15 lookups).
func (c *Client) ResolveConfigRefs(ctx context.Context, refs []ConfigRef) ([]ConfigRef, error) {
	out := append([]ConfigRef(nil), refs...)
	for i := range out {
		if i >= maxConfigRefs {
			break
		}
		r := &out[i]
		var have []string
		switch r.Kind {
		case "ConfigMap":
			cm, err := GetAs[*corev1.ConfigMap](ctx, c, "ConfigMap", r.Name)
			if IsNotFound(err) {
				r.Checked = true
				continue
			}
			if err != nil {
				return out, err
			}
			for k := range cm.Data {
				have = append(have, k)
			}
			for k := range cm.BinaryData {
				have = append(have, k)
			}
		case "Secret":
			s, err := GetAs[*corev1.Secret](ctx, c, "Secret", r.Name)
			if IsNotFound(err) {
				r.Checked = true
				continue
			}
			if err != nil {
				return out, err
			}
			have = SecretKeys(s)
		}
		sort.Strings(have)
		r.Checked, r.Exists = true, true
		if len(have) > maxKeysShown {
			r.KeysPresent = append(have[:maxKeysShown:maxKeysShown], fmt.Sprintf("…(%d more)", len(have)-maxKeysShown))
		} else {
			r.KeysPresent = have
		}
		for _, k := range r.Keys {
			if !contains(have, k) {
				r.MissingKeys = append(r.MissingKeys, k)
			}
		}
	}
	return out, nil
}
