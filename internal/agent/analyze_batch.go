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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/schedule"
	"github.com/kubage/kubage/internal/tools"
)

func init() {
	analyzers["job"] = analyzeJob
	analyzers["cronjob"] = analyzeCronJob
}

func analyzeJob(ctx context.Context, e *env, ref ObjectRef) error {
	j, err := getAs[*batchv1.Job](ctx, e, "Job", ref.Name)
	if err != nil {
		return e.missingTarget(ref, err)
	}
	jref := e.ref("Job", j.Name)
	wl := jref
	if or := controllerOf(j); or != nil && or.Kind == "CronJob" {
		wl = e.ref("CronJob", or.Name)
	}
	evIDs := []string{e.objEvidence(jref, "Job "+j.Name+": "+tools.Summarize(j, e.now).Status)}
	e.createFailures(ctx, jref, wl, "")
	e.subdomainService(ctx, jref, &j.Spec.Template, evIDs)
	var failed *batchv1.JobCondition
	for i := range j.Status.Conditions {
		c := &j.Status.Conditions[i]
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			failed = c
		}
	}
	pods, err := jobPods(ctx, e, j)
	if err != nil {
		return err
	}
	if failed != nil {
		return jobFailed(ctx, e, j, jref, wl, failed, pods, evIDs)
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		e.find(suspendedJob(ctx, e, j, jref, wl, evIDs))
		return nil
	}
	if j.Spec.Parallelism != nil && *j.Spec.Parallelism == 0 && j.Status.CompletionTime == nil {
		// parallelism 0 is the other way to pause a Job: it stays active and runs nothing.
		e.find(Finding{Rule: "job-parallelism-zero", Object: jref, Culprit: jref, Evidence: evIDs, Facts: map[string]string{},
			Summary: fmt.Sprintf("Job %s has spec.parallelism 0, so it runs no pods and never completes (started %s, %d succeeded of %d).",
				j.Name, ageOrNever(e.now, j.Status.StartTime), j.Status.Succeeded, replicasOf(j.Spec.Completions))})
		return nil
	}
	var unhealthy []*corev1.Pod
	for _, p := range pods {
		if p.Status.Phase == corev1.PodPending || (p.Status.Phase == corev1.PodRunning && !isReady(p) && podSignature(p) != string(corev1.PodRunning)) {
			unhealthy = append(unhealthy, p)
		}
	}
	if len(unhealthy) > 0 {
		var follow []ObjectRef
		for _, p := range representatives(unhealthy, 3) {
			follow = append(follow, e.ref("Pod", p.Name))
		}
		e.find(Finding{Rule: "workload-pods-unhealthy", Object: jref, Culprit: wl, Follow: follow, Affected: follow, Evidence: evIDs,
			Facts: map[string]string{"pod": follow[0].Name}, Summary: fmt.Sprintf("Job %s has %d pod(s) that cannot run.", j.Name, len(unhealthy))})
	}
	return nil
}

func jobPods(ctx context.Context, e *env, j *batchv1.Job) ([]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(j.Spec.Selector)
	if err != nil || j.Spec.Selector == nil || sel.Empty() {
		return nil, nil
	}
	pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: sel.String(), Max: 200})
	if err != nil {
		return nil, err
	}
	out := pods[:0]
	for _, p := range pods {
		if sel.Matches(labels.Set(p.Labels)) && (tools.IsOwnedBy(p, j.UID) || len(p.OwnerReferences) == 0) {
			out = append(out, p)
		}
	}
	return out, nil
}

func jobFailed(ctx context.Context, e *env, j *batchv1.Job, jref, wl ObjectRef, cond *batchv1.JobCondition, pods []*corev1.Pod, evIDs []string) error {
	evIDs = append(evIDs, e.objEvidence(jref, fmt.Sprintf("Job %s condition Failed=True %s: %s", j.Name, cond.Reason, cond.Message)))
	e.noteReason(evIDs[len(evIDs)-1], cond.Reason)
	var failedPods []*corev1.Pod
	for _, p := range pods {
		if p.Status.Phase == corev1.PodFailed {
			failedPods = append(failedPods, p)
		}
	}
	sort.SliceStable(failedPods, func(a, b int) bool {
		return failedPods[a].CreationTimestamp.After(failedPods[b].CreationTimestamp.Time)
	})
	facts := map[string]string{"message": cond.Message, "exitCode": "?", "exitMeaning": "unknown", "pod": "<pod>"}
	if j.Spec.ActiveDeadlineSeconds != nil {
		facts["deadline"] = fmt.Sprintf("%ds", *j.Spec.ActiveDeadlineSeconds)
	}
	detail, where := "", ""
	var followed ObjectRef
	var srcs []ObjectRef
	if len(failedPods) > 0 {
		p := failedPods[0]
		pref := e.ref("Pod", p.Name)
		facts["pod"] = p.Name
		for _, cs := range p.Status.ContainerStatuses {
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 {
				continue
			}
			facts["exitCode"], facts["exitMeaning"], facts["container"] = fmt.Sprint(t.ExitCode), ExitMeaning(t.ExitCode), cs.Name
			detail = fmt.Sprintf("; its last pod %s exited with code %d (%s: %s)", p.Name, t.ExitCode, t.Reason, ExitMeaning(t.ExitCode))
			if t.Reason == "OOMKilled" {
				limit := "none"
				for _, c := range p.Spec.Containers {
					if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && c.Name == cs.Name {
						limit = q.String()
					}
				}
				e.find(Finding{Rule: "oom-killed", Object: pref, Culprit: wl, Affected: []ObjectRef{jref, pref}, Evidence: evIDs,
					Facts:   map[string]string{"container": cs.Name, "memoryLimit": limit, "pod": p.Name, "podSelector": "job-name=" + j.Name, "workload": kubectlResource(wl)},
					Summary: fmt.Sprintf("Job %s failed because container %s was OOMKilled (memory limit %s).", j.Name, cs.Name, limit)})
			}
			// What the failed run said: the error line, and what it names in the cluster (a Job
			// that cannot reach its database fails because of the database).
			pc := &podCheck{e: e, pod: p, ref: pref}
			e.examine(pref)
			pc.statusEv = e.objEvidence(pref, "Pod "+p.Name+": "+tools.Summarize(p, e.now).Status)
			e.notePodReasons(pc.statusEv, p)
			lr := e.logs(ctx, p.Name, cs.Name, false)
			clue, logClue, logEv := pc.textClues(ctx, cs.Name, t.Message, lr)
			evIDs = append(evIDs, logEv...)
			var spec corev1.Container
			for _, c := range p.Spec.Containers {
				if c.Name == cs.Name {
					spec = c
				}
			}
			symptom := fmt.Sprintf("(Job %s) failed with exit code %d", j.Name, t.ExitCode)
			if pc.followClue(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: clue, symptom: symptom, evIDs: logEv}) ||
				logClue.IsError() && pc.followClue(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: logClue, symptom: symptom, evIDs: logEv}) {
				followed = pref
			} else if t.Reason != "OOMKilled" {
				// Nothing named explains the run's failure: its configuration is where to look.
				srcs, where = pc.settingSources(ctx, &depCheck{pc: pc, cs: cs, spec: spec, clue: clue})
			}
			switch {
			case clue.IsError():
				detail += "; its error: " + quoteClue(clue)
				facts["errorLine"] = clue.Line
			case len(lr.Lines) > 0:
				detail += "; last log line: " + lr.Lines[len(lr.Lines)-1]
			}
			break
		}
	}
	rule := "job-failed"
	var summary string
	switch cond.Reason {
	case "BackoffLimitExceeded":
		rule = "job-backoff-limit"
		summary = fmt.Sprintf("Job %s failed with BackoffLimitExceeded: %d pod(s) failed and it reached its backoffLimit of %d%s.", j.Name, j.Status.Failed, replicasOr(j.Spec.BackoffLimit, 6), detail)
	case "DeadlineExceeded":
		rule = "job-deadline-exceeded"
		summary = fmt.Sprintf("Job %s failed with DeadlineExceeded: it ran longer than its activeDeadlineSeconds (%s)%s%s.", j.Name, facts["deadline"], ranFor(j), detail)
	default:
		summary = fmt.Sprintf("Job %s failed (%s): %s%s.", j.Name, cond.Reason, tools.Sanitize(cond.Message, 200, true), detail)
		if m, ok := matchPodFailurePolicy(j, cond, failedPods); ok && (cond.Reason == "PodFailurePolicy" || cond.Reason == "FailedIndexes") {
			rule, summary = "job-pod-failure-policy", podFailurePolicySummary(j, cond, m, detail)
			facts["policyRule"] = fmt.Sprint(m.index)
		}
	}
	summary += where
	affected := []ObjectRef{jref}
	var follow []ObjectRef
	if !followed.IsZero() {
		// The failed pod's finding names the deeper cause and explains this one.
		follow = []ObjectRef{followed}
		affected = append(affected, followed)
	} else if len(failedPods) == 0 {
		if refs, why := jobTemplateBlockers(ctx, e, j); len(refs) > 0 {
			summary = strings.TrimSuffix(summary, ".") + "." + why + "."
			follow = append(follow, refs...)
			affected = append(affected, refs...)
		}
	}
	e.find(Finding{Rule: rule, Object: jref, Culprit: wl, Affected: affected, Follow: follow, Evidence: evIDs, Facts: facts, Summary: summary, Sources: srcs})
	return nil
}

func replicasOr(p *int32, d int32) int32 {
	if p == nil {
		return d
	}
	return *p
}

func analyzeCronJob(ctx context.Context, e *env, ref ObjectRef) error {
	cj, err := getAs[*batchv1.CronJob](ctx, e, "CronJob", ref.Name)
	if err != nil {
		return e.missingTarget(ref, err)
	}
	cref := e.ref("CronJob", cj.Name)
	evIDs := []string{e.objEvidence(cref, "CronJob "+cj.Name+": "+tools.Summarize(cj, e.now).Status)}
	facts := map[string]string{"schedule": cj.Spec.Schedule}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		conf := 0
		if e.hop > 0 {
			conf = 40 // seen during a namespace scan: suspension may be intended
		}
		e.find(Finding{Rule: "cronjob-suspended", Confidence: conf, Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("CronJob %s is suspended (spec.suspend=true), so it creates no Jobs; last run %s.", cj.Name, ageOrNever(e.now, cj.Status.LastScheduleTime))})
		return nil
	}
	tz := ""
	if cj.Spec.TimeZone != nil {
		tz = *cj.Spec.TimeZone
	}
	sched, perr := schedule.Parse(cj.Spec.Schedule, tz)
	evs := e.events(ctx, "CronJob", cj.Name)
	for _, g := range evs {
		if g.Reason == "InvalidSchedule" || g.Reason == "UnparseableSchedule" || g.Reason == "InvalidTimeZone" {
			evIDs = append(evIDs, e.eventEvidence(cref, g))
			if perr == nil {
				perr = fmt.Errorf("%s", g.Message)
			}
		}
	}
	if perr != nil {
		facts["detail"] = perr.Error()
		e.find(Finding{Rule: "cronjob-invalid-schedule", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("CronJob %s never runs: its schedule %q is invalid (%s).", cj.Name, cj.Spec.Schedule, perr)})
		return nil
	}
	e.createFailures(ctx, cref, cref, "")
	jobs, err := cronJobs(ctx, e, cj)
	if err != nil {
		return err
	}
	now := e.now
	interval := sched.Interval(now)
	if cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent && len(cj.Status.Active) > 0 && interval > 0 {
		for _, a := range cj.Status.Active {
			for _, j := range jobs {
				if j.Name == a.Name && j.Status.StartTime != nil && now.Sub(j.Status.StartTime.Time) > interval {
					facts["activeJob"] = j.Name
					jref := e.ref("Job", j.Name)
					e.find(Finding{Rule: "cronjob-concurrency-blocked", Object: cref, Culprit: cref, Affected: []ObjectRef{jref}, Follow: []ObjectRef{jref}, Evidence: evIDs, Facts: facts,
						Summary: fmt.Sprintf("CronJob %s skips its runs: concurrencyPolicy is Forbid and Job %s has been running for %s, longer than the %s schedule interval.", cj.Name, j.Name, now.Sub(j.Status.StartTime.Time).Round(time.Minute), interval)})
					return nil
				}
			}
		}
	}
	if f, ok := replacedRuns(e, cj, cref, jobs, evs, interval, evIDs, facts); ok {
		e.find(f)
		return nil
	}
	// Runs that start suspended never finish: missed schedules follow from that.
	for _, j := range jobs {
		if j.Spec.Suspend != nil && *j.Spec.Suspend && j.Status.CompletionTime == nil {
			e.find(suspendedJob(ctx, e, j, e.ref("Job", j.Name), cref, evIDs))
			return nil
		}
	}
	for _, g := range evs {
		low := strings.ToLower(g.Message)
		if g.Reason == "FailedNeedsStart" || g.Reason == "TooManyMissedTimes" || strings.Contains(low, "missed start time") || strings.Contains(low, "missed scheduled time") {
			evIDs = append(evIDs, e.eventEvidence(cref, g))
			facts["detail"] = g.Message
			e.find(Finding{Rule: "cronjob-missed-schedules", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("CronJob %s is missing its scheduled runs: %s", cj.Name, g.Message)})
			return nil
		}
	}
	// A starting deadline under the controller's 10-second sync can skip every run as missed
	// (the CronJob docs warn of it): a run due well past that and not started is that.
	if sd := cj.Spec.StartingDeadlineSeconds; sd != nil && *sd < 10 {
		if due, ok := sched.Prev(now.Add(-20 * time.Second)); ok && cj.CreationTimestamp.Time.Before(due) && (cj.Status.LastScheduleTime == nil || cj.Status.LastScheduleTime.Time.Before(due)) {
			facts["detail"] = fmt.Sprintf("startingDeadlineSeconds %d", *sd)
			e.find(Finding{Rule: "cronjob-missed-schedules", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("CronJob %s started no Job for the run its schedule %q made due at %s: its startingDeadlineSeconds is %d, shorter than the 10 s the CronJob controller may take to see a run is due, so the run counts as missed and is skipped. Raise startingDeadlineSeconds (to at least the time a late run is still useful) or unset it.",
					cj.Name, cj.Spec.Schedule, due.Format(time.RFC3339), *sd)})
			return nil
		}
	}
	// Judge against the last run that was due at least `slack` ago, so a run that is
	// merely starting is not called missed.
	const slack = 3 * time.Minute
	prev, ok := sched.Prev(now.Add(-slack))
	if ok {
		last := cj.Status.LastScheduleTime
		switch {
		case last == nil && cj.CreationTimestamp.Time.Before(prev.Add(-time.Minute)):
			facts["detail"] = "never scheduled since creation"
			e.find(Finding{Rule: "cronjob-missed-schedules", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("CronJob %s has never started a Job although schedule %q was due at %s.", cj.Name, cj.Spec.Schedule, prev.Format(time.RFC3339))})
			return nil
		case last != nil && last.Time.Before(prev.Add(-time.Minute)):
			facts["detail"] = "last run " + last.Time.Format(time.RFC3339)
			e.find(Finding{Rule: "cronjob-missed-schedules", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
				Summary: fmt.Sprintf("CronJob %s last started a Job at %s but schedule %q was due at %s.", cj.Name, last.Time.Format(time.RFC3339), cj.Spec.Schedule, prev.Format(time.RFC3339))})
			return nil
		}
	}
	if f, ok := hiddenHistory(e, cj, cref, jobs, evIDs, facts); ok {
		e.find(f)
		return nil
	}
	if len(jobs) > 0 {
		newest := jobs[0]
		for _, c := range newest.Status.Conditions {
			if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
				jref := e.ref("Job", newest.Name)
				facts["job"] = newest.Name
				e.find(Finding{Rule: "cronjob-job-failing", Object: cref, Culprit: cref, Follow: []ObjectRef{jref}, Affected: []ObjectRef{jref}, Evidence: evIDs, Facts: facts,
					Summary: fmt.Sprintf("CronJob %s runs, but its latest Job %s failed (%s).", cj.Name, newest.Name, c.Reason)})
				return nil
			}
		}
	}
	return nil
}

func cronJobs(ctx context.Context, e *env, cj *batchv1.CronJob) ([]*batchv1.Job, error) {
	all, _, err := listAs[*batchv1.Job](ctx, e, "Job", tools.ListOptions{Max: 500})
	if err != nil {
		return nil, err
	}
	var out []*batchv1.Job
	for _, j := range all {
		if tools.IsOwnedBy(j, cj.UID) {
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].CreationTimestamp.After(out[b].CreationTimestamp.Time) })
	return out, nil
}

func ageOrNever(now time.Time, t *metav1.Time) string {
	if t == nil {
		return "never"
	}
	return now.Sub(t.Time).Round(time.Minute).String() + " ago"
}

// ranFor says how long a finished Job ran, from its start to its Failed condition.
func ranFor(j *batchv1.Job) string {
	if j.Status.StartTime == nil {
		return ""
	}
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobFailed && !c.LastTransitionTime.IsZero() {
			if d := c.LastTransitionTime.Sub(j.Status.StartTime.Time).Round(time.Second); d > 0 {
				return " after running " + d.String()
			}
		}
	}
	return ""
}

// replacedRuns finds a CronJob whose concurrencyPolicy Replace kills every run: when a run is
// due while the previous Job is still active, the controller deletes that Job ("Deleted job
// X", SuccessfulDelete) and starts a new one, so a run longer than the schedule interval never
// finishes. History cleanup deletes Jobs with the same event, but only finished ones, which a
// success or failure would show: so it counts only with no success since the deletions began
// and the newest Job not failed (a failing run is cronjob-job-failing's).
func replacedRuns(e *env, cj *batchv1.CronJob, cref ObjectRef, jobs []*batchv1.Job, evs []tools.EventGroup, interval time.Duration, evIDs []string, facts map[string]string) (Finding, bool) {
	if cj.Spec.ConcurrencyPolicy != batchv1.ReplaceConcurrent {
		return Finding{}, false
	}
	var deleted []tools.EventGroup
	for _, g := range evs {
		if g.Reason == "SuccessfulDelete" && strings.HasPrefix(g.Message, "Deleted job") {
			deleted = append(deleted, g)
		}
	}
	if len(deleted) == 0 {
		return Finding{}, false
	}
	first, last := deleted[0].FirstSeen, deleted[0]
	for _, g := range deleted {
		if g.FirstSeen.Before(first) {
			first = g.FirstSeen
		}
		if g.LastSeen.After(last.LastSeen) {
			last = g
		}
	}
	if ls := cj.Status.LastSuccessfulTime; ls != nil && !ls.Time.Before(first) {
		return Finding{}, false
	}
	for _, j := range jobs {
		for _, c := range j.Status.Conditions {
			if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && !c.LastTransitionTime.Time.Before(first) {
				return Finding{}, false
			}
		}
	}
	for _, g := range deleted {
		evIDs = append(evIDs, e.eventEvidence(cref, g))
	}
	facts["detail"] = last.Message
	every := ""
	if interval > 0 {
		every = " (every " + interval.String() + ")"
	}
	return Finding{Rule: "cronjob-runs-replaced", Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
		Summary: fmt.Sprintf("CronJob %s never lets a run finish: its concurrencyPolicy is Replace and a run lasts longer than the schedule %q%s, so each time the next run is due the CronJob controller deletes the unfinished Job and starts a new one (%d deletions, last: %s); last successful run %s. Use concurrencyPolicy Forbid or a schedule interval longer than a run.",
			cj.Name, cj.Spec.Schedule, every, len(deleted), last.Message, ageOrNever(e.now, cj.Status.LastSuccessfulTime))}, true
}

// hiddenHistory explains a CronJob that seems never to run: it runs, but a history limit of 0
// deletes each finished Job (with its pods and logs) at once, so nothing is ever listed.
func hiddenHistory(e *env, cj *batchv1.CronJob, cref ObjectRef, jobs []*batchv1.Job, evIDs []string, facts map[string]string) (Finding, bool) {
	// The run in progress, if any, is listed until it finishes: only a finished Job kept would
	// contradict the limit, and it is the finished ones nobody ever sees.
	for _, j := range jobs {
		// A run that finished moments ago is still listed until the controller's next pass
		// deletes it; one kept longer contradicts the limit.
		if j.Status.CompletionTime != nil && e.now.Sub(j.Status.CompletionTime.Time) > time.Minute || j.Status.CompletionTime == nil && j.Status.Active == 0 {
			return Finding{}, false
		}
	}
	if cj.Status.LastScheduleTime == nil {
		return Finding{}, false
	}
	okZero := cj.Spec.SuccessfulJobsHistoryLimit != nil && *cj.Spec.SuccessfulJobsHistoryLimit == 0
	failZero := cj.Spec.FailedJobsHistoryLimit != nil && *cj.Spec.FailedJobsHistoryLimit == 0
	last := cj.Status.LastSuccessfulTime
	var field, outcome string
	switch {
	case okZero && last != nil && !last.Time.Before(cj.Status.LastScheduleTime.Time.Add(-time.Hour)):
		field, outcome = "successfulJobsHistoryLimit", fmt.Sprintf("its runs succeed (last success %s, last run started %s)", ageOrNever(e.now, last), ageOrNever(e.now, cj.Status.LastScheduleTime))
	case failZero && (last == nil || last.Time.Before(cj.Status.LastScheduleTime.Time)):
		field, outcome = "failedJobsHistoryLimit", fmt.Sprintf("its runs start (last %s) but none succeeded since %s", ageOrNever(e.now, cj.Status.LastScheduleTime), ageOrNever(e.now, last))
	default:
		return Finding{}, false
	}
	facts["detail"] = field + " 0"
	facts["field"] = field
	conf := 60
	if e.hop > 0 && field == "successfulJobsHistoryLimit" {
		conf = 35 // seen during a namespace scan: a healthy CronJob that keeps no history, not a failure
	}
	return Finding{Rule: "cronjob-history-hidden", Confidence: conf, Object: cref, Culprit: cref, Evidence: evIDs, Facts: facts,
		Summary: fmt.Sprintf("CronJob %s does run: %s, but its %s is 0, so the controller deletes each finished Job with its pods and logs at once and none is ever listed. Set %s to 1 or more to keep the last runs to inspect.",
			cj.Name, outcome, field, field)}, true
}
