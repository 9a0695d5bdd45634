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

// Two workloads agree on a name neither owns: a routing key, a topic, a queue, a bucket. When
// one side's error quotes such a name ("NO_ROUTE … routingKey=orders.created") and a
// ConfigMap of the namespace gives another workload a value one or two letters away
// ("order.created"), that value is the likeliest typo: the two sides no longer meet.

// compoundValue is a name made of words joined by dots, dashes or underscores.
var compoundValue = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z0-9]+){1,6}`)

// maxNearValueMaps bounds the ConfigMaps compared.
const maxNearValueMaps = 60

// nearValueElsewhere reports a ConfigMap value a letter or two from a name the error quotes.
// strict asks for the stronger case, where other settings write the quoted name exactly: it
// is then checked before the container's own settings that echo the error.
func (pc *podCheck) nearValueElsewhere(ctx context.Context, d *depCheck, strict bool) bool {
	if networkClass(d.clue.Class) || d.clue.Line == "" {
		return false
	}
	var toks []string
	for _, t := range compoundValue.FindAllString(clipBytes(d.clue.Line, maxClueLineLen), 20) {
		if len(t) >= 6 && len(t) <= 64 && !containsStr(toks, t) && !strings.Contains(t, "..") && !looksLikeHostOrCode(t) {
			toks = append(toks, t)
		}
	}
	if len(toks) == 0 {
		return false
	}
	cms, err := listOnce[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", maxNearValueMaps)
	if err != nil {
		return false
	}
	type hit struct{ cm, key, val, tok string }
	var hits []hit
	exact := map[string]bool{}
	for _, cm := range cms {
		for _, k := range sortedKeys(cm.Data) {
			v := strings.TrimSpace(cm.Data[k])
			if len(v) < 6 || len(v) > 64 || strings.ContainsAny(v, " \n\t") {
				continue
			}
			for _, t := range toks {
				switch dist := editDistance(strings.ToLower(v), strings.ToLower(t), 3); {
				case dist == 0:
					exact[t] = true
				case dist <= 2 && dist*6 <= len(t):
					hits = append(hits, hit{cm.Name, k, v, t})
				}
			}
		}
	}
	// A name also written exactly elsewhere is one the other side does use correctly; the
	// near value beside it is the one that drifted.
	sort.SliceStable(hits, func(i, j int) bool { return exact[hits[i].tok] && !exact[hits[j].tok] })
	if len(hits) == 0 || !exact[hits[0].tok] && (len(hits) > 1 || strict) {
		return false
	}
	h := hits[0]
	ref := pc.e.ref("ConfigMap", h.cm)
	also := ""
	if exact[h.tok] {
		also = fmt.Sprintf(" (other settings of the namespace write %q exactly)", h.tok)
	}
	d.report(ctx, "config-value-rejected", 74, ref, fmt.Sprintf("%s: the error quotes %q, and key %s of ConfigMap %s holds %q, a letter or two away%s: the two sides of that name no longer meet (a routing key, topic, queue or bucket each side spells its own way). Make key %s say %q.",
		d.opening(), h.tok, h.key, h.cm, h.val, also, h.key, h.tok), nil, []ObjectRef{ref},
		map[string]string{"token": h.val, "key": h.key, "sourceResource": "configmap/" + h.cm})
	return true
}

// looksLikeHostOrCode leaves out DNS names, versions, file names and code identifiers that a
// ConfigMap value would resemble by accident.
func looksLikeHostOrCode(t string) bool {
	low := strings.ToLower(t)
	for _, suf := range []string{".svc", ".local", ".com", ".net", ".org", ".io", ".java", ".go", ".py", ".js", ".yml", ".yaml", ".json", ".conf", ".log"} {
		if strings.HasSuffix(low, suf) {
			return true
		}
	}
	return strings.Count(t, ".") >= 3 || strings.HasPrefix(low, "java.") || strings.HasPrefix(low, "org.") || strings.HasPrefix(low, "com.")
}
