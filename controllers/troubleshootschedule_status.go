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

package controllers

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// summarizeSchedule computes the conditions and observedGeneration of a schedule from its
// status fields and the outcome of the steps.
func summarizeSchedule(obj *kubagev1alpha1.TroubleshootSchedule, reconcileErr error) {
	gen := obj.Generation
	meta.SetStatusCondition(&obj.Status.Conditions, scheduleReady(obj, reconcileErr))
	meta.SetStatusCondition(&obj.Status.Conditions, scheduleProblemFound(obj))
	if c := scheduleNotified(obj); c != nil {
		meta.SetStatusCondition(&obj.Status.Conditions, *c)
	} else {
		meta.RemoveStatusCondition(&obj.Status.Conditions, kubagev1alpha1.NotifiedCondition)
	}
	setStalled(&obj.Status.Conditions, reconcileErr, gen)
	if failureOf(reconcileErr).actedOn() {
		obj.Status.ObservedGeneration = gen
	}
}

// scheduleReady is True while the schedule is readable: it runs when due (or is suspended).
func scheduleReady(obj *kubagev1alpha1.TroubleshootSchedule, reconcileErr error) metav1.Condition {
	if c := readyFromError(reconcileErr, obj.Generation); c != nil {
		return *c
	}
	cond := metav1.Condition{Type: kubagev1alpha1.ReadyCondition, Status: metav1.ConditionTrue, ObservedGeneration: obj.Generation}
	switch {
	case obj.Spec.Suspend:
		cond.Reason, cond.Message = kubagev1alpha1.SuspendedReason, "Suspended: no new runs start"
	case obj.Status.NextScheduleTime != nil:
		cond.Reason = kubagev1alpha1.ScheduledReason
		cond.Message = fmt.Sprintf("Next run at %s", obj.Status.NextScheduleTime.UTC().Format(time.RFC3339))
	default:
		cond.Reason, cond.Message = kubagev1alpha1.ScheduledReason, "The schedule names no time in the next five years"
	}
	if n := len(obj.Status.Active); n > 0 {
		cond.Message += fmt.Sprintf("; %d run(s) active", n)
	}
	return cond
}

// scheduleProblemFound mirrors status.lastProblem.
func scheduleProblemFound(obj *kubagev1alpha1.TroubleshootSchedule) metav1.Condition {
	cond := metav1.Condition{Type: kubagev1alpha1.ProblemFoundCondition, Status: metav1.ConditionFalse, ObservedGeneration: obj.Generation}
	p := obj.Status.LastProblem
	switch {
	case p != nil:
		cond.Status, cond.Reason = metav1.ConditionTrue, p.Category
		if cond.Reason == "" {
			cond.Reason = kubagev1alpha1.CategoryUnknown
		}
		cond.Message = truncate(fmt.Sprintf("%s (found by %d run(s) in a row, newest %s)", p.Summary, p.Runs, p.TroubleshootName), maxConditionMessage)
	case obj.Status.LastJudgedScheduleTime != nil:
		cond.Reason, cond.Message = kubagev1alpha1.NoRootCauseReason, "The newest finished run found no problem"
	default:
		cond.Reason, cond.Message = kubagev1alpha1.ProgressingReason, "No run has finished yet"
	}
	return cond
}

// scheduleNotified summarises the schedule's outbox (see notifiedCondition).
func scheduleNotified(obj *kubagev1alpha1.TroubleshootSchedule) *metav1.Condition {
	return notifiedCondition(obj.Spec.Notify != nil, obj.Status.Notifications, obj.Generation)
}
