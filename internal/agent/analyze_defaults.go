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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// "Only one datasource per organization can be marked as default": configuration collected
// from several ConfigMaps (a sidecar loading every ConfigMap with a label, as Grafana's
// charts do; a second chart installing its own) marks two entries as the default. The error
// names neither file. The ConfigMaps of the namespace that each mark a default are the
// fault; the newest is the likely newcomer.

var (
	onlyOneDefault = regexp.MustCompile(`(?i)only one [a-z ]{1,60} (?:can|may|must) be (?:marked |set )?(?:as )?(?:the )?default|more than one default|multiple defaults?\b`)
	defaultFlag    = regexp.MustCompile(`(?im)^\s*-?\s*["']?(isDefault|is_default|default)["']?\s*[:=]\s*["']?true\b`)
)

// duplicateDefaults reports two or more ConfigMaps of the namespace that each mark an entry
// as the default, when the error says only one may.
func (pc *podCheck) duplicateDefaults(ctx context.Context, d *depCheck) bool {
	if !onlyOneDefault.MatchString(d.clue.Line) && pc.lastLogMatch(d.cs.Name, onlyOneDefault) == "" {
		return false
	}
	e := pc.e
	cms, err := listOnce[*corev1.ConfigMap](ctx, e, "ConfigMap", scanMaxObjects)
	if err != nil {
		return false
	}
	type marked struct {
		cm        *corev1.ConfigMap
		key, flag string
	}
	var found []marked
	for _, c := range cms {
		for _, k := range sortedKeys(c.Data) {
			if m := defaultFlag.FindStringSubmatch(clipBytes(c.Data[k], maxFileBytes)); m != nil {
				found = append(found, marked{c, k, m[1]})
				break
			}
		}
	}
	if len(found) < 2 {
		return false
	}
	sort.SliceStable(found, func(i, j int) bool {
		ti, tj := found[i].cm.CreationTimestamp, found[j].cm.CreationTimestamp
		if !ti.Equal(&tj) {
			return tj.Before(&ti) // newest first
		}
		return found[i].cm.Name < found[j].cm.Name
	})
	var parts []string
	var extra []ObjectRef
	for i, f := range found {
		if i < 4 {
			parts = append(parts, fmt.Sprintf("ConfigMap %s (key %s)", f.cm.Name, f.key))
		}
		extra = append(extra, e.ref("ConfigMap", f.cm.Name))
	}
	newest := found[0]
	culprit := e.ref("ConfigMap", newest.cm.Name)
	d.evIDs = append(d.evIDs, e.objEvidence(culprit, fmt.Sprintf("ConfigMap %s key %s sets %s: true", newest.cm.Name, newest.key, newest.flag)))
	d.report(ctx, "config-value-rejected", 80, culprit, fmt.Sprintf("%s: the error names no file, but %d ConfigMaps of the namespace each mark an entry as the default (%s: true): %s. Only one may; ConfigMap %s is the newest of them, so set %s: false in its key %s (or in the entry that should not be the default).",
		d.opening(), len(found), newest.flag, strings.Join(parts, ", "), newest.cm.Name, newest.flag, newest.key), nil, extra,
		map[string]string{"key": newest.key, "token": newest.flag, "sourceResource": kubectlResource(culprit)})
	return true
}
