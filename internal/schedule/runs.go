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

package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

const (
	// LabelSchedule names the TroubleshootSchedule a run belongs to, for listing its runs.
	LabelSchedule = "kubage.io/schedule"
	// AnnotationScheduledAt is the scheduled time (RFC 3339) a run stands for.
	AnnotationScheduledAt = "kubage.io/scheduled-at"
)

// RunName is the name of the run for scheduled time t: the same time always gives the
// same name, so a controller that crashes after creating a run never creates a second.
func RunName(schedule string, t time.Time) string {
	return fmt.Sprintf("%s-%d", schedule, t.Unix())
}

// NewRun builds the Troubleshoot of sched's run at t. The caller sets the owner.
func NewRun(sched *kubagev1alpha1.TroubleshootSchedule, t time.Time) *kubagev1alpha1.Troubleshoot {
	tmpl := sched.Spec.TroubleshootTemplate
	labels := make(map[string]string, len(tmpl.Metadata.Labels)+1)
	for k, v := range tmpl.Metadata.Labels {
		labels[k] = v
	}
	labels[LabelSchedule] = sched.Name
	annotations := make(map[string]string, len(tmpl.Metadata.Annotations)+1)
	for k, v := range tmpl.Metadata.Annotations {
		annotations[k] = v
	}
	annotations[AnnotationScheduledAt] = t.UTC().Format(time.RFC3339)
	return &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: sched.Namespace, Name: RunName(sched.Name, t),
			Labels: labels, Annotations: annotations,
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
}

// Run is one owned Troubleshoot as the schedule sees it.
type Run struct {
	Name          string
	ScheduledTime time.Time
	// Finished is true once the session completed or failed; Failed only for the latter.
	Finished, Failed bool
	// Problem is what a completed run found; nil when it found nothing (or has not finished).
	Problem *kubagev1alpha1.ScheduledProblem
}

// RunOf reads a run from its Troubleshoot; false for an object that is not a scheduled run.
func RunOf(ts *kubagev1alpha1.Troubleshoot) (Run, bool) {
	at, err := time.Parse(time.RFC3339, ts.Annotations[AnnotationScheduledAt])
	if err != nil {
		return Run{}, false
	}
	r := Run{Name: ts.Name, ScheduledTime: at, Finished: ts.Status.Phase.IsTerminal(), Failed: ts.Status.Phase == kubagev1alpha1.PhaseFailed}
	found := meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.RootCauseFoundCondition)
	if ts.Status.Phase == kubagev1alpha1.PhaseCompleted && found && ts.Status.RootCause != nil {
		rc := ts.Status.RootCause
		seen := metav1.NewTime(at)
		r.Problem = &kubagev1alpha1.ScheduledProblem{
			Fingerprint: Fingerprint(rc), Summary: rc.Summary, Category: rc.Category,
			TroubleshootName: ts.Name, FirstSeenTime: &seen, LastSeenTime: &seen, Runs: 1,
		}
	}
	return r, true
}

// Fingerprint identifies a root cause across runs by its category and culprit (the first
// affected object), not by its wording, which quotes counts and ages that change every run.
func Fingerprint(rc *kubagev1alpha1.RootCause) string {
	parts := []string{rc.Category}
	if len(rc.AffectedObjects) > 0 {
		o := rc.AffectedObjects[0]
		parts = append(parts, strings.ToLower(o.Kind), o.Namespace, o.Name)
	} else {
		// Without an object, the wording is all there is: digits (counts, ages) are dropped.
		parts = append(parts, strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, strings.ToLower(rc.Summary)))
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// Verdict is what judging one finished run decided.
type Verdict struct {
	Run Run
	// New is true when the run found a problem other than the last one: it is worth a
	// notification. Resolved is true when it found nothing after a problem.
	New, Resolved bool
}

// Judge walks the finished runs scheduled after status.lastJudgedScheduleTime, oldest
// first, and updates lastProblem and lastJudgedScheduleTime in status. Failed runs say
// nothing about the cluster and leave lastProblem as it is.
func Judge(st *kubagev1alpha1.TroubleshootScheduleStatus, runs []Run) []Verdict {
	sorted := append([]Run(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ScheduledTime.Before(sorted[j].ScheduledTime) })
	var out []Verdict
	for _, r := range sorted {
		if !r.Finished || (st.LastJudgedScheduleTime != nil && !r.ScheduledTime.After(st.LastJudgedScheduleTime.Time)) {
			continue
		}
		judged := metav1.NewTime(r.ScheduledTime)
		st.LastJudgedScheduleTime = &judged
		v := Verdict{Run: r}
		switch {
		case r.Failed:
		case r.Problem == nil:
			v.Resolved = st.LastProblem != nil
			st.LastProblem = nil
		case st.LastProblem != nil && st.LastProblem.Fingerprint == r.Problem.Fingerprint:
			st.LastProblem.LastSeenTime = r.Problem.LastSeenTime
			st.LastProblem.TroubleshootName = r.Name
			st.LastProblem.Runs++
		default:
			v.New = true
			st.LastProblem = r.Problem.DeepCopy()
		}
		out = append(out, v)
	}
	return out
}

// Prune names the finished runs to delete: failed runs beyond failedLimit, runs that found
// a problem beyond problemLimit (newest kept), and every run that found nothing except the
// newest finished run, which stays as the record of the latest check.
func Prune(runs []Run, problemLimit, failedLimit int) []string {
	sorted := append([]Run(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ScheduledTime.After(sorted[j].ScheduledTime) })
	var out []string
	failed, problems, newestFinished := 0, 0, true
	for _, r := range sorted {
		if !r.Finished {
			continue
		}
		switch {
		case r.Failed:
			failed++
			if failed > failedLimit {
				out = append(out, r.Name)
			}
		case r.Problem != nil:
			problems++
			if problems > problemLimit {
				out = append(out, r.Name)
			}
		case !newestFinished:
			out = append(out, r.Name)
		}
		newestFinished = false
	}
	return out
}

// Due says which scheduled time, if any, needs a run now: the latest time at or before
// now that is after both last (the newest run created) and created (the schedule's own
// creation). A time older than deadline is reported as missed instead.
func Due(c *Cron, last *metav1.Time, created, now time.Time, deadline *int64) (at time.Time, due, missed bool) {
	prev, ok := c.Prev(now)
	if !ok {
		return time.Time{}, false, false
	}
	earliest := created
	if last != nil && last.Time.After(earliest) {
		earliest = last.Time
	}
	if !prev.After(earliest) {
		return time.Time{}, false, false
	}
	if deadline != nil && now.Sub(prev) > time.Duration(*deadline)*time.Second {
		return prev, false, true
	}
	return prev, true, false
}
