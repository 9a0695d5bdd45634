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
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// probeFailure reports failing liveness/startup (restarting) or readiness probes from
// Unhealthy events. A probe often fails because the application cannot reach what it
// depends on: the container's own log is read first and what it names is followed.
func (pc *podCheck) probeFailure(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container, restarting bool) bool {
	evs := pc.events(ctx)
	for _, kind := range []string{"Liveness", "Startup", "Readiness"} {
		if kind == "Readiness" && restarting {
			continue
		}
		g := tools.EventsMention(evs, "Unhealthy", kind+" probe failed")
		if g == nil {
			continue
		}
		// The summary says which probe failed; the kubelet's message says it again.
		msg := probeMessage(kind, g.Message)
		probe := spec.LivenessProbe
		rule := "liveness-probe-failing"
		switch kind {
		case "Startup":
			probe = spec.StartupProbe
		case "Readiness":
			probe, rule = spec.ReadinessProbe, "readiness-probe-failing"
		}
		pl := "not set"
		if probe != nil {
			pl = tools.ProbeLine(probe)
		}
		ev := pc.e.eventEvidence(pc.ref, *g)
		previous := rule == "liveness-probe-failing" && cs.LastTerminationState.Terminated != nil
		lr := pc.e.logs(ctx, pc.pod.Name, cs.Name, previous)
		clue, evIDs := pc.textClue(ctx, cs.Name, "", lr)
		if !clue.IsError() && probe != nil && probe.Exec != nil {
			// An exec probe's failure message is the command's own output ("could not
			// connect to server at db:5432"): without a log it is the application's words.
			if c := ExtractClues([]string{msg}); c.IsError() {
				clue = c
			}
		}
		symptom := fmt.Sprintf("fails its %s probe (x%d: %s)", kind, g.Count, tools.Sanitize(msg, 160, true))
		unread := ""
		if !clue.IsError() {
			unread = unreadableLog(lr)
			symptom += unread
		}
		// The log announcing another port than the refused probe's explains the refusal
		// by itself: whatever else the log names is not why nothing answers there.
		listen := probeListenPort(probe, msg, spec, lr.Lines)
		if listen == "" && pc.followClue(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: clue, symptom: symptom, evIDs: append([]string{ev}, evIDs...)}) {
			return true
		}
		summary := fmt.Sprintf("%s probe (%s) of container %s in pod %s fails (x%d): %s", kind, pl, cs.Name, pc.pod.Name, g.Count, msg)
		if rule == "liveness-probe-failing" {
			summary += fmt.Sprintf("; the kubelet restarted it %d time(s).", cs.RestartCount)
			summary += probeTiming(probe, spec.StartupProbe, cs)
		} else {
			summary += "; the pod is not Ready, so it gets no Service traffic."
			if r := cs.State.Running; r != nil {
				summary += fmt.Sprintf(" The container has been running for %s without passing it.", pc.e.now.Sub(r.StartedAt.Time).Round(time.Second))
			}
		}
		summary += probeTimeout(probe, g.Message, lr.Lines)
		culprit := ObjectRef{}
		if listen != "" {
			if set := pc.portSetting(ctx, spec, lr.Lines, probePort(probe, spec)); set != nil {
				// First, so a long quoted listener line cannot clip it away.
				listen = " It takes the port from " + clipString(set.say(), 200) + "." + listen
				if set.ref.Kind == "ConfigMap" || set.ref.Kind == "Secret" {
					culprit = set.ref
				}
			}
		}
		if lref, why, ok := pc.limitRangeSlowStart(ctx, spec, msg); ok && rule == "liveness-probe-failing" && listen == "" {
			culprit = lref
			summary += why
		} else {
			summary += probeCPU(probe, g.Message, spec)
		}
		summary += probeScheme(probe, msg, spec)
		summary += listen
		if unread != "" {
			summary += " Its log cannot be read" + strings.TrimPrefix(unread, ", and its log cannot be read") + ": this is read from the pod's events and spec."
		}
		facts := map[string]string{"probe": pl}
		var srcs []ObjectRef
		if clue.IsError() {
			summary += " Its log reports: " + quoteClue(clue) + "."
			summary += pc.connectionNote(ctx, spec, clue, summary)
			facts["errorLine"] = clue.Line
			// The application's own error fails the probe: its configuration is where to look.
			var where string
			srcs, where = pc.settingSources(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: clue})
			summary += where
		}
		pc.findWith(ctx, rule, cs.Name, summary, culprit, append([]string{ev}, evIDs...), facts, srcs)
		if rule == "readiness-probe-failing" {
			pc.followPeers(ctx, g.Message)
		}
		return true
	}
	return false
}

// probeMessage is an Unhealthy event's message without the kubelet's "<Kind> probe failed: "
// in front, which some emitters write twice.
func probeMessage(kind, msg string) string {
	msg = strings.TrimSpace(msg)
	for i := 0; i < 3; i++ {
		rest, ok := cutPrefixFold(msg, kind+" probe failed:")
		if !ok {
			break
		}
		msg = strings.TrimSpace(rest)
	}
	return msg
}

// cutPrefixFold is strings.CutPrefix ignoring case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// probeTiming compares the time a liveness probe gives the application with how long each
// killed instance ran: when they match, the application starts slower than the probe allows.
func probeTiming(p, startup *corev1.Probe, cs corev1.ContainerStatus) string {
	t := cs.LastTerminationState.Terminated
	if p == nil || t == nil || t.StartedAt.IsZero() || t.FinishedAt.IsZero() {
		return ""
	}
	period, threshold := p.PeriodSeconds, p.FailureThreshold
	if period <= 0 {
		period = 10
	}
	if threshold <= 0 {
		threshold = 3
	}
	budget := time.Duration(p.InitialDelaySeconds+period*threshold) * time.Second
	ran := t.FinishedAt.Sub(t.StartedAt.Time).Round(time.Second)
	s := fmt.Sprintf(" The probe allows %s before a restart (initialDelaySeconds %d + failureThreshold %d × periodSeconds %d); the last instance ran %s.",
		budget, p.InitialDelaySeconds, threshold, period, ran)
	if startup == nil && ran >= budget*7/10 && ran <= budget*3/2+time.Duration(period)*time.Second {
		s += " It is killed as soon as the probe's allowance runs out, so the application likely needs longer to start: add a startupProbe or raise initialDelaySeconds."
	}
	return s
}

// probeTimedOut reports a probe failure message that says the probe ran out of time.
func probeTimedOut(msg string) bool {
	low := strings.ToLower(msg)
	return strings.Contains(low, "deadline exceeded") || strings.Contains(low, "timeout") || strings.Contains(low, "timed out")
}

// probeCPU adds the container's CPU limit to a probe that times out: a process held to a
// small CPU quota is throttled (CFS) whenever it needs more, and its health endpoint answers
// late while it works or warms up (a JIT, a cache load, garbage collection).
func probeCPU(p *corev1.Probe, msg string, spec corev1.Container) string {
	if p == nil || !probeTimedOut(msg) {
		return ""
	}
	q, ok := spec.Resources.Limits[corev1.ResourceCPU]
	if !ok || q.MilliValue() > 500 {
		return ""
	}
	return fmt.Sprintf(" Container %s is limited to %s of CPU (cpu limit %s): when the process needs more it is throttled, and its health endpoint answers after the probe has given up; raise the cpu limit (or remove it), or give the probe more time.",
		spec.Name, cpuWords(q.MilliValue()), q.String())
}

// cpuWords says a CPU quantity in cores.
func cpuWords(milli int64) string {
	if milli%1000 == 0 {
		return fmt.Sprintf("%d core(s)", milli/1000)
	}
	return fmt.Sprintf("%.2g of a core", float64(milli)/1000)
}

// logDuration finds durations an application logs about its requests ("took 4.2s",
// "latency=3500ms", "duration: 2s").
var logDuration = regexp.MustCompile(`(?i)\b(?:took|latency|duration|elapsed|response time|in)[=: ]+(\d{1,6}(?:\.\d{1,3})?)(ms|s)\b`)

// probeTimeout explains a probe that times out: its timeoutSeconds against the slowest
// answer the application's log reports.
func probeTimeout(p *corev1.Probe, msg string, lines []string) string {
	if p == nil || !probeTimedOut(msg) {
		return ""
	}
	limit := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	s := fmt.Sprintf(" The probe gives up after timeoutSeconds %d", max(p.TimeoutSeconds, 1))
	if p.TimeoutSeconds == 0 {
		s += " (the default)"
	}
	var slowest time.Duration
	for i, l := range lines {
		if i >= 200 {
			break
		}
		for _, m := range logDuration.FindAllStringSubmatch(clipBytes(l, maxClueLineLen), 4) {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				continue
			}
			d := time.Duration(v * float64(time.Second))
			if strings.EqualFold(m[2], "ms") {
				d = time.Duration(v * float64(time.Millisecond))
			}
			slowest = max(slowest, d)
		}
	}
	if slowest > limit {
		s += fmt.Sprintf(", but the application's log shows answers taking up to %s", slowest.Round(time.Millisecond))
	}
	return s + ": raise timeoutSeconds above the endpoint's real latency, or make the health endpoint cheaper."
}

// probeScheme says when an HTTP probe sends plain HTTP to a port the container serves TLS on
// (named https/tls/ssl, or 443/8443) and fails with 400: a TLS listener answers a plain
// request with "400 Bad Request: the plain HTTP request was sent to HTTPS port".
func probeScheme(p *corev1.Probe, msg string, c corev1.Container) string {
	if p == nil || p.HTTPGet == nil || p.HTTPGet.Scheme == corev1.URISchemeHTTPS {
		return ""
	}
	low := strings.ToLower(msg)
	if !strings.Contains(low, "statuscode: 400") && !strings.Contains(low, "http request to an https server") && !strings.Contains(low, "sent to https port") {
		return ""
	}
	port := p.HTTPGet.Port
	name, number := port.StrVal, port.IntVal
	for _, cp := range c.Ports {
		if name != "" && cp.Name == name || name == "" && cp.ContainerPort == number {
			name, number = cp.Name, cp.ContainerPort
		}
	}
	low = strings.ToLower(name)
	if !strings.Contains(low, "https") && !strings.Contains(low, "tls") && !strings.Contains(low, "ssl") && number != 443 && number != 8443 {
		return ""
	}
	return fmt.Sprintf(" The probe sends plain HTTP (scheme %s) to port %s, which serves TLS: a TLS listener answers a plain request with 400. Set the probe's scheme to HTTPS (the kubelet does not verify the certificate).",
		orDefault(string(p.HTTPGet.Scheme), "HTTP, the default"), portString(netPort{Name: name, Number: number}))
}
