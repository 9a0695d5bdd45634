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

// A workload can be healthy and do nothing: a switch in its configuration turns its work off
// (CONSUMERS_ENABLED=false, SCHEDULER_ENABLED=0) and it says so in its log at warning or info
// level ("consumers disabled by configuration", "idle: 0 consumers running"). No error line is
// written, so the switch is found by its value and the log's own words about it.

// offValues are values that turn a switch off.
var offValues = map[string]bool{"false": true, "off": true, "no": true, "disabled": true, "disable": true, "0": true, "n": true}

// switchWords mark a setting's name as a switch; "0" counts as off only for such a name.
var switchWords = map[string]bool{"enabled": true, "enable": true, "active": true, "on": true, "run": true, "start": true, "autostart": true}

// offWords in a log line say something is turned off or not running.
var offWords = regexp.MustCompile(`(?i)\b(disabled|not enabled|turned off|switched off|skipping|skipped|idle|paused|not (?:subscribing|consuming|starting|running|processing)|0 (?:consumers|workers|subscribers|jobs))\b`)

// switchedOff reports a setting of a Ready container that switches work off when the
// container's log names it, or says its subject is disabled or idle.
func (pc *podCheck) switchedOff(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container, lines []string, evIDs []string) bool {
	e := pc.e
	if len(lines) == 0 {
		return false
	}
	wl := e.workloadOf(ctx, pc.pod)
	for _, s := range e.configSettings(ctx, pc.pod, spec, wl) {
		if s.secret || s.ref.IsZero() && s.where == "" {
			continue
		}
		v := strings.ToLower(strings.Trim(strings.TrimSpace(s.value), `"'`))
		words := nameWordsOf(s.name)
		isSwitch := false
		var subject []string
		for _, w := range words {
			if switchWords[w] {
				isSwitch = true
			} else if len(w) >= 4 {
				subject = append(subject, w)
			}
		}
		// A switch's name makes any off value count; any other setting must say false/disabled.
		if !offValues[v] || !isSwitch && v != "false" && v != "disabled" {
			continue
		}
		line, last, count := "", "", 0
		for _, l := range lines {
			low := strings.ToLower(l)
			said := strings.Contains(l, s.name)
			if !said && offWords.MatchString(l) {
				for _, w := range subject {
					if strings.Contains(low, w) {
						said = true
						break
					}
				}
			}
			if said && offWords.MatchString(l) || said && strings.Contains(l, s.name) && strings.Contains(low, v) {
				count++
				last = strings.TrimSpace(l)
				if line == "" {
					line = last
				}
			}
		}
		if line == "" {
			continue
		}
		ref := s.ref
		if ref.IsZero() {
			ref = wl
		}
		evIDs = append(evIDs, e.objEvidence(ref, s.where))
		d := &depCheck{pc: pc, cs: cs, spec: spec, symptom: "is Running and Ready", evIDs: evIDs}
		d.clue = Clue{Line: line}
		said := fmt.Sprintf("%d line(s) of its log say so", count)
		if last != line {
			said += fmt.Sprintf(", the last “%s”", tools.Sanitize(last, 160, true))
		}
		d.report(ctx, "setting-switched-off", 0, ref, fmt.Sprintf("%s, yet does none of its work: %s = %s in %s switches it off, and %s. Set %s to true (or remove it), then restart %s.",
			d.opening(), s.name, orDefault(s.value, "\"\""), s.where, said, s.name, kubectlResource(wl)), nil, nil,
			map[string]string{"setting": s.name, "value": s.value, "source": s.where, "sourceResource": kubectlResource(ref)})
		return true
	}
	return false
}
