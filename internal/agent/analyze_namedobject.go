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

// Operators and clients that read Secrets and ConfigMaps through the API (not as mounts or
// env) say which object and key they wanted: "key prometheus-additional.yaml could not be
// found in secret additional-scrape-configs", `configmaps "app-rules" not found`. The object
// is looked up: one that does not exist, or lacks the key, is the culprit, with the keys it
// has (never its values).

// namedObjectKey reports a Secret or ConfigMap the error names that is missing or lacks
// the key the error names.
func (pc *podCheck) namedObjectKey(ctx context.Context, d *depCheck) bool {
	e := pc.e
	for _, o := range ErrorObjects(d.clue.Line) {
		var keys []string
		var err error
		if o.Kind == "Secret" {
			var s *corev1.Secret
			if s, err = getAs[*corev1.Secret](ctx, e, "Secret", o.Name); err == nil {
				keys = tools.SecretKeys(s)
			}
		} else {
			var c *corev1.ConfigMap
			if c, err = getAs[*corev1.ConfigMap](ctx, e, "ConfigMap", o.Name); err == nil {
				keys = append(sortedKeys(c.Data), sortedKeys(c.BinaryData)...)
			}
		}
		ref := e.ref(o.Kind, o.Name)
		if err != nil {
			if !tools.IsNotFound(err) || !strings.Contains(strings.ToLower(d.clue.Line), "not found") {
				continue
			}
			rule := strings.ToLower(o.Kind) + "-missing"
			d.report(ctx, rule, 80, ref, fmt.Sprintf("%s: the %s %s it reads does not exist in the namespace. Create it, or fix the name where %s %s is configured to read it.",
				d.opening(), o.Kind, o.Name, "the reader", kubectlResource(e.workloadOf(ctx, pc.pod))), nil, []ObjectRef{ref},
				map[string]string{"name": o.Name, "sourceResource": kubectlResource(ref)})
			return true
		}
		var missing []string
		for _, k := range o.Keys {
			if !containsStr(keys, k) {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 || len(missing) == len(o.Keys) && len(o.Keys) > 1 && !keyPhrase(d.clue.Line) {
			continue
		}
		rule := strings.ToLower(o.Kind) + "-key-missing"
		near := similarKeys(missing[0], keys)
		hint := ""
		if len(near) > 0 {
			hint = fmt.Sprintf(" It holds %s instead: rename the key, or point the reader at it.", strings.Join(near, ", "))
		}
		d.evIDs = append(d.evIDs, e.objEvidence(ref, fmt.Sprintf("%s %s keys: %s", o.Kind, o.Name, orDefault(strings.Join(clipList(keys, 12), ", "), "none"))))
		d.report(ctx, rule, 82, ref, fmt.Sprintf("%s: %s %s, which the error names, exists but has no key %s (its keys: %s).%s",
			d.opening(), o.Kind, o.Name, missing[0], orDefault(strings.Join(clipList(keys, 8), ", "), "none"), hint), nil, []ObjectRef{ref},
			map[string]string{"name": o.Name, "missingKeys": strings.Join(missing, ", "), "firstMissingKey": missing[0], "key": missing[0], "sourceResource": kubectlResource(ref)})
		return true
	}
	return false
}

// keyPhrase reports a text that says a key was not found.
func keyPhrase(line string) bool {
	low := strings.ToLower(line)
	return strings.Contains(low, "key") && (strings.Contains(low, "not found") || strings.Contains(low, "could not be found") || strings.Contains(low, "missing") || strings.Contains(low, "no such"))
}

// similarKeys lists the keys that could be the one meant: the same extension, or the same
// base name under another extension (vault.crt for tls.crt, app.yml for app.yaml).
func similarKeys(want string, keys []string) []string {
	var out []string
	ext, base := path.Ext(want), strings.TrimSuffix(want, path.Ext(want))
	for _, k := range keys {
		if k == want || len(out) >= 3 {
			continue
		}
		kext, kbase := path.Ext(k), strings.TrimSuffix(k, path.Ext(k))
		if ext != "" && kext == ext || base != "" && kbase == base || strings.EqualFold(k, want) {
			out = append(out, k)
		}
	}
	return out
}

// pathPointer finds the configuration that tells the application to read path p (a key of
// a ConfigMap it mounts or loads, an env value, an argument), other than the object at
// fault itself.
func (pc *podCheck) pathPointer(ctx context.Context, d *depCheck, p string, fault ObjectRef) *tokenHit {
	cm := pc.configMapReader(ctx)
	for _, tok := range []string{p, strings.TrimPrefix(p, "./")} {
		if h := pc.tokenSource(ctx, d, cm, tok, true); h != nil && h.ref.Key() != fault.Key() && !h.byKey {
			return h
		}
	}
	return nil
}

// pathSetBy says which configuration names the missing file p and which keys of the
// mounted object could be the one meant ("" when neither is known).
func (pc *podCheck) pathSetBy(ctx context.Context, d *depCheck, p, file string, fault ObjectRef, keys []string) (string, []ObjectRef) {
	out := ""
	var refs []ObjectRef
	if h := pc.pathPointer(ctx, d, p, fault); h != nil {
		refs = append(refs, h.ref)
		out = fmt.Sprintf(" The path %s is set in %s.", p, h.where)
	}
	if near := similarKeys(file, keys); len(near) > 0 {
		out += fmt.Sprintf(" %s %s holds %s instead: rename the key, or point the configuration at it.", fault.Kind, fault.Name, strings.Join(near, ", "))
	}
	return out, refs
}
