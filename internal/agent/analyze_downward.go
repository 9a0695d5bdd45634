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
	"k8s.io/apimachinery/pkg/api/resource"
)

// The downward API hands a container its own limits and requests as env vars
// (resourceFieldRef), in units of its divisor: without one, memory is in bytes and CPU in
// whole cores. A variable read in another unit — named HEAP_MB, or used as -Xmx$(HEAP)m —
// then holds a number a million times too large (or a CPU count rounded up to 1), and the
// program fails on a value nobody wrote. The env entry's divisor is the fix.

var (
	// unitSuffix is the unit a variable's name says it holds.
	unitSuffix = regexp.MustCompile(`(?i)(?:^|[_-])(mb|mib|mi|megabytes|gb|gib|gi|kb|kib|ki|millicores|millis|milli|mcpu)$`)
	// refUnit is a $(VAR) reference followed by a unit letter in a command line.
	refUnit = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]{0,80})\)(mi?b?|Mi?B?|gi?b?|Gi?B?|ki?b?|Ki?B?)\b`)
)

// unitScale is how many base units (bytes, millicores) one unit of a name or suffix holds.
func unitScale(u string) (int64, bool) {
	switch strings.ToLower(u) {
	case "k", "kb", "kib", "ki":
		return 1 << 10, true
	case "m", "mb", "mib", "mi", "megabytes":
		return 1 << 20, true
	case "g", "gb", "gib", "gi":
		return 1 << 30, true
	}
	return 0, false
}

// downwardUnits reports an env var filled from the container's resources whose divisor
// does not match the unit its name or its use in the command line expects.
func (pc *podCheck) downwardUnits(ctx context.Context, d *depCheck) bool {
	argv := strings.Join(commandLine(d.spec), " ")
	for _, ev := range d.spec.Env {
		if ev.ValueFrom == nil || ev.ValueFrom.ResourceFieldRef == nil {
			continue
		}
		rf := ev.ValueFrom.ResourceFieldRef
		div := rf.Divisor
		if div.IsZero() {
			div = resource.MustParse("1")
		}
		want, how := "", ""
		if m := unitSuffix.FindStringSubmatch(ev.Name); m != nil {
			want, how = m[1], "its name says "+m[1]
		}
		for _, m := range refUnit.FindAllStringSubmatch(argv, 8) {
			if m[1] == ev.Name {
				want, how = m[2], fmt.Sprintf("the command line reads it as $(%s)%s", ev.Name, m[2])
			}
		}
		if want == "" {
			continue
		}
		var got string
		switch {
		case strings.Contains(rf.Resource, "memory") || strings.Contains(rf.Resource, "storage"):
			scale, ok := unitScale(want)
			if !ok || div.Value() == scale {
				continue
			}
			unit := "units of " + div.String()
			if div.Value() == 1 {
				unit = "bytes"
			}
			got = fmt.Sprintf("it holds %s in %s", rf.Resource, unit)
			if lim := resourceOf(d.spec, rf.Resource); lim != nil {
				got += fmt.Sprintf(" (%d for %s)", lim.Value()/max(div.Value(), 1), lim.String())
			}
		case strings.Contains(rf.Resource, "cpu"):
			if !strings.HasPrefix(strings.ToLower(want), "m") || div.MilliValue() == 1 {
				continue
			}
			unit := "units of " + div.String()
			if div.MilliValue() == 1000 {
				unit = "whole cores, rounded up"
			}
			got = fmt.Sprintf("it holds %s in %s, not millicores", rf.Resource, unit)
		default:
			continue
		}
		wl := pc.e.workloadOf(ctx, pc.pod)
		facts := map[string]string{"env": ev.Name, "resource": rf.Resource, "divisor": div.String(), "sourceResource": kubectlResource(wl)}
		d.report(ctx, "resource-env-unit-mismatch", 0, wl, fmt.Sprintf("%s: env %s takes %s from the downward API with divisor %s, so %s, but %s. Set resourceFieldRef.divisor (1Mi for megabytes, 1m for millicores) on env %s in %s %s.",
			d.opening(), ev.Name, rf.Resource, div.String(), got, how, ev.Name, wl.Kind, wl.Name), nil, nil, facts)
		return true
	}
	return false
}

// resourceOf is the container's limit (or request) that a resourceFieldRef names.
func resourceOf(c corev1.Container, field string) *resource.Quantity {
	kind, name, ok := strings.Cut(field, ".")
	if !ok {
		return nil
	}
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	if q, ok := list[corev1.ResourceName(name)]; ok {
		return &q
	}
	return nil
}

// downwardFallback says when an env var takes a limit from the downward API that the
// container does not set: the kubelet then gives it the node's allocatable amount, so a
// program sizing its workers, threads or heap by it sizes them for the whole node.
func (pc *podCheck) downwardFallback(ctx context.Context, c corev1.Container) string {
	for _, ev := range c.Env {
		if ev.ValueFrom == nil || ev.ValueFrom.ResourceFieldRef == nil {
			continue
		}
		field := ev.ValueFrom.ResourceFieldRef.Resource
		kind, res, ok := strings.Cut(field, ".")
		if !ok || kind != "limits" {
			continue
		}
		if _, set := c.Resources.Limits[corev1.ResourceName(res)]; set {
			continue
		}
		node := "the node's allocatable " + res
		if pc.pod.Spec.NodeName != "" {
			if n, err := getAs[*corev1.Node](ctx, pc.e, "Node", pc.pod.Spec.NodeName); err == nil {
				if q, ok := n.Status.Allocatable[corev1.ResourceName(res)]; ok {
					node = fmt.Sprintf("node %s's allocatable %s, %s", n.Name, res, q.String())
				}
			}
		}
		return fmt.Sprintf(" Env %s takes %s from the downward API, but container %s sets no %s limit, so it holds %s: whatever the program sizes by it (workers, threads, heap) is sized for the whole node. Set a %s limit on the container, or take requests.%s instead.",
			ev.Name, field, c.Name, res, node, res, res)
	}
	return ""
}
