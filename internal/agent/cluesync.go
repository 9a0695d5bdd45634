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
	"regexp"
	"strings"

	"github.com/kubage/kubage/internal/tools"
)

// A controller whose informer never syncs logs only that ("failed to sync *v1.Ingress:
// context deadline exceeded", "timed out waiting for caches to sync for *v1.Service"): the
// list it waits for is often refused by RBAC, with the refusal logged at a level the
// application does not print. Such a line is a question for the authorizer, asked with the
// pod's ServiceAccount; only a denial the SubjectAccessReview confirms is reported (an
// allowed list points at the network instead).

var informerSync = regexp.MustCompile(`(?i)(?:failed to sync|failed to (?:list|watch)|caches to sync for|cache sync(?: of| for)?|waiting for informer (?:caches )?(?:to sync )?(?:for )?)\s+\*?(?:[a-z0-9]+/)?v\d+(?:(?:alpha|beta)\d+)?\.([A-Z][A-Za-z]{2,60})\b`)

// syncDenial returns the list an informer's sync failure waits for, as an inferred denial.
func syncDenial(line string) *Denial {
	m := informerSync.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	res := resourceOfKind(m[1])
	scope := "namespace"
	if clusterScoped(res) {
		scope = "cluster"
	}
	return &Denial{Verb: "list", Resource: res, Group: knownGroups[res], Scope: scope, Inferred: true}
}

// resourceOfKind is the resource name of a kind: the one the tools know, else English plural.
func resourceOfKind(kind string) string {
	if k, err := tools.ResolveKind(kind); err == nil && k.Plural != "" {
		return k.Plural
	}
	low := strings.ToLower(kind)
	switch {
	case low == "endpoints":
		return low
	case strings.HasSuffix(low, "s") || strings.HasSuffix(low, "x") || strings.HasSuffix(low, "ch") || strings.HasSuffix(low, "sh"):
		return low + "es"
	case strings.HasSuffix(low, "y") && len(low) > 1 && !strings.ContainsRune("aeiou", rune(low[len(low)-2])):
		return low[:len(low)-1] + "ies"
	}
	return low + "s"
}
