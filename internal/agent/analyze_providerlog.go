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

// The provider's own log. When a consumer's error is attributed to a Service whose pods are
// Running and Ready, the provider may still be failing at its job and saying so: a data file
// it cannot write ("Permission denied"), a full volume ("No space left on device"), a
// setting it lacks. One provider pod's log is read (its application container, within the
// task's read budget), and an error it keeps logging is followed on the provider itself with
// the same mechanisms a failing pod gets (its mounts and securityContext, its claims, its
// configuration). The consumer's finding then points at what was found there.

// providerLog is what one Ready provider pod logs.
type providerLog struct {
	pod  *corev1.Pod
	clue Clue
}

// readProvider reads the log of one Ready pod behind the Service: its application
// container, one read. It returns a zero providerLog when the log holds no steady error.
func (pc *podCheck) readProvider(ctx context.Context, ready []*corev1.Pod) providerLog {
	e := pc.e
	reps := representatives(ready, 1)
	if e.inProvider || len(reps) == 0 || reps[0].Name == pc.pod.Name {
		return providerLog{}
	}
	p := reps[0]
	order := e.logOrder(p)
	if len(order) == 0 {
		return providerLog{}
	}
	lr := e.logs(ctx, p.Name, order[0].Name, false)
	c := ExtractClues(textLines(lr))
	if !c.IsError() {
		// A client already failed on this server's answer: a warning the server keeps
		// logging ("Memory usage is above soft limit. Refusing data.") is that answer.
		c = warningClue(textLines(lr))
	}
	// One stray error line is noise; a repeated or fatal one is the provider's state.
	if !c.IsError() || c.Repeats < 2 && c.Score < 8 {
		return providerLog{}
	}
	pref := e.ref("Pod", p.Name)
	e.evidence(fmt.Sprintf("Log of %s/%s: %s", p.Name, order[0].Name, c.Line), Source{Kind: SourceLog, Object: &pref, Tool: "k8s_logs"},
		tools.Sanitize(c.Line, maxClueLine, true))
	return providerLog{pod: p, clue: c}
}

// providerOwnError follows the provider's logged error on the provider pod; when that names
// a cause there, the consumer's finding points at it.
func (pc *podCheck) providerOwnError(ctx context.Context, d *depCheck, sref ObjectRef, head string, pl providerLog, facts map[string]string) bool {
	if pl.pod == nil {
		return false
	}
	e := pc.e
	p := pl.pod
	pcp := &podCheck{e: e, pod: p, ref: e.ref("Pod", p.Name)}
	pcp.statusEv = e.objEvidence(pcp.ref, "Pod "+p.Name+": "+tools.Summarize(p, e.now).Status)
	name := e.logOrder(p)[0].Name
	var spec corev1.Container
	var cs corev1.ContainerStatus
	for _, c := range p.Spec.Containers {
		if c.Name == name {
			spec = c
		}
	}
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == name {
			cs = s
		}
	}
	dp := &depCheck{pc: pcp, cs: cs, spec: spec, clue: pl.clue,
		symptom: fmt.Sprintf("is Running and Ready but logged %d error line(s) of this kind", max(pl.clue.Repeats, 1))}
	n := len(e.res.Findings)
	e.inProvider = true
	// Its own words first; then a setting of its own configuration it names ("Got a packet
	// bigger than 'max_allowed_packet' bytes" in the server's log is the server's setting),
	// or a value it quotes that its configuration holds ("access to vhost 'orders' refused
	// for user 'x'" and the permissions entry for x in its definitions file).
	followed := pcp.followText(ctx, dp) || pcp.settingEchoed(ctx, dp, false) || pcp.tokenInConfig(ctx, dp)
	e.inProvider = false
	if !followed || len(e.res.Findings) == n {
		e.res.Findings = e.res.Findings[:n]
		return false
	}
	found := e.res.Findings[n]
	wl := e.workloadOf(ctx, p)
	facts["providerPod"], facts["providerError"] = p.Name, pl.clue.Line
	follow := mergeRefs([]ObjectRef{pcp.ref}, []ObjectRef{found.Culprit})
	d.report(ctx, "dependency-unreachable", 0, found.Culprit, fmt.Sprintf("%s, whose pod %s is Ready but logs %s: the provider's own failure (%s on %s %s) is what its clients see.",
		head, p.Name, quoteLine(pl.clue.Line), found.Rule, found.Culprit.Kind, found.Culprit.Name), follow, mergeRefs([]ObjectRef{sref, wl}, []ObjectRef{found.Culprit}), facts)
	return true
}

// serverNamedByWord walks a Service the client is configured to call when the client's error
// names that provider's software ("MISCONF Redis is configured to save RDB snapshots…",
// "ERR Elasticsearch…"): the server answered with an error of its own, so the provider, not
// the client, is where to look, even though the error gives no address. An error that names
// a setting or a file of the client leads there instead.
func (pc *podCheck) serverNamedByWord(ctx context.Context, d *depCheck) bool {
	if !d.clue.IsError() || len(d.clue.Keys) > 0 || len(d.clue.Paths) > 0 {
		return false
	}
	for _, s := range pc.configuredServices(ctx, d) {
		p := pc.backendOf(ctx, s)
		if p == nil || !isReady(p) || pc.providerWord(ctx, d, []*corev1.Pod{p}) == "" {
			continue
		}
		dd := *d
		dd.via = "configured to call it, and its error names the server's software"
		if pc.walkProvider(ctx, &dd, s, HostPort{Host: s.Name}) {
			*d = dd
			return true
		}
	}
	return false
}

// warnLevel is a log line's warning level, in the common formats.
var warnLevel = regexp.MustCompile(`(?i)(\bwarn(ing)?\b|"level":\s*40\b)`)

// warningClue is the clue of lines read with their warnings as errors, quoting the line as
// the server wrote it (its level word unchanged).
func warningClue(lines []string) Clue {
	promoted := promoteWarnings(lines)
	c := ExtractClues(promoted)
	if !c.IsError() {
		return c
	}
	for i, l := range promoted {
		if i >= 400 {
			break
		}
		if l != lines[i] && ExtractClues([]string{l}).Line == c.Line {
			orig := ExtractClues([]string{strings.Replace(lines[i], warnLevel.FindString(lines[i]), "ERROR", 1)})
			c.Line = strings.Replace(orig.Line, "ERROR", warnLevel.FindString(lines[i]), 1)
			break
		}
	}
	return c
}

// promoteWarnings rewrites the warning level of each line as an error level (bounded).
func promoteWarnings(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, warnLevel.ReplaceAllStringFunc(clipBytes(l, maxClueLineLen), func(w string) string {
			if strings.HasPrefix(w, `"level"`) {
				return `"level":50`
			}
			return "error"
		}))
	}
	return out
}
