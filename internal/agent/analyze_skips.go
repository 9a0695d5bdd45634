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
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A controller that will not act on an object usually says so, often not as an error:
// "Skipping endpoint checkout.shop.example.com … because owner id does not match",
// "Ignoring ingress because of error while validating ingress class", "refusing to update
// the record: not owned by us". Such a line, in the log of a Running pod, that names the
// object the user asks about (the target's name, an Ingress host, a host the problem text
// spells out) answers "why does nothing happen to it". The line often quotes the values it
// compared; the one that is the controller's own argument or variable is the setting to
// change.

// skipWording is how controllers say they leave an object alone.
var skipWording = regexp.MustCompile(`(?i)\b(skip(s|ping|ped)?|ignor(e|es|ing|ed)|does not match|doesn't match|do not match|not match(ing|ed)?|mismatch(ed)?|not owned|owned by (another|a different)|refus(e|es|ed|ing) to|reject(s|ed|ing)?|not (allowed|permitted) to|will not (be )?(process|reconcil|sync|updat|manag))`)

// connectionWording marks a client's failure to reach something, which is not a controller
// declining to act (that is followed as a dependency elsewhere).
var connectionWording = regexp.MustCompile(`(?i)(connection refused|i/o timeout|no such host|connection reset|deadline exceeded|timed out)`)

// lineValue is a value a line quotes: "prod-eu1", 'blue', required: prod-eu1-green.
var lineValue = regexp.MustCompile(`"([^"\s]{2,80})"|'([^'\s]{2,80})'|\b(?:found|required|expected|want|wanted|got|have|is|owner|id)[:=]\s*([A-Za-z0-9][\w.:/-]{1,79})`)

// hostInText is a DNS name with at least two dots whose last label is a word.
var hostInText = regexp.MustCompile(`\b([a-z0-9](?:[a-z0-9-]{0,62}\.){2,}[a-z]{2,24})\b`)

// askedObject is what the session asks about, with the names a controller would print for it.
type askedObject struct {
	ref   ObjectRef
	names []string
}

// asked returns the object the session asks about (its target, or the Ingress that serves a
// host the problem spells out) and the names a log would print for it; nil when there is none.
func (e *env) asked(ctx context.Context) *askedObject {
	if e.askedDone {
		return e.askedMemo
	}
	e.askedDone = true
	var a askedObject
	ingressHosts := func(ing *networkingv1.Ingress) []string {
		var hs []string
		for _, r := range ing.Spec.Rules {
			if r.Host != "" && !containsStr(hs, r.Host) {
				hs = append(hs, r.Host)
			}
		}
		return hs
	}
	if t := e.s.Target; t != nil && t.Name != "" {
		if k, err := tools.ResolveKind(t.Kind); err == nil && k.Namespaced && k.Kind != "Pod" {
			a.ref = e.ref(k.Kind, t.Name)
			a.names = append(a.names, t.Name)
			if k.Kind == "Ingress" {
				if ing, err := getAs[*networkingv1.Ingress](ctx, e, "Ingress", t.Name); err == nil {
					a.names = append(a.names, ingressHosts(ing)...)
				}
			}
		}
	}
	var hosts []string
	for _, m := range hostInText.FindAllStringSubmatch(strings.ToLower(clipString(e.s.Problem, 4000)), 5) {
		if !containsStr(hosts, m[1]) && !strings.HasSuffix(m[1], ".svc.cluster.local") {
			hosts = append(hosts, m[1])
		}
	}
	if len(hosts) > 0 && a.ref.IsZero() {
		if ings, _, err := listAs[*networkingv1.Ingress](ctx, e, "Ingress", tools.ListOptions{Max: 100}); err == nil {
			for _, ing := range ings {
				for _, h := range ingressHosts(ing) {
					if containsStr(hosts, h) && a.ref.IsZero() {
						a.ref = e.ref("Ingress", ing.Name)
						a.names = append(a.names, ing.Name)
					}
				}
			}
		}
	}
	for _, h := range hosts {
		if !containsStr(a.names, h) {
			a.names = append(a.names, h)
		}
	}
	if len(a.names) > 0 {
		e.askedMemo = &a
	}
	return e.askedMemo
}

// namesWhole reports whether line contains name as a whole name (not inside a longer one).
func namesWhole(line, name string) bool {
	if len(name) < 3 {
		return false
	}
	low, name := strings.ToLower(line), strings.ToLower(name)
	return wordAt(low, name, func(s, end int) bool {
		before := s == 0 || !isNameByte(low[s-1]) && low[s-1] != '.'
		after := end == len(low) || !isNameByte(low[end]) && (low[end] != '.' || end+1 == len(low) || low[end+1] == ' ')
		return before && after
	})
}

// skipsAsked reports (and records) a Running controller whose log says it leaves the asked
// object alone.
func (pc *podCheck) skipsAsked(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container, lines []string) bool {
	a := pc.e.asked(ctx)
	if a == nil || len(lines) == 0 {
		return false
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	if !a.ref.IsZero() && wl.Key() == a.ref.Key() {
		return false // the object's own pods speaking of themselves
	}
	var hit string
	repeats := 0
	for _, l := range lines {
		if len(l) > maxClueLineLen {
			l = l[:maxClueLineLen]
		}
		if !skipWording.MatchString(l) || connectionWording.MatchString(l) {
			continue
		}
		for _, n := range a.names {
			if namesWhole(l, n) {
				if hit == "" {
					hit = l
				}
				repeats++
				break
			}
		}
	}
	if hit == "" {
		return false
	}
	line := clipString(strings.TrimSpace(tools.Sanitize(hit, maxClueLineLen, false)), maxClueLine)
	what := "the object this session asks about"
	if !a.ref.IsZero() {
		what = a.ref.Kind + " " + a.ref.Name
	}
	summary := fmt.Sprintf("%s %s skips %s: container %s of its pod %s logged %d such line(s), “%s”.", wl.Kind, wl.Name, what, cs.Name, pc.pod.Name, repeats, line)
	facts := map[string]string{"errorLine": line, "object": what}
	if set, val := settingQuoted(hit, spec); set != "" {
		facts["setting"] = set
		summary += fmt.Sprintf(" The value it compares, %s, is its own setting %s: the controller leaves the object alone until that setting and what the object (or the record it owns) carries agree.", val, set)
	} else {
		facts["setting"] = "its arguments"
		summary += " Nothing else is wrong with the object: the controller's configuration or the object's markers decide what it acts on."
	}
	ev := pc.e.evidence(fmt.Sprintf("Container %s of pod %s (%s %s) logged: %s", cs.Name, pc.pod.Name, wl.Kind, wl.Name, line),
		Source{Kind: SourceLog, Tool: "k8s_logs", Object: &pc.ref, Query: cs.Name}, "")
	f := Finding{Rule: "controller-skips-object", Object: pc.ref, Culprit: wl, Summary: summary,
		Evidence: []string{pc.statusEv, ev}, Facts: pc.facts(ctx, cs.Name, facts), Affected: []ObjectRef{pc.ref}}
	if !a.ref.IsZero() {
		f.Affected = append(f.Affected, a.ref)
	}
	pc.e.find(f)
	return true
}

// settingQuoted finds, among the values line quotes, one that is the container's own argument
// or environment value, and returns that setting ("--txt-owner-id=prod-eu1-green") and value.
func settingQuoted(line string, c corev1.Container) (string, string) {
	var vals []string
	for _, m := range lineValue.FindAllStringSubmatch(strings.ReplaceAll(line, `\"`, `"`), 12) {
		v := strings.TrimRight(m[1]+m[2]+m[3], ".,;:")
		if len(v) >= 3 && !containsStr(vals, v) {
			vals = append(vals, v)
		}
	}
	// The longest value first: "prod-eu1-green" before its prefix "prod-eu1".
	sort.SliceStable(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	args := append(append([]string(nil), c.Command...), c.Args...)
	for _, v := range vals {
		for i, arg := range args {
			if k, val, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(k, "-") && val == v {
				return arg, v
			}
			if arg == v && i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") {
				return args[i-1] + " " + arg, v
			}
		}
		for _, ev := range c.Env {
			if ev.ValueFrom == nil && ev.Value == v {
				return ev.Name + "=" + v, v
			}
		}
	}
	return "", ""
}
