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

import "strings"

// Near names: a missing name one small edit away from an existing one is likely a typo.

// nearName returns an existing name that differs from want by one small edit (a typo, a
// version suffix), or "".
func nearName(want string, have []string) string {
	for _, h := range have {
		if h == want {
			continue
		}
		// Short names are all a few edits apart; only longer ones make a typo believable.
		if len(want) >= 6 && editDistanceAtMost(want, h, 2) || strings.HasPrefix(h, want+"-") || strings.HasPrefix(want, h+"-") {
			return h
		}
	}
	return ""
}

// editDistanceAtMost reports whether the Levenshtein distance of a and b is at most k
// (bounded: names are at most 253 bytes).
func editDistanceAtMost(a, b string, k int) bool {
	if len(a) > 253 || len(b) > 253 || abs(len(a)-len(b)) > k {
		return false
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)] <= k
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
