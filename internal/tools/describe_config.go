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

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// QuotaLine renders used/hard for every resource of a quota, flagging exhausted ones.
func QuotaLine(q *corev1.ResourceQuota) string {
	names := make([]string, 0, len(q.Status.Hard))
	for n := range q.Status.Hard {
		names = append(names, string(n))
	}
	if len(names) == 0 {
		for n := range q.Spec.Hard {
			names = append(names, string(n))
		}
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		hard, ok := q.Status.Hard[corev1.ResourceName(n)]
		if !ok {
			hard = q.Spec.Hard[corev1.ResourceName(n)]
		}
		used := q.Status.Used[corev1.ResourceName(n)]
		p := fmt.Sprintf("%s %s/%s", n, used.String(), hard.String())
		if !hard.IsZero() && used.Cmp(hard) >= 0 {
			p += " (FULL)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// LimitRangeItemLine renders one LimitRange item.
func LimitRangeItemLine(it corev1.LimitRangeItem) string {
	var parts []string
	add := func(label string, l corev1.ResourceList) {
		if len(l) > 0 {
			parts = append(parts, label+" "+resourceList(l))
		}
	}
	add("min", it.Min)
	add("max", it.Max)
	add("default", it.Default)
	add("defaultRequest", it.DefaultRequest)
	add("maxLimitRequestRatio", it.MaxLimitRequestRatio)
	return string(it.Type) + ": " + strings.Join(parts, ", ")
}

// SecretKeys returns the key names of a Secret, sorted; values are never read.
func SecretKeys(s *corev1.Secret) []string {
	keys := make([]string, 0, len(s.Data)+len(s.StringData))
	for k := range s.Data {
		keys = append(keys, k)
	}
	for k := range s.StringData {
		if _, dup := s.Data[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// IsDefaultStorageClass reports the default-class annotation (GA and beta).
func IsDefaultStorageClass(sc *storagev1.StorageClass) bool {
	return sc.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}
