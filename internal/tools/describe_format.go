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
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LabelsString renders a label map sorted, as a selector string.
func LabelsString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

func selectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return "<none>"
	}
	out := metav1.FormatLabelSelector(s)
	return out
}

func images(spec corev1.PodSpec) string {
	var parts []string
	for _, c := range spec.InitContainers {
		parts = append(parts, "init:"+c.Name+"="+c.Image)
	}
	for _, c := range spec.Containers {
		parts = append(parts, c.Name+"="+c.Image)
	}
	return strings.Join(parts, ", ")
}

func resourceList(l corev1.ResourceList) string {
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, string(n))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		q := l[corev1.ResourceName(n)]
		parts = append(parts, n+"="+q.String())
	}
	return strings.Join(parts, ",")
}

func accessModes(m []corev1.PersistentVolumeAccessMode) string {
	parts := make([]string, 0, len(m))
	for _, a := range m {
		parts = append(parts, string(a))
	}
	if len(parts) == 0 {
		return "<none>"
	}
	return strings.Join(parts, ",")
}

func joinCapped(items []string, n int) string {
	sort.Strings(items)
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", … (%d more)", len(items)-n)
}

func replicas(p *int32) int32 { return replicasOr(p, 1) }

func replicasOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func ptrStr(p *string) string { return ptrStrOr(p, "") }

func ptrStrOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func ptrInt32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func ageOrNever(now time.Time, t *metav1.Time) string {
	if t == nil {
		return "never"
	}
	return Age(now, *t) + " ago"
}
