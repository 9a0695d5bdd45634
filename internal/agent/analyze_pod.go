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
	"sort"
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
		return e.checkNetworkPolicies(ctx, []*corev1.Pod{pod}, e.ref("Pod", pod.Name))
	}
	return nil
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
	return !isReady(p) || restartedRecently(p, now)
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
	if culprit.IsZero() {
		culprit = pc.e.workloadOf(ctx, pc.pod)
	}
	f := Finding{Rule: rule, Object: pc.ref, Culprit: culprit, Summary: summary,
		Evidence: append([]string{pc.statusEv}, ev...), Facts: pc.facts(ctx, container, facts)}
	if culprit.Key() != pc.ref.Key() {
		f.Affected = []ObjectRef{pc.ref}
	}
	pc.e.find(f)
}

// checkPod applies the pod and container rules to one pod and reports whether one matched.
func (e *env) checkPod(ctx context.Context, pod *corev1.Pod) (bool, error) {
	pc := &podCheck{e: e, pod: pod, ref: e.ref("Pod", pod.Name)}
	e.examine(pc.ref)
	pc.statusEv = e.objEvidence(pc.ref, "Pod "+pod.Name+": "+tools.Summarize(pod, e.now).Status)
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
	return len(e.res.Findings) > n, nil
}

func (pc *podCheck) terminating(ctx context.Context) error {
	p := pc.pod
	if p.DeletionTimestamp == nil {
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
		Summary: fmt.Sprintf("Pod %s was evicted from node %s: %s", pc.pod.Name, pc.pod.Spec.NodeName, tools.Sanitize(msg, 300, true)),
		Facts:   pc.facts(ctx, "", map[string]string{"message": msg, "node": pc.pod.Spec.NodeName})}
	if wl.Key() != pc.ref.Key() {
		f.Affected = []ObjectRef{pc.ref}
	}
	pc.e.find(f)
}

// scheduling handles pods the scheduler has not placed; done means no further checks apply.
func (pc *podCheck) scheduling(ctx context.Context) (bool, error) {
	p := pc.pod
	cond := tools.PodCondition(p, corev1.PodScheduled)
	unscheduled := p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending
	if cond != nil && cond.Status == corev1.ConditionFalse {
		unscheduled = true
	}
	if !unscheduled {
		return false, nil
	}
	msg := ""
	if cond != nil {
		msg = cond.Message
	}
	var evIDs []string
	if g := tools.EventsMention(pc.events(ctx), "FailedScheduling"); g != nil {
		evIDs = append(evIDs, pc.e.eventEvidence(pc.ref, *g))
		if msg == "" || len(g.Message) > len(msg) {
			msg = g.Message
		}
	}
	if msg == "" {
		if pc.e.now.Sub(p.CreationTimestamp.Time) < time.Minute {
			pc.e.evidence("Pod "+p.Name+" was created less than a minute ago and is not scheduled yet", Source{Kind: SourceObject, Object: &pc.ref}, "")
			return true, nil
		}
		pc.find(ctx, "unschedulable", "", fmt.Sprintf("Pod %s has been Pending without a node and without any scheduler decision; check that scheduler %q is running.", p.Name, orDefault(p.Spec.SchedulerName, "default-scheduler")),
			ObjectRef{}, evIDs, map[string]string{"message": "no FailedScheduling event or condition"})
		return true, nil
	}
	v, fit := pc.e.refineScheduling(ctx, p, ParseScheduling(msg))
	wl := pc.e.workloadOf(ctx, p)
	short := tools.Sanitize(msg, 400, true)
	switch v.Reason {
	case SchedMissingPVC:
		claim := pc.e.ref("PersistentVolumeClaim", v.Claim)
		pc.find(ctx, "pvc-missing", "", fmt.Sprintf("Pod %s mounts PersistentVolumeClaim %s, which does not exist, so it cannot be scheduled.", p.Name, v.Claim),
			claim, evIDs, map[string]string{"claim": v.Claim})
	case SchedUnboundPVC:
		if !pc.claims(ctx, evIDs) {
			pc.find(ctx, "unschedulable", "", fmt.Sprintf("Pod %s cannot be scheduled: %s", p.Name, short), ObjectRef{}, evIDs, map[string]string{"message": short})
		}
	case SchedInsufficient:
		req := tools.PodRequests(&p.Spec)
		pc.find(ctx, "unschedulable-insufficient-resources", "", fmt.Sprintf("Pod %s cannot be scheduled: no node has enough free %s for its requests (%s). Scheduler: %s",
			p.Name, strings.Join(v.Resources, "/"), requestsString(req), short), wl, evIDs,
			map[string]string{"requests": requestsString(req), "resources": strings.Join(v.Resources, ","), "message": short})
	case SchedTaint:
		taint := ""
		for _, t := range v.Taints {
			if taint == "" || (!strings.Contains(t, "control-plane") && strings.Contains(taint, "control-plane")) {
				taint = t
			}
		}
		key := taint
		if i := strings.IndexAny(key, ":="); i > 0 {
			key = key[:i]
		}
		pc.find(ctx, "unschedulable-taint", "", fmt.Sprintf("Pod %s cannot be scheduled: the nodes carry taint {%s} that it does not tolerate.%s Scheduler: %s", p.Name, taint, fit.summary(), short),
			wl, evIDs, map[string]string{"taint": taint, "taintKey": strings.TrimSpace(key), "message": short})
		// Taints the node controller sets for a condition (memory pressure, not ready) are
		// explained by that condition: look at those nodes next.
		if len(fit.conditionNodes) > 0 {
			var follow []ObjectRef
			for i, n := range fit.conditionNodes {
				if i == 3 {
					break
				}
				follow = append(follow, pc.e.ref("Node", n))
			}
			fs := pc.e.res.Findings
			fs[len(fs)-1].Follow = cleanRefs(follow)
		}
	case SchedAffinity:
		sel := "node affinity rules"
		if len(p.Spec.NodeSelector) > 0 {
			sel = "nodeSelector " + tools.LabelsString(p.Spec.NodeSelector)
		}
		pc.find(ctx, "unschedulable-node-affinity", "", fmt.Sprintf("Pod %s cannot be scheduled: no node matches its %s. Scheduler: %s", p.Name, sel, short),
			wl, evIDs, map[string]string{"nodeSelector": sel, "message": short})
	case SchedCordoned:
		pc.find(ctx, "unschedulable-nodes-cordoned", "", fmt.Sprintf("Pod %s cannot be scheduled: the candidate nodes are cordoned.%s Scheduler: %s", p.Name, fit.summary(), short),
			wl, evIDs, map[string]string{"message": short})
	default:
		low := strings.ToLower(msg)
		if (strings.Contains(low, "volume") || strings.Contains(low, "claim")) && pc.claims(ctx, evIDs) {
			return true, nil
		}
		pc.find(ctx, "unschedulable", "", fmt.Sprintf("Pod %s cannot be scheduled: %s", p.Name, short), wl, evIDs, map[string]string{"message": short})
	}
	return true, nil
}

// claims looks at the pod's PVCs and blames the missing or unbound ones.
func (pc *podCheck) claims(ctx context.Context, evIDs []string) bool {
	found := false
	n := 0
	for _, v := range pc.pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		if n++; n > 5 {
			break
		}
		name := v.PersistentVolumeClaim.ClaimName
		claim := pc.e.ref("PersistentVolumeClaim", name)
		pvc, err := getAs[*corev1.PersistentVolumeClaim](ctx, pc.e, "PersistentVolumeClaim", name)
		switch {
		case tools.IsNotFound(err):
			pc.find(ctx, "pvc-missing", "", fmt.Sprintf("Pod %s mounts PersistentVolumeClaim %s, which does not exist.", pc.pod.Name, name), claim, evIDs, map[string]string{"claim": name})
			found = true
		case err != nil:
			continue
		case pvc.Status.Phase != corev1.ClaimBound:
			ev := pc.e.objEvidence(claim, "PersistentVolumeClaim "+name+": "+tools.Summarize(pvc, pc.e.now).Status)
			f := Finding{Rule: "pod-pvc-pending", Object: pc.ref, Culprit: claim, Follow: []ObjectRef{claim},
				Summary:  fmt.Sprintf("Pod %s is Pending because its PersistentVolumeClaim %s is %s.", pc.pod.Name, name, pvc.Status.Phase),
				Evidence: append([]string{pc.statusEv, ev}, evIDs...), Facts: pc.facts(ctx, "", map[string]string{"claim": name}), Affected: []ObjectRef{pc.ref}}
			pc.e.find(f)
			found = true
		}
	}
	return found
}

func (pc *podCheck) containers(ctx context.Context) error {
	p := pc.pod
	specs := map[string]corev1.Container{}
	for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		specs[c.Name] = c
	}
	statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, cs := range statuses {
		n := len(pc.e.res.Findings)
		if err := pc.container(ctx, cs, specs[cs.Name]); err != nil {
			return err
		}
		if len(pc.e.res.Findings) > n {
			// One root cause per pod is enough; the first broken container (init first) blocks the rest.
			return nil
		}
	}
	if len(statuses) == 0 && p.Status.Phase == corev1.PodPending && p.Spec.NodeName != "" {
		return pc.mounts(ctx, "")
	}
	return nil
}

func (pc *podCheck) container(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container) error {
	p := pc.pod
	last := cs.LastTerminationState.Terminated
	switch {
	case cs.State.Waiting != nil:
		w := cs.State.Waiting
		switch w.Reason {
		case "CrashLoopBackOff":
			if last != nil && last.Reason == "OOMKilled" {
				pc.oom(ctx, cs, spec)
				return nil
			}
			if pc.probeFailure(ctx, cs, spec, true) {
				return nil
			}
			pc.crash(ctx, cs, "crash-loop", 0)
		case "ImagePullBackOff", "ErrImagePull", "ErrImageNeverPull", "RegistryUnavailable", "ImageInspectError", "SignatureValidationFailed":
			pc.imagePull(ctx, cs, spec)
		case "InvalidImageName":
			pc.find(ctx, "invalid-image-name", cs.Name, fmt.Sprintf("Container %s of pod %s has an invalid image reference %q: %s", cs.Name, p.Name, spec.Image, tools.Sanitize(w.Message, 200, true)),
				ObjectRef{}, nil, map[string]string{"image": spec.Image})
		case "CreateContainerConfigError":
			return pc.configError(ctx, cs.Name, w.Message)
		case "CreateContainerError", "RunContainerError", "PreCreateHookError", "PostStartHookError", "PreStartHookError":
			pc.find(ctx, "create-container-error", cs.Name, fmt.Sprintf("Container %s of pod %s cannot start (%s): %s", cs.Name, p.Name, w.Reason, tools.Sanitize(w.Message, 300, true)),
				ObjectRef{}, nil, map[string]string{"message": tools.Sanitize(w.Message, 200, true)})
		case "ContainerCreating", "PodInitializing", "":
			if last != nil && last.Reason == "OOMKilled" {
				pc.oom(ctx, cs, spec)
				return nil
			}
			// mounts only reports FailedMount/sandbox events or references that are really missing.
			return pc.mounts(ctx, cs.Name)
		default:
			pc.find(ctx, "create-container-error", cs.Name, fmt.Sprintf("Container %s of pod %s is waiting: %s %s", cs.Name, p.Name, w.Reason, tools.Sanitize(w.Message, 300, true)),
				ObjectRef{}, nil, map[string]string{"message": w.Reason + " " + tools.Sanitize(w.Message, 200, true)})
		}
	case cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0:
		t := cs.State.Terminated
		if t.Reason == "OOMKilled" {
			pc.oom(ctx, cs, spec)
			return nil
		}
		if t.Reason == "ContainerCannotRun" || t.Reason == "StartError" {
			pc.find(ctx, "create-container-error", cs.Name, fmt.Sprintf("Container %s of pod %s could not run: %s", cs.Name, p.Name, tools.Sanitize(t.Message, 300, true)),
				ObjectRef{}, nil, map[string]string{"message": tools.Sanitize(t.Message, 200, true), "exitCode": fmt.Sprint(t.ExitCode)})
			return nil
		}
		if p.Status.Phase == corev1.PodFailed || p.Spec.RestartPolicy == corev1.RestartPolicyNever {
			pc.crash(ctx, cs, "container-failed", 0)
			return nil
		}
		pc.crash(ctx, cs, "crash-loop", 70)
	case cs.State.Running != nil:
		if last != nil && last.Reason == "OOMKilled" && cs.RestartCount > 0 {
			pc.oom(ctx, cs, spec)
			return nil
		}
		if !cs.Ready {
			if pc.probeFailure(ctx, cs, spec, false) {
				return nil
			}
			started := cs.State.Running.StartedAt.Time
			if spec.ReadinessProbe != nil && pc.e.now.Sub(started) > 2*time.Minute {
				pc.find(ctx, "container-not-ready", cs.Name, fmt.Sprintf("Container %s of pod %s has been running for %s but is not ready (readiness %s).", cs.Name, p.Name, pc.e.now.Sub(started).Round(time.Second), tools.ProbeLine(spec.ReadinessProbe)),
					ObjectRef{}, nil, map[string]string{"probe": tools.ProbeLine(spec.ReadinessProbe)})
			}
			return nil
		}
		if cs.RestartCount > 0 && last != nil && last.ExitCode != 0 && pc.e.now.Sub(last.FinishedAt.Time) < time.Hour {
			if pc.probeFailure(ctx, cs, spec, true) {
				return nil
			}
			if cs.RestartCount >= 3 {
				pc.crash(ctx, cs, "crash-loop", 65)
			}
		}
	}
	return nil
}

func (pc *podCheck) oom(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container) {
	limit := "none"
	if q, ok := spec.Resources.Limits[corev1.ResourceMemory]; ok {
		limit = q.String()
	}
	pc.find(ctx, "oom-killed", cs.Name, fmt.Sprintf("Container %s of pod %s was OOMKilled (exit code 137): it used more than its memory limit of %s; restarted %d time(s).", cs.Name, pc.pod.Name, limit, cs.RestartCount),
		ObjectRef{}, nil, map[string]string{"memoryLimit": limit, "exitCode": "137", "restarts": fmt.Sprint(cs.RestartCount)})
}

// crash reports a crashing or failed container with its exit code and log tail.
func (pc *podCheck) crash(ctx context.Context, cs corev1.ContainerStatus, rule string, conf int) {
	t := cs.LastTerminationState.Terminated
	previous := true
	if cs.State.Terminated != nil {
		t, previous = cs.State.Terminated, false
	}
	exit, reason := int32(-1), "unknown"
	if t != nil {
		exit, reason = t.ExitCode, t.Reason
	}
	lr := pc.e.logs(ctx, pc.pod.Name, cs.Name, previous)
	if previous && len(lr.Lines) == 0 && cs.State.Running != nil {
		// Some runtimes keep no previous log; the restarted instance may still tell the story.
		lr = pc.e.logs(ctx, pc.pod.Name, cs.Name, false)
	}
	var evIDs []string
	tail := lastLines(lr.Lines, 5)
	logSummary := "no log output available"
	if len(lr.Lines) > 0 {
		logSummary = "last log line: " + lr.Lines[len(lr.Lines)-1]
		evIDs = append(evIDs, pc.e.evidence(fmt.Sprintf("Log tail of %s/%s: %s", pc.pod.Name, cs.Name, lr.Lines[len(lr.Lines)-1]),
			Source{Kind: SourceLog, Object: &pc.ref, Tool: "k8s_logs"}, strings.Join(lastLines(lr.Lines, 20), "\n")))
	} else if lr.Note != "" {
		logSummary = lr.Note
	}
	if g := tools.EventsMention(pc.events(ctx), "BackOff"); g != nil {
		evIDs = append(evIDs, pc.e.eventEvidence(pc.ref, *g))
	}
	var summary string
	if exit == 0 && rule == "crash-loop" {
		summary = fmt.Sprintf("Container %s of pod %s keeps exiting with code 0 (%s) and is restarted because restartPolicy is Always: the process finishes instead of staying up (restarted %d time(s)); %s.", cs.Name, pc.pod.Name, reason, cs.RestartCount, logSummary)
	} else if rule == "container-failed" {
		summary = fmt.Sprintf("Container %s of pod %s exited with code %d (%s: %s); %s.", cs.Name, pc.pod.Name, exit, reason, ExitMeaning(exit), logSummary)
	} else {
		summary = fmt.Sprintf("Container %s of pod %s is crash-looping: restarted %d time(s), last exit code %d (%s: %s); %s.", cs.Name, pc.pod.Name, cs.RestartCount, exit, reason, ExitMeaning(exit), logSummary)
	}
	facts := map[string]string{"exitCode": fmt.Sprint(exit), "exitMeaning": ExitMeaning(exit), "restarts": fmt.Sprint(cs.RestartCount), "logTail": strings.Join(tail, " | ")}
	wl := pc.e.workloadOf(ctx, pc.pod)
	f := Finding{Rule: rule, Confidence: conf, Object: pc.ref, Culprit: wl, Summary: summary, Evidence: append([]string{pc.statusEv}, evIDs...), Facts: pc.facts(ctx, cs.Name, facts)}
	if wl.Key() != pc.ref.Key() {
		f.Affected = []ObjectRef{pc.ref}
	}
	pc.e.find(f)
}

func lastLines(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return l[len(l)-n:]
}

// probeFailure reports failing liveness/startup (restarting) or readiness probes from Unhealthy events.
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
		summary := fmt.Sprintf("%s probe (%s) of container %s in pod %s fails (x%d): %s", kind, pl, cs.Name, pc.pod.Name, g.Count, g.Message)
		if rule == "liveness-probe-failing" {
			summary += fmt.Sprintf("; the kubelet restarted it %d time(s).", cs.RestartCount)
		} else {
			summary += "; the pod gets no Service traffic."
		}
		pc.find(ctx, rule, cs.Name, summary, ObjectRef{}, []string{ev}, map[string]string{"probe": pl})
		return true
	}
	return false
}

func (pc *podCheck) imagePull(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container) {
	p := pc.pod
	msg := cs.State.Waiting.Message
	var evIDs []string
	for _, g := range pc.events(ctx) {
		if g.Reason == "Failed" && (strings.Contains(g.Message, "pull") || strings.Contains(g.Message, "image")) {
			evIDs = append(evIDs, pc.e.eventEvidence(pc.ref, g))
			if ClassifyPull(g.Message) != PullUnknown && ClassifyPull(msg) == PullUnknown {
				msg = g.Message
			}
			break
		}
	}
	// A referenced pull secret that does not exist settles "not found vs. auth".
	var missingSecret string
	for _, s := range p.Spec.ImagePullSecrets {
		if _, err := pc.e.get(ctx, "Secret", s.Name); tools.IsNotFound(err) {
			missingSecret = s.Name
			break
		}
	}
	if g := tools.EventsMention(pc.events(ctx), "FailedToRetrieveImagePullSecret"); g != nil {
		evIDs = append(evIDs, pc.e.eventEvidence(pc.ref, *g))
	}
	facts := map[string]string{"image": spec.Image, "message": tools.Sanitize(msg, 200, true)}
	short := tools.Sanitize(msg, 300, true)
	class := ClassifyPull(msg)
	switch {
	case missingSecret != "":
		facts["pullSecret"] = missingSecret
		pc.find(ctx, "image-pull-auth", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s: its imagePullSecret %s does not exist, so the registry gets no credentials (%s).", p.Name, spec.Image, missingSecret, cs.State.Waiting.Reason),
			pc.e.ref("Secret", missingSecret), evIDs, facts)
	case class == PullAuth:
		facts["pullSecret"] = firstPullSecret(p)
		pc.find(ctx, "image-pull-auth", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s: the registry refused the credentials: %s", p.Name, spec.Image, short), ObjectRef{}, evIDs, facts)
	case class == PullNotFound:
		pc.find(ctx, "image-pull-not-found", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s: the image or tag does not exist: %s", p.Name, spec.Image, short), ObjectRef{}, evIDs, facts)
	case class == PullAmbiguous && len(p.Spec.ImagePullSecrets) == 0:
		pc.find(ctx, "image-pull-not-found", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s: the registry says the repository does not exist or needs credentials, and the pod has no imagePullSecrets: %s", p.Name, spec.Image, short), ObjectRef{}, evIDs, facts)
	case class == PullAmbiguous:
		facts["pullSecret"] = firstPullSecret(p)
		pc.find(ctx, "image-pull-auth", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s: access denied with pull secret %s: %s", p.Name, spec.Image, facts["pullSecret"], short), ObjectRef{}, evIDs, facts)
	default:
		pc.find(ctx, "image-pull-error", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s (%s): %s", p.Name, spec.Image, cs.State.Waiting.Reason, orDefault(short, "no further detail from the kubelet")), ObjectRef{}, evIDs, facts)
	}
}

func firstPullSecret(p *corev1.Pod) string {
	if len(p.Spec.ImagePullSecrets) > 0 {
		return p.Spec.ImagePullSecrets[0].Name
	}
	return "regcred"
}

// configError resolves CreateContainerConfigError / FailedMount config problems against the API.
func (pc *podCheck) configError(ctx context.Context, container, msg string) error {
	refs, err := pc.e.resolveConfig(ctx, &pc.pod.Spec)
	if err != nil {
		return err
	}
	var evIDs []string
	if msg != "" {
		evIDs = append(evIDs, pc.e.evidence(fmt.Sprintf("Container %s of pod %s: %s", container, pc.pod.Name, msg), Source{Kind: SourceObject, Object: &pc.ref}, ""))
	}
	parsed, hasParsed := ParseConfigError(msg)
	for _, r := range refs {
		if r.Optional || !r.Checked {
			continue
		}
		if hasParsed && (r.Kind != parsed.Kind || r.Name != parsed.Name) {
			continue
		}
		if !r.Exists || len(r.MissingKeys) > 0 {
			pc.configFinding(ctx, container, r, evIDs)
			return nil
		}
	}
	if hasParsed {
		// The kubelet named it but the reference check could not confirm (cap reached): trust the kubelet.
		r := tools.ConfigRef{Kind: parsed.Kind, Name: parsed.Name, Checked: true, Exists: parsed.Key != ""}
		if parsed.Key != "" {
			r.MissingKeys = []string{parsed.Key}
		}
		pc.configFinding(ctx, container, r, evIDs)
		return nil
	}
	for _, r := range refs {
		if !r.Optional && r.Checked && (!r.Exists || len(r.MissingKeys) > 0) {
			pc.configFinding(ctx, container, r, evIDs)
			return nil
		}
	}
	if msg != "" {
		pc.find(ctx, "create-container-error", container, fmt.Sprintf("Container %s of pod %s has a configuration error: %s", container, pc.pod.Name, tools.Sanitize(msg, 300, true)),
			ObjectRef{}, evIDs, map[string]string{"message": tools.Sanitize(msg, 200, true)})
	}
	return nil
}

func (e *env) resolveConfig(ctx context.Context, spec *corev1.PodSpec) ([]tools.ConfigRef, error) {
	refs := tools.PodConfigRefs(spec)
	out := make([]tools.ConfigRef, 0, len(refs))
	for i, r := range refs {
		if i >= 15 {
			break
		}
		obj, err := e.get(ctx, r.Kind, r.Name)
		r.Checked = true
		switch {
		case tools.IsNotFound(err):
		case err != nil:
			if err == errTaskBudget {
				return out, nil
			}
			r.Checked = false
		default:
			var have []string
			switch o := obj.(type) {
			case *corev1.ConfigMap:
				for k := range o.Data {
					have = append(have, k)
				}
				for k := range o.BinaryData {
					have = append(have, k)
				}
			case *corev1.Secret:
				have = tools.SecretKeys(o)
			}
			sort.Strings(have)
			r.Exists, r.KeysPresent = true, have
			for _, k := range r.Keys {
				if !containsStr(have, k) {
					r.MissingKeys = append(r.MissingKeys, k)
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func (pc *podCheck) configFinding(ctx context.Context, container string, r tools.ConfigRef, evIDs []string) {
	culprit := pc.e.ref(r.Kind, r.Name)
	wl := pc.e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"keys": orDefault(strings.Join(r.Keys, ","), "all keys"), "usedBy": strings.Join(r.UsedBy, "; ")}
	var rule, summary string
	if !r.Exists {
		rule = strings.ToLower(r.Kind) + "-missing"
		summary = fmt.Sprintf("%s %s does not exist, but pod %s (%s) needs it for %s; the container cannot be created.", r.Kind, r.Name, pc.pod.Name, kubectlResource(wl), orDefault(strings.Join(r.UsedBy, "; "), "its configuration"))
	} else {
		rule = strings.ToLower(r.Kind) + "-key-missing"
		facts["missingKeys"] = strings.Join(r.MissingKeys, ",")
		facts["firstMissingKey"] = r.MissingKeys[0]
		summary = fmt.Sprintf("%s %s exists but has no key %s, which pod %s (%s) references (%s); present keys: %s.", r.Kind, r.Name, strings.Join(r.MissingKeys, ","), pc.pod.Name, kubectlResource(wl), strings.Join(r.UsedBy, "; "), orDefault(strings.Join(r.KeysPresent, ","), "none"))
	}
	ev := pc.e.objEvidence(culprit, summary)
	f := Finding{Rule: rule, Object: pc.ref, Culprit: culprit, Summary: summary, Evidence: append(append([]string{pc.statusEv}, evIDs...), ev),
		Facts: pc.facts(ctx, container, facts), Affected: mergeRefs([]ObjectRef{pc.ref}, []ObjectRef{wl})}
	pc.e.find(f)
}

// mounts explains a pod stuck creating containers from FailedMount / sandbox events.
func (pc *podCheck) mounts(ctx context.Context, container string) error {
	for _, g := range pc.events(ctx) {
		switch g.Reason {
		case "FailedMount", "FailedAttachVolume":
			if _, ok := ParseConfigError(g.Message); ok {
				return pc.configError(ctx, container, g.Message)
			}
			ev := pc.e.eventEvidence(pc.ref, g)
			pc.find(ctx, "volume-mount-failed", container, fmt.Sprintf("Pod %s is stuck creating containers: %s (x%d): %s", pc.pod.Name, g.Reason, g.Count, g.Message),
				ObjectRef{}, []string{ev}, map[string]string{"message": tools.Sanitize(g.Message, 200, true)})
			return nil
		case "FailedCreatePodSandBox":
			ev := pc.e.eventEvidence(pc.ref, g)
			pc.find(ctx, "create-container-error", container, fmt.Sprintf("Pod %s cannot get a sandbox (network/runtime) on node %s: %s", pc.pod.Name, pc.pod.Spec.NodeName, g.Message),
				ObjectRef{}, []string{ev}, map[string]string{"message": tools.Sanitize(g.Message, 200, true)})
			return nil
		}
	}
	// No event: the references themselves may still be missing (events expire).
	refs, err := pc.e.resolveConfig(ctx, &pc.pod.Spec)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if !r.Optional && r.Checked && !r.Exists {
			pc.configFinding(ctx, container, r, nil)
			return nil
		}
	}
	return nil
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
	f := Finding{Rule: "pod-on-unhealthy-node", Object: pc.ref, Culprit: nref, Follow: []ObjectRef{nref}, Affected: []ObjectRef{pc.ref},
		Summary:  fmt.Sprintf("Pod %s is not ready and its node %s is unhealthy (%s).", p.Name, n.Name, state),
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
