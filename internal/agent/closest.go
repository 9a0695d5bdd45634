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
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/tools"
)

// Names a user meant: the existing name nearest to one that does not exist.

// closestName suggests the existing name nearest to a misspelt one (edit distance ≤ 3, or
// one contains the other).
func closestName(want string, have []string) string {
	best, bestD := "", 4
	for _, h := range have {
		if h == want {
			continue
		}
		dist := editDistance(want, h, bestD)
		if strings.HasPrefix(h, want) || strings.HasPrefix(want, h) || strings.Contains(h, want) && len(want) >= 3 || strings.Contains(want, h) && len(h) >= 4 {
			dist = min(dist, 2)
		}
		if sameWords(want, h) || sameStem(want, h) {
			dist = min(dist, 1) // the same words in another order (redis-cache for cache-redis), or a suffix apart
		}
		if dist < bestD {
			best, bestD = h, dist
		}
	}
	return best
}

// sameWords reports two dash-separated names made of the same words.
func sameWords(a, b string) bool {
	wa, wb := strings.Split(a, "-"), strings.Split(b, "-")
	if len(wa) < 2 || len(wa) != len(wb) {
		return false
	}
	sort.Strings(wa)
	sort.Strings(wb)
	return strings.Join(wa, "-") == strings.Join(wb, "-")
}

// editDistance is Levenshtein's distance, giving up (returning limit) past limit.
func editDistance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 {
		return limit
	}
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev = cur
	}
	return min(prev[len(b)], limit)
}

// nearestOfKind is the existing object of kind in the namespace whose name is nearest to a
// name that does not exist (a renamed workload: checkout for checkout-service), or "".
func (e *env) nearestOfKind(ctx context.Context, kind, name string) string {
	if kind == "" || name == "" {
		return ""
	}
	objs, _, err := listAs[runtime.Object](ctx, e, kind, tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return ""
	}
	var names []string
	for _, o := range objs {
		if m, err := meta.Accessor(o); err == nil {
			names = append(names, m.GetName())
		}
	}
	sort.Strings(names)
	return closestName(name, names)
}
