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
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

func init() {
	analyzers["pod"] = analyzePod
	analyzers["unsupported"] = analyzeUnsupported
}

// missingTarget turns a failed GET into a clear finding when the object does not exist.
func (e *env) missingTarget(ref ObjectRef, err error) error {
	if !tools.IsNotFound(err) {
		return err
	}
	r := e.ref(ref.Kind, ref.Name)
	ev := e.objEvidence(r, err.Error())
	if e.hop == 0 {
		e.find(Finding{Rule: "target-not-found", Object: r, Culprit: r, Evidence: []string{ev},
			Summary: err.Error() + ".", Facts: map[string]string{}})
	}
	return nil
}

func analyzeUnsupported(_ context.Context, e *env, ref ObjectRef) error {
	r := ObjectRef{Kind: tools.Sanitize(ref.Kind, 63, true), Namespace: e.s.Namespace, Name: tools.Sanitize(ref.Name, 253, true)}
	msg := fmt.Sprintf("The rule engine does not know the kind %q; supported kinds: %s.", r.Kind, strings.Join(tools.KindNames(), ", "))
	ev := e.evidence(msg, Source{Kind: SourceQuery, Query: "kind " + r.Kind}, "")
	e.find(Finding{Rule: "unsupported-target", Object: r, Culprit: r, Summary: msg, Evidence: []string{ev}, Facts: map[string]string{}})
	return nil
}

func analyzePod(ctx context.Context, e *env, ref ObjectRef) error {
	pod, err := getAs[*corev1.Pod](ctx, e, "Pod", ref.Name)
	if err != nil {
		return e.missingTarget(ref, err)
	}
	found, err := e.checkPod(ctx, pod)
	if err != nil || found {
		return err
	}
	if isReady(pod) {
		if e.runningErrors(ctx, pod) {
			return nil
		}
		// A controller its workload's annotations ask to act on it may be failing at that.
		n := len(e.res.Findings)
		if e.followWorkloadControllers(ctx, e.workloadOf(ctx, pod)); len(e.res.Findings) > n {
			return nil
		}
		return e.checkNetworkPolicies(ctx, []*corev1.Pod{pod}, e.ref("Pod", pod.Name))
	}
	return nil
}

// configWords mark an error about the configuration a server loads or reloads.
var configWords = regexp.MustCompile(`(?i)\b(config|configuration|reload|reloading|invalid|unknown directive|parse|parsing)\b`)

// maxLogContainers caps how many containers of a healthy-looking pod have their logs read.
const maxLogContainers = 2

// runningErrors reads the recent log of a Running, Ready pod: one that keeps logging an
// error is a finding (with what the error names followed), not "no known failure signal".
func (e *env) runningErrors(ctx context.Context, pod *corev1.Pod) bool {
	pc := &podCheck{e: e, pod: pod, ref: e.ref("Pod", pod.Name)}
	pc.statusEv = e.objEvidence(pc.ref, "Pod "+pod.Name+": "+tools.Summarize(pod, e.now).Status)
	specs := map[string]corev1.Container{}
	for _, c := range pod.Spec.Containers {
		specs[c.Name] = c
	}
	note := ""
	var quiet []quietLog
	for i, cs := range e.logOrder(pod) {
		if i >= maxLogContainers {
			break
		}
		lr := e.logs(ctx, pod.Name, cs.Name, false)
		if note == "" && lr.Note != "" && len(lr.Lines) == 0 {
			note = lr.Note
		}
		if pc.skipsAsked(ctx, cs, specs[cs.Name], textLines(lr)) {
			return true
		}
		clue := ExtractClues(textLines(lr))
		// One error line may be noise; a repeated one, or a fatal one, is the application's state.
		// A well-known error's signature counts when it repeats, even written at info level.
		// So does a single one about the configuration it was given (a server that failed to
		// reload keeps the old one and stays Ready) when what it names is a file or value of it.
		once := clue.IsError() && clue.Repeats < 2 && clue.Score < 8 && clue.KnownRepeats < 2
		aboutConfig := clue.Class == ErrConfig || clue.Class == ErrGeneric && configWords.MatchString(clue.Line)
		if (!clue.IsError() || clue.Repeats < 2 && clue.Score < 8) && clue.KnownRepeats < 2 && !(once && aboutConfig) {
			quiet = append(quiet, quietLog{cs: cs, lines: textLines(lr)})
			continue
		}
		clue2, evIDs := pc.textClue(ctx, cs.Name, "", lr)
		if clue2.IsError() || clue2.known > 0 {
			clue = clue2
		}
		if asked, ok := askedClue(textLines(lr), e.s.Problem, clue); ok && clue.known == 0 {
			clue = asked // the error the user came for, among the kinds this server logs
		}
		symptom := fmt.Sprintf("is Running and Ready but logged %d error line(s) of this kind in its last %d", max(clue.Repeats, clue.KnownRepeats), len(lr.Lines))
		d := &depCheck{pc: pc, cs: cs, spec: specs[cs.Name], clue: clue, symptom: symptom, evIDs: evIDs}
		if once {
			if pc.knownText(ctx, d) || pc.reportNamedConfigFile(ctx, d) || pc.tokenInConfig(ctx, d) {
				return true
			}
			continue
		}
		if pc.followClue(ctx, d) || pc.reportNamedConfigFile(ctx, d) {
			return true
		}
		if !clue.IsError() {
			continue // only a well-known line, which the cluster does not explain
		}
		if pc.judgedInConfig(ctx, cs, specs[cs.Name], symptom, textLines(lr), evIDs) {
			return true
		}
		srcs, where := pc.settingSources(ctx, d)
		d.sources = srcs
		d.report(ctx, "app-error-logged", 0, ObjectRef{}, fmt.Sprintf("%s; the error is the application's own (nothing it names is broken in the cluster).%s", d.opening(), where), nil, nil,
			map[string]string{"repeats": fmt.Sprint(clue.Repeats)})
		return true
	}
	// No error in the log: a switch in the configuration may have turned the work off.
	for _, q := range quiet {
		if pc.switchedOff(ctx, q.cs, specs[q.cs.Name], q.lines, nil) || pc.judgedInConfig(ctx, q.cs, specs[q.cs.Name], "is Running and Ready", q.lines, nil) {
			return true
		}
	}
	// No error in the log, or no log at all: the configuration may still be wrong on its face.
	return pc.configuredDrift(ctx, note)
}

// quietLog is a container's log that holds no error.
type quietLog struct {
	cs    corev1.ContainerStatus
	lines []string
}

func isReady(p *corev1.Pod) bool {
	c := tools.PodCondition(p, corev1.PodReady)
	return p.Status.Phase == corev1.PodRunning && c != nil && c.Status == corev1.ConditionTrue
}

// restartWindow is how recent a failed container's restart must be to count against a Ready pod.
const restartWindow = time.Hour

// restartedRecently reports a container restarted after a failure (OOM kill, crash, liveness
// kill) within restartWindow: such a pod is Ready between restarts but not healthy.
func restartedRecently(p *corev1.Pod, now time.Time) bool {
	for _, cs := range p.Status.ContainerStatuses {
		t := cs.LastTerminationState.Terminated
		if cs.RestartCount > 0 && t != nil && (t.ExitCode != 0 || t.Reason == "OOMKilled") && now.Sub(t.FinishedAt.Time) < restartWindow {
			return true
		}
	}
	return false
}

// needsLook reports pods worth analyzing: not Ready, or Ready but restarting after failures.
func needsLook(p *corev1.Pod, now time.Time) bool {
	return !isReady(p) || restartedRecently(p, now) || p.DeletionTimestamp != nil && len(controllerFinalizers(p)) > 0 && now.Sub(p.DeletionTimestamp.Time) > heldAfter
}

// restartSignature is podSignature, marking Ready pods that restart so they group apart.
func restartSignature(p *corev1.Pod) string {
	if isReady(p) {
		return podSignature(p) + "/Restarting"
	}
	return podSignature(p)
}

// podSelector is a label selector for a pod's siblings (without per-revision hashes).
func podSelector(p *corev1.Pod) string {
	m := map[string]string{}
	for k, v := range p.Labels {
		switch k {
		case "pod-template-hash", "controller-revision-hash", "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index",
			"batch.kubernetes.io/job-completion-index", "pod-template-generation":
			continue
		}
		m[k] = v
	}
	if len(m) == 0 {
		return "<selector>"
	}
	return tools.LabelsString(m)
}

// podCheck carries what checkPod learned so far about one pod.
type podCheck struct {
	e        *env
	pod      *corev1.Pod
	ref      ObjectRef
	statusEv string
	evs      []tools.EventGroup
	loaded   bool
	// lines are the log lines each container's clue was read from (textClues), for the
	// checks that look past the clue's own line.
	lines map[string][]string
}

// workloadOrPod is the workload owning the pod, or the pod itself when nothing controls it:
// the object a user edits.
func (pc *podCheck) workloadOrPod(ctx context.Context) ObjectRef {
	if wl := pc.e.workloadOf(ctx, pc.pod); !wl.IsZero() {
		return wl
	}
	return pc.ref
}

func (pc *podCheck) events(ctx context.Context) []tools.EventGroup {
	if !pc.loaded {
		pc.evs = pc.e.events(ctx, "Pod", pc.pod.Name)
		pc.loaded = true
	}
	return pc.evs
}

func (pc *podCheck) facts(ctx context.Context, container string, extra map[string]string) map[string]string {
	wl := pc.e.workloadOf(ctx, pc.pod)
	f := map[string]string{
		"pod": pc.pod.Name, "podSelector": podSelector(pc.pod), "workload": kubectlResource(wl), "container": container,
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

func (pc *podCheck) find(ctx context.Context, rule, container, summary string, culprit ObjectRef, ev []string, facts map[string]string) {
	pc.findWith(ctx, rule, container, summary, culprit, ev, facts, nil)
}

// findWith is find with the configuration objects the container reads (settingSources).
func (pc *podCheck) findWith(ctx context.Context, rule, container, summary string, culprit ObjectRef, ev []string, facts map[string]string, sources []ObjectRef) {
	if culprit.IsZero() {
		culprit = pc.e.workloadOf(ctx, pc.pod)
	}
	f := Finding{Rule: rule, Object: pc.ref, Culprit: culprit, Summary: summary,
		Evidence: append([]string{pc.statusEv}, ev...), Facts: pc.facts(ctx, container, facts), Sources: sources}
	if culprit.Key() != pc.ref.Key() {
		f.Affected = []ObjectRef{pc.ref}
		// A culprit other than the workload (a claim, a Secret, a node): the workload that
		// refers to it is affected too, and often the place to fix.
		if wl := pc.e.workloadOf(ctx, pc.pod); wl.Key() != culprit.Key() && wl.Key() != pc.ref.Key() {
			f.Affected = append(f.Affected, wl)
		}
	}
	pc.e.find(f)
}

// checkPod applies the pod and container rules to one pod and reports whether one matched.
func (e *env) checkPod(ctx context.Context, pod *corev1.Pod) (bool, error) {
	pc := &podCheck{e: e, pod: pod, ref: e.ref("Pod", pod.Name)}
	e.examine(pc.ref)
	pc.statusEv = e.objEvidence(pc.ref, "Pod "+pod.Name+": "+tools.Summarize(pod, e.now).Status)
	e.notePodReasons(pc.statusEv, pod)
	n := len(e.res.Findings)
	if err := pc.terminating(ctx); err != nil {
		return len(e.res.Findings) > n, err
	}
	if len(e.res.Findings) > n {
		return true, nil
	}
	if pod.Status.Phase == corev1.PodFailed && pod.Status.Reason == "Evicted" {
		pc.evicted(ctx)
		return true, nil
	}
	if done, err := pc.scheduling(ctx); done || err != nil {
		return len(e.res.Findings) > n, err
	}
	if err := pc.containers(ctx); err != nil {
		return len(e.res.Findings) > n, err
	}
	if len(e.res.Findings) > n {
		return true, nil
	}
	if err := pc.node(ctx); err != nil {
		return len(e.res.Findings) > n, err
	}
	if len(e.res.Findings) == n && pod.DeletionTimestamp == nil {
		_ = pc.tolerationExpires(ctx) || pc.pdbOverlap(ctx)
	}
	return len(e.res.Findings) > n, nil
}

func (pc *podCheck) terminating(ctx context.Context) error {
	p := pc.pod
	if p.DeletionTimestamp == nil {
		return nil
	}
	if pc.heldByFinalizer(ctx) {
		return nil
	}
	grace := int64(30)
	if p.DeletionGracePeriodSeconds != nil {
		grace = *p.DeletionGracePeriodSeconds
	}
	age := pc.e.now.Sub(p.DeletionTimestamp.Time)
	if age < time.Duration(grace)*time.Second+2*time.Minute {
		pc.e.evidence(fmt.Sprintf("Pod %s is being deleted (requested %s ago)", p.Name, age.Round(time.Second)), Source{Kind: SourceObject, Object: &pc.ref}, "")
		return nil
	}
	facts := map[string]string{"finalizers": strings.Join(p.Finalizers, ","), "resource": "pod/" + p.Name}
	culprit := pc.ref
	var follow []ObjectRef
	why := ""
	if len(p.Finalizers) > 0 {
		why = " finalizers " + strings.Join(p.Finalizers, ",") + " are still set"
	}
	if p.Spec.NodeName != "" {
		n, err := getAs[*corev1.Node](ctx, pc.e, "Node", p.Spec.NodeName)
		if err == nil {
			h := tools.NodeHealth(n)
			if h.Ready != "True" {
				why = fmt.Sprintf(" its node %s is not Ready (%s), so the kubelet cannot confirm the containers stopped", n.Name, h.ReadyReason)
				culprit = pc.e.ref("Node", n.Name)
				follow = []ObjectRef{culprit}
			}
		} else if tools.IsNotFound(err) {
			why = fmt.Sprintf(" its node %s no longer exists", p.Spec.NodeName)
		}
	}
	if why == "" {
		why = " nothing obvious holds it (check the kubelet on " + p.Spec.NodeName + ")"
	}
	pc.e.find(Finding{Rule: "pod-stuck-terminating", Object: pc.ref, Culprit: culprit, Follow: follow, Evidence: []string{pc.statusEv},
		Summary: fmt.Sprintf("Pod %s has been terminating for %s:%s.", p.Name, age.Round(time.Second), why), Facts: facts})
	return nil
}

func (pc *podCheck) evicted(ctx context.Context) {
	msg := pc.pod.Status.Message
	var follow []ObjectRef
	if pc.pod.Spec.NodeName != "" && strings.Contains(strings.ToLower(msg), "low on resource") {
		follow = []ObjectRef{pc.e.ref("Node", pc.pod.Spec.NodeName)}
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	f := Finding{Rule: "pod-evicted", Object: pc.ref, Culprit: wl, Follow: follow, Evidence: []string{pc.statusEv},
		Summary: fmt.Sprintf("Pod %s was Evicted from node %s: %s", pc.pod.Name, pc.pod.Spec.NodeName, tools.Sanitize(msg, 300, true)),
		Facts:   pc.facts(ctx, "", map[string]string{"message": msg, "node": pc.pod.Spec.NodeName})}
	if wl.Key() != pc.ref.Key() {
		f.Affected = []ObjectRef{pc.ref}
	}
	pc.e.find(f)
}

// node blames the node when the pod is not ready and its node is unhealthy.
func (pc *podCheck) node(ctx context.Context) error {
	p := pc.pod
	if p.Spec.NodeName == "" || (isReady(p) && p.Status.Phase != corev1.PodUnknown) {
		return nil
	}
	n, err := getAs[*corev1.Node](ctx, pc.e, "Node", p.Spec.NodeName)
	if err != nil {
		if tools.IsNotFound(err) {
			pc.find(ctx, "pod-on-unhealthy-node", "", fmt.Sprintf("Pod %s is bound to node %s, which no longer exists.", p.Name, p.Spec.NodeName), pc.e.ref("Node", p.Spec.NodeName), nil, map[string]string{"node": p.Spec.NodeName})
			return nil
		}
		return err
	}
	h := tools.NodeHealth(n)
	if h.Ready == "True" && len(h.Pressure) == 0 {
		return nil
	}
	nref := pc.e.ref("Node", n.Name)
	state := "Ready=" + h.Ready
	if len(h.Pressure) > 0 {
		state += ", " + strings.Join(h.Pressure, ",")
	}
	said := "is not ready"
	if p.DeletionTimestamp != nil {
		// Deleted but never confirmed gone: the node's kubelet cannot report the containers
		// stopped, so the pod stays Terminating (and a StatefulSet cannot replace it).
		said = fmt.Sprintf("is stuck Terminating (deleted %s ago)", pc.e.now.Sub(p.DeletionTimestamp.Time).Round(time.Second))
	}
	f := Finding{Rule: "pod-on-unhealthy-node", Object: pc.ref, Culprit: nref, Follow: []ObjectRef{nref}, Affected: []ObjectRef{pc.ref},
		Summary:  fmt.Sprintf("Pod %s %s and its node %s is unhealthy (%s).", p.Name, said, n.Name, state),
		Evidence: []string{pc.statusEv}, Facts: pc.facts(ctx, "", map[string]string{"node": n.Name})}
	pc.e.find(f)
	return nil
}

func requestsString(l corev1.ResourceList) string {
	var parts []string
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := l[n]; ok {
			parts = append(parts, string(n)+"="+q.String())
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}
