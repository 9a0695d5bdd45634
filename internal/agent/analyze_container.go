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
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Container states of one pod: crashes, OOM kills, probes, image pulls.
func (pc *podCheck) containers(ctx context.Context) error {
	p := pc.pod
	specs := map[string]corev1.Container{}
	for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		specs[c.Name] = c
	}
	statuses := allStatuses(p)
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
			pc.crash(ctx, cs, spec, "crash-loop", 0)
		case "ImagePullBackOff", "ErrImagePull", "ErrImageNeverPull", "RegistryUnavailable", "ImageInspectError", "SignatureValidationFailed":
			pc.imagePull(ctx, cs, spec)
		case "InvalidImageName":
			pc.find(ctx, "invalid-image-name", cs.Name, fmt.Sprintf("Container %s of pod %s is waiting with InvalidImageName: its image reference %q is not a valid image name: %s", cs.Name, p.Name, spec.Image, tools.Sanitize(w.Message, 200, true)),
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
			pc.crash(ctx, cs, spec, "container-failed", 0)
			return nil
		}
		pc.crash(ctx, cs, spec, "crash-loop", 70)
	case cs.State.Terminated != nil && !isInitContainer(p, cs.Name) && keepsCompleting(p, cs, cs.State.Terminated):
		// Between restarts of a process that finishes instead of staying up.
		pc.crash(ctx, cs, spec, "crash-loop", 65)
	case cs.State.Running != nil && isInitContainer(p, cs.Name) && !isSidecar(spec):
		pc.initBlocked(ctx, cs, spec)
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
				pc.followPeers(ctx, "")
			}
			return nil
		}
		if keepsCompleting(p, cs, last) && pc.e.now.Sub(last.FinishedAt.Time) < time.Hour {
			// Running again after exiting 0 more than once: a run-once process restarted
			// because restartPolicy is Always; between two restarts it looks healthy.
			pc.crash(ctx, cs, spec, "crash-loop", 65)
			return nil
		}
		if cs.RestartCount > 0 && last != nil && last.ExitCode != 0 && pc.e.now.Sub(last.FinishedAt.Time) < time.Hour {
			if pc.probeFailure(ctx, cs, spec, true) {
				return nil
			}
			// Three restarts make a loop; fewer count when the last exit left an error in its
			// termination message or log (the process said why it stopped, seconds ago).
			if cs.RestartCount >= 3 || pc.exitedWithError(ctx, cs, last) {
				pc.crash(ctx, cs, spec, "crash-loop", 65)
			}
		}
	}
	return nil
}

// keepsCompleting reports a container of a restartPolicy Always pod that exited with code 0
// (t) after being restarted at least twice: a process that finishes instead of staying up.
func keepsCompleting(p *corev1.Pod, cs corev1.ContainerStatus, t *corev1.ContainerStateTerminated) bool {
	restartsAlways := p.Spec.RestartPolicy == "" || p.Spec.RestartPolicy == corev1.RestartPolicyAlways
	return restartsAlways && t != nil && t.ExitCode == 0 && cs.RestartCount >= 2
}

func (pc *podCheck) oom(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container) {
	limit, request := "none", "none"
	if q, ok := spec.Resources.Limits[corev1.ResourceMemory]; ok {
		limit = q.String()
	}
	if q, ok := spec.Resources.Requests[corev1.ResourceMemory]; ok {
		request = q.String()
	}
	why := fmt.Sprintf("it used more than its memory limit of %s (request %s)", limit, request)
	if limit == "none" {
		why = fmt.Sprintf("it sets no memory limit (request %s), so the kernel killed it when the node ran short of memory", request)
	}
	ran := ""
	if t := cs.LastTerminationState.Terminated; t != nil && !t.StartedAt.IsZero() && t.FinishedAt.After(t.StartedAt.Time) {
		ran = fmt.Sprintf(" after running %s", t.FinishedAt.Sub(t.StartedAt.Time).Round(time.Second))
	}
	if pc.knownState(ctx, cs, spec, "OOMKilled", fmt.Sprintf("was OOMKilled (exit code 137)%s, restarted %d time(s)", ran, cs.RestartCount)) {
		return
	}
	pc.find(ctx, "oom-killed", cs.Name, fmt.Sprintf("Container %s of pod %s was OOMKilled (exit code 137)%s: %s; restarted %d time(s).%s", cs.Name, pc.pod.Name, ran, why, cs.RestartCount, pc.downwardFallback(ctx, spec)),
		ObjectRef{}, nil, map[string]string{"memoryLimit": limit, "memoryRequest": request, "exitCode": "137", "restarts": fmt.Sprint(cs.RestartCount)})
}

// crash reports a crashing or failed container with its exit code and the line of its log
// (or termination message) that carries the error; when that text names something in the
// cluster, the dependency it points at is followed instead.
func (pc *podCheck) crash(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container, rule string, conf int) {
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
	termMsg := ""
	if t != nil {
		termMsg = t.Message
	}
	clue, logClue, evIDs := pc.textClues(ctx, cs.Name, termMsg, lr)
	if g := tools.EventsMention(pc.events(ctx), "BackOff"); g != nil {
		evIDs = append(evIDs, pc.e.eventEvidence(pc.ref, *g))
	}
	var symptom string
	switch {
	case rule == "container-failed":
		symptom = fmt.Sprintf("failed with exit code %d (%s)", exit, reason)
	case exit == 0:
		symptom = fmt.Sprintf("keeps exiting with code 0 and is restarted (%d time(s))", cs.RestartCount)
	default:
		symptom = fmt.Sprintf("is in CrashLoopBackOff (restarted %d time(s), last exit code %d)", cs.RestartCount, exit)
	}
	if !clue.IsError() {
		// Say so: what follows is read from the objects, not from the application.
		symptom += unreadableLog(lr)
	}
	if pc.followClue(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: clue, symptom: symptom, evIDs: evIDs}) {
		return
	}
	if logClue.IsError() && pc.followClue(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: logClue, symptom: symptom, evIDs: evIDs}) {
		return
	}
	logSummary := "no log output available"
	switch {
	case clue.IsError():
		logSummary = "the error it reports: " + quoteClue(clue)
	case len(lr.Lines) > 0:
		logSummary = "last log line: " + lr.Lines[len(lr.Lines)-1]
	case lr.Note != "":
		logSummary = lr.Note
	}
	if h := commandLineHint(exit, spec); h != "" && !clue.IsError() {
		logSummary += "; " + h
	}
	if h := rootFSHint(spec); h != "" && !clue.IsError() {
		logSummary += "; " + h
	}
	var summary string
	if exit == 0 && rule == "crash-loop" {
		summary = fmt.Sprintf("Container %s of pod %s is in CrashLoopBackOff: it keeps exiting with code 0 (%s) and is restarted because restartPolicy is Always: the process finishes instead of staying up (restarted %d time(s)); %s.", cs.Name, pc.pod.Name, reason, cs.RestartCount, logSummary)
	} else if rule == "container-failed" {
		summary = fmt.Sprintf("Container %s of pod %s exited with code %d (%s: %s); %s.", cs.Name, pc.pod.Name, exit, reason, ExitMeaning(exit), logSummary)
	} else {
		summary = fmt.Sprintf("Container %s of pod %s is in CrashLoopBackOff: restarted %d time(s), last exit code %d (%s: %s); %s.", cs.Name, pc.pod.Name, cs.RestartCount, exit, reason, ExitMeaning(exit), logSummary)
	}
	summary += pc.connectionNote(ctx, spec, clue, summary)
	srcs, where := pc.settingSources(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: clue})
	summary += where
	facts := map[string]string{"exitCode": fmt.Sprint(exit), "exitMeaning": ExitMeaning(exit), "restarts": fmt.Sprint(cs.RestartCount),
		"logTail": strings.Join(lastLines(lr.Lines, 5), " | "), "errorLine": clue.Line}
	wl := pc.e.workloadOf(ctx, pc.pod)
	f := Finding{Rule: rule, Confidence: conf, Object: pc.ref, Culprit: wl, Summary: summary, Evidence: append([]string{pc.statusEv}, evIDs...), Facts: pc.facts(ctx, cs.Name, facts), Sources: srcs}
	if wl.Key() != pc.ref.Key() {
		f.Affected = []ObjectRef{pc.ref}
	}
	pc.e.find(f)
}

// textClue reads what a container said: its termination message and log tail, or, when
// neither has anything, the pod's warning events. It records the text as evidence.
func (pc *podCheck) textClue(ctx context.Context, container, termMsg string, lr tools.LogsResult) (Clue, []string) {
	clue, _, evIDs := pc.textClues(ctx, container, termMsg, lr)
	return clue, evIDs
}

// textClues is textClue that also returns the log's own error line when the termination
// message won: a message that names nothing the cluster knows (a bare panic, or noise such
// as an injected instruction) must not hide a log line that does, so callers follow it next.
func (pc *podCheck) textClues(ctx context.Context, container, termMsg string, lr tools.LogsResult) (Clue, Clue, []string) {
	var evIDs []string
	// A termination message is what the process chose to say about its own end: when it
	// carries an error, it wins over the log tail for what the summary quotes.
	clue := termClue(termMsg)
	logClue := ExtractClues(textLines(lr))
	if pc.lines == nil {
		pc.lines = map[string][]string{}
	}
	pc.lines[container] = textLines(lr)
	logBest := logClue // what the log itself says, for its evidence
	switch {
	case !clue.IsError():
		clue, logClue = logClue, Clue{}
	case !logClue.IsError() || logClue.Line == clue.Line:
		logClue = Clue{}
	}
	if len(lr.Lines) > 0 {
		data := lastLines(lr.Lines, 20)
		if logBest.IsError() && !containsStr(data, logBest.Line) {
			data = append([]string{logBest.Line, "..."}, data...)
		}
		head := lr.Lines[len(lr.Lines)-1]
		if logBest.IsError() {
			head = logBest.Line
		}
		evIDs = append(evIDs, pc.e.evidence(fmt.Sprintf("Log of %s/%s: %s", pc.pod.Name, container, head),
			Source{Kind: SourceLog, Object: &pc.ref, Tool: "k8s_logs"}, strings.Join(data, "\n")))
	}
	if strings.TrimSpace(termMsg) != "" {
		evIDs = append(evIDs, pc.e.evidence(fmt.Sprintf("Termination message of %s/%s: %s", pc.pod.Name, container, termMsg), Source{Kind: SourceObject, Object: &pc.ref}, termMsg))
	}
	if !clue.IsError() {
		// Logs unreachable and no message: the kubelet's warnings may still quote the error.
		var msgs []string
		for _, g := range pc.events(ctx) {
			if g.Type == "Warning" && g.Reason != "BackOff" && g.Reason != "Unhealthy" {
				msgs = append(msgs, g.Message)
			}
		}
		if c := ExtractClues(msgs); c.IsError() {
			clue = c
		}
	}
	return clue, logClue, evIDs
}

// unreadableLog says that a container's log could not be read, and why ("" when it could):
// a conclusion drawn without it is read from the objects, and the reader should know.
func unreadableLog(lr tools.LogsResult) string {
	why, ok := strings.CutPrefix(lr.Note, "logs unavailable: ")
	if !ok || len(lr.Lines) > 0 {
		return ""
	}
	return fmt.Sprintf(", and its log cannot be read (%s)", clipString(why, 100))
}

func lastLines(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return l[len(l)-n:]
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
	// The image is named once already: its quoted repetitions in the runtime's message would
	// push the registry's own words ("token has expired") out of the clipped quote.
	short := tools.Sanitize(strings.ReplaceAll(msg, " "+strconv.Quote(spec.Image), ""), 300, true)
	class := ClassifyPull(msg)
	wrongType, secretType := pc.untypedPullSecret(ctx)
	switch {
	case missingSecret == "" && wrongType != "" && class != PullNotFound && !pullRateLimited(msg):
		facts["pullSecret"] = wrongType
		pc.find(ctx, "image-pull-auth", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s (%s): its imagePullSecrets name Secret %s, which is of type %s; the kubelet reads only Secrets of type kubernetes.io/dockerconfigjson (or the legacy kubernetes.io/dockercfg), so the registry gets no credentials. Recreate it with kubectl create secret docker-registry (type kubernetes.io/dockerconfigjson, key .dockerconfigjson): %s",
			p.Name, spec.Image, cs.State.Waiting.Reason, wrongType, secretType, short), pc.e.ref("Secret", wrongType), evIDs, facts)
	case missingSecret != "":
		facts["pullSecret"] = missingSecret
		from, sa := pc.pullSecretSource(ctx, missingSecret)
		pc.find(ctx, "image-pull-auth", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s (%s): its imagePullSecrets%s name Secret %s, which does not exist, so the registry gets no credentials.", p.Name, spec.Image, cs.State.Waiting.Reason, from, missingSecret),
			pc.e.ref("Secret", missingSecret), evIDs, facts)
		if !sa.IsZero() {
			last := &pc.e.res.Findings[len(pc.e.res.Findings)-1]
			last.Affected = mergeRefs(last.Affected, []ObjectRef{sa})
		}
	case pullRateLimited(msg):
		pc.find(ctx, "image-pull-error", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s (%s): the registry rate-limits its pulls (HTTP 429, toomanyrequests: the pull rate limit of anonymous or free accounts is reached). Pull with credentials (imagePullSecrets of an account with a higher limit) or from a mirror or cache of the image: %s",
			p.Name, spec.Image, cs.State.Waiting.Reason, short), ObjectRef{}, evIDs, facts)
	case class == PullAuth:
		facts["pullSecret"] = firstPullSecret(p)
		summary := fmt.Sprintf("Pod %s cannot pull image %s (%s): the registry refused the credentials (imagePullSecrets %s): %s", p.Name, spec.Image, cs.State.Waiting.Reason, orDefault(facts["pullSecret"], "none"), short)
		// Credentials that a Job keeps refreshing are as good as its last run.
		if ps := facts["pullSecret"]; ps != "" {
			if writer, job, detail, ok := pc.e.secretWriter(ctx, ps); ok {
				owned := strings.Replace(summary, "Pod "+p.Name, "P"+pc.owned(pc.e.workloadOf(ctx, p))[1:], 1)
				pc.find(ctx, "image-pull-auth", cs.Name, strings.TrimRight(owned, ". ")+". "+detail+".", writer, evIDs, facts)
				last := &pc.e.res.Findings[len(pc.e.res.Findings)-1]
				last.Affected = mergeRefs(last.Affected, []ObjectRef{pc.e.ref("Secret", ps), job})
				return
			}
		}
		pc.authRefused(ctx, cs, fmt.Sprintf("Pod %s cannot pull image %s (%s): the registry refused the credentials (imagePullSecrets %s)", p.Name, spec.Image, cs.State.Waiting.Reason, orDefault(facts["pullSecret"], "none")), short, evIDs, facts)
	case class == PullNotFound:
		pc.find(ctx, "image-pull-not-found", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s (%s): the image or tag does not exist: %s", p.Name, spec.Image, cs.State.Waiting.Reason, short), ObjectRef{}, evIDs, facts)
	case class == PullAmbiguous && len(p.Spec.ImagePullSecrets) == 0:
		pc.find(ctx, "image-pull-not-found", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s (%s): the registry says the repository does not exist or needs credentials, and the pod has no imagePullSecrets: %s", p.Name, spec.Image, cs.State.Waiting.Reason, short), ObjectRef{}, evIDs, facts)
	case class == PullAmbiguous:
		facts["pullSecret"] = firstPullSecret(p)
		pc.authRefused(ctx, cs, fmt.Sprintf("Pod %s cannot pull image %s (%s): access denied with imagePullSecrets %s", p.Name, spec.Image, cs.State.Waiting.Reason, facts["pullSecret"]), short, evIDs, facts)
	default:
		pc.find(ctx, "image-pull-error", cs.Name, fmt.Sprintf("Pod %s cannot pull image %s (%s): %s", p.Name, spec.Image, cs.State.Waiting.Reason, orDefault(short, "no further detail from the kubelet")), ObjectRef{}, evIDs, facts)
	}
}

// authRefused reports a pull the registry refused (head, then the runtime's words), saying
// first when the pod's own pull secrets kept its ServiceAccount's from being added.
func (pc *podCheck) authRefused(ctx context.Context, cs corev1.ContainerStatus, head, said string, evIDs []string, facts map[string]string) {
	note, sa := pc.hiddenPullSecretsNote(ctx)
	summary := head + ": " + said
	if note != "" {
		summary = head + "." + note + " The runtime reports: " + said
	}
	pc.find(ctx, "image-pull-auth", cs.Name, summary, ObjectRef{}, evIDs, facts)
	if !sa.IsZero() {
		last := &pc.e.res.Findings[len(pc.e.res.Findings)-1]
		last.Affected = mergeRefs(last.Affected, []ObjectRef{sa})
	}
	pc.addPullSecrets()
}

// termClue reads a termination message. Written by a process that failed, it is an error
// message even without an error word ("report: template not found").
func termClue(msg string) Clue {
	lines := splitLines(msg, 20)
	c := ExtractClues(lines)
	if c.IsError() {
		return c
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		c = Clue{Line: tools.Sanitize(strings.TrimSpace(l), maxClueLine, true), Class: ErrGeneric, Score: 1, Repeats: 1}
		c.addEntities(clipBytes(l, maxClueLineLen))
		return c
	}
	return Clue{}
}

// pullSecretSource says where a pod's pull secret came from when its workload's template
// does not name it: admission copies the imagePullSecrets of the pod's ServiceAccount into the
// pod, so that ServiceAccount is the object to fix.
func (pc *podCheck) pullSecretSource(ctx context.Context, secret string) (string, ObjectRef) {
	name := orDefault(pc.pod.Spec.ServiceAccountName, "default")
	sa, err := getAs[*corev1.ServiceAccount](ctx, pc.e, "ServiceAccount", name)
	if err != nil {
		return "", ObjectRef{}
	}
	for _, s := range sa.ImagePullSecrets {
		if s.Name == secret {
			return fmt.Sprintf(" (inherited from ServiceAccount %s)", name), pc.e.ref("ServiceAccount", name)
		}
	}
	return "", ObjectRef{}
}

// allStatuses is the pod's init container statuses followed by its container statuses (a new slice).
func allStatuses(p *corev1.Pod) []corev1.ContainerStatus {
	return append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
}

// exitedWithError reports a container whose last exit left an error in its termination
// message, or in the log of the run that exited (the current run's when the previous one
// cannot be read).
func (pc *podCheck) exitedWithError(ctx context.Context, cs corev1.ContainerStatus, last *corev1.ContainerStateTerminated) bool {
	if last.Message != "" && ExtractClues(strings.Split(last.Message, "\n")).IsError() {
		return true
	}
	for _, previous := range []bool{true, false} {
		if lr := pc.e.logs(ctx, pc.pod.Name, cs.Name, previous); len(lr.Lines) > 0 {
			return ExtractClues(textLines(lr)).IsError()
		}
	}
	return false
}

// addPullSecrets names the pod's pull Secrets among the last finding's affected objects: the
// credentials the registry refused are fixed there (their contents are never read).
func (pc *podCheck) addPullSecrets() {
	var refs []ObjectRef
	for i, s := range pc.pod.Spec.ImagePullSecrets {
		if i < 3 && s.Name != "" {
			refs = append(refs, pc.e.ref("Secret", s.Name))
		}
	}
	pc.addAffected(refs)
}

// pullRateLimited reports a registry's rate limit in a pull error (Docker Hub's 429
// toomanyrequests).
func pullRateLimited(msg string) bool {
	low := strings.ToLower(msg)
	return strings.Contains(low, "toomanyrequests") || strings.Contains(low, "429 too many requests") || strings.Contains(low, "pull rate limit")
}
