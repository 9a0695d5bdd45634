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

	"github.com/kubage/kubage/internal/tools"
)

// An application may judge a value it depends on and say what it should be, often at
// warning level: BullMQ's `Eviction policy is allkeys-lru. It should be "noeviction"`,
// "expected sslmode require, got disable", "X must be Y, got Z". The value it found is looked up
// in the container's own configuration and then in that of the providers it is configured to
// call (the Redis whose redis.conf says maxmemory-policy allkeys-lru): where it is written is
// what to change, to the value the application asked for.

// judgedValueRe catches "is A. It should be B", "is A, must be B", "expected B, got A" and
// "got A, expected B".
var judgedValueRe = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bis\s+["'\x60]?([A-Za-z0-9][A-Za-z0-9_.:/-]{1,60})["'\x60]?\s*[.,;]?\s*(?:it|this|but it|which)?\s*(?:should|must)\s+be\s+["'\x60]?([A-Za-z0-9][A-Za-z0-9_.:/-]{0,60})`),
	regexp.MustCompile(`(?i)\bexpected\s+["'\x60]?([A-Za-z0-9][A-Za-z0-9_.:/-]{0,60})["'\x60]?\s*[,;]?\s*(?:but\s+)?(?:got|found|was)\s+["'\x60]?([A-Za-z0-9][A-Za-z0-9_.:/-]{1,60})`),
}

// judgedValue returns the value a line says is in place and the one it wants.
func judgedValue(line string) (found, want string) {
	line = clipBytes(line, maxClueLineLen)
	if m := judgedValueRe[0].FindStringSubmatch(line); m != nil {
		return strings.TrimRight(m[1], ".,:;"), strings.TrimRight(m[2], ".,:;\"'`")
	}
	if m := judgedValueRe[1].FindStringSubmatch(line); m != nil {
		return strings.TrimRight(m[2], ".,:;\"'`"), strings.TrimRight(m[1], ".,:;\"'`")
	}
	return "", ""
}

// judgedInConfig reports a value the container's log judges wrong, found where it is written.
func (pc *podCheck) judgedInConfig(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container, symptom string, lines []string, evIDs []string) bool {
	e := pc.e
	seen := map[string]bool{}
	for _, l := range lines {
		found, want := judgedValue(l)
		if found == "" || seen[found] || !distinctive(found) || strings.EqualFold(found, want) {
			continue
		}
		seen[found] = true
		d := &depCheck{pc: pc, cs: cs, spec: spec, clue: Clue{Line: strings.TrimSpace(l)}, symptom: symptom, evIDs: evIDs}
		cm := pc.configMapReader(ctx)
		where, via := "", ""
		var ref ObjectRef
		restart := e.workloadOf(ctx, pc.pod)
		if h := pc.tokenSource(ctx, d, cm, found, true); h != nil {
			where, ref = h.where, h.ref
		} else {
			for _, s := range pc.configuredServices(ctx, d) {
				p := pc.backendOf(ctx, s)
				if p == nil {
					continue
				}
				pcp := &podCheck{e: e, pod: p, ref: e.ref("Pod", p.Name)}
				dp := &depCheck{pc: pcp, spec: p.Spec.Containers[0]}
				if h := pcp.tokenSource(ctx, dp, cm, found, true); h != nil {
					where, ref = h.where, h.ref
					restart = e.workloadOf(ctx, p)
					via = fmt.Sprintf(", the configuration of %s %s behind Service %s, which the container is configured to call", restart.Kind, restart.Name, s.Name)
					break
				}
			}
		}
		if where == "" {
			continue
		}
		d.evIDs = append(d.evIDs, e.objEvidence(ref, fmt.Sprintf("%s holds %s", where, tokenFact(found))))
		d.report(ctx, "config-value-rejected", 0, ref, fmt.Sprintf("%s, but the error quotes %s as the value in place and asks for %s: %s is written in %s%s. Set it to %s there, then restart %s.",
			d.opening(), tokenFact(found), tokenFact(want), tokenFact(found), where, via, tools.Sanitize(want, 60, true), kubectlResource(restart)), nil, []ObjectRef{ref},
			map[string]string{"token": tokenFact(found), "sourceResource": kubectlResource(ref)})
		return true
	}
	return false
}
