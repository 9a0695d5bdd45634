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
	"fmt"
	"strings"
)

// nearKey finds, among keys, the one a user most likely meant as want: the same name up to
// case and separators (master-key, MASTER_KEY, masterKey), or one the wanted name ends with
// or starts with (master_key for RAILS_MASTER_KEY, DB_PASSWORD for DB_PASSWORD_FILE), at
// least four letters long. It returns "" when none is that close.
func nearKey(want string, keys []string) string {
	w := squashKey(want)
	if len(w) < 4 {
		return ""
	}
	best, bestLen := "", 0
	for _, k := range keys {
		n := squashKey(k)
		if len(n) < 4 || k == want {
			continue
		}
		if n == w {
			return k
		}
		if (strings.HasSuffix(w, n) || strings.HasPrefix(w, n) || strings.HasSuffix(n, w) || strings.HasPrefix(n, w)) && len(n) > bestLen {
			best, bestLen = k, len(n)
		}
	}
	return best
}

func squashKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// nearKeyNote is the summary's remark on a near key, or "".
func nearKeyNote(want string, keys []string) string {
	if k := nearKey(want, keys); k != "" {
		return fmt.Sprintf(" It has the key %s, which the application does not read as %s: rename the key (or map it with an env valueFrom).", k, want)
	}
	return ""
}
