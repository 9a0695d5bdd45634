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
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/schedule"
	"github.com/kubage/kubage/internal/session"
)

// notifyOutcome tells spec.notify's sinks, once each, how a finished session ended, with the
// outbox of the schedules: the messages are recorded in status.notifications before the first
// send and after every attempt, so an operator restart neither loses nor repeats one. The
// message id is derived from the session's UID, its run (the rerun annotation), the event and
// the sink: a rerun is a new outcome and is told again.
func (run *troubleshootRun) notifyOutcome(ctx context.Context, obj *kubagev1alpha1.Troubleshoot) (ctrl.Result, error) {
	o := run.r.outbox
	if o == nil || obj.Spec.Notify == nil && len(obj.Status.Notifications) == 0 {
		return ctrl.Result{}, nil
	}
	now := o.clock()
	if n := obj.Spec.Notify; n != nil && obj.Status.Phase.IsTerminal() {
		event, problem := sessionOutcome(obj, run.ck)
		sessionRun := string(obj.UID) + "/" + obj.Annotations[session.RerunAnnotation]
		for _, s := range n.Sinks {
			notify.Enqueue(&obj.Status.Notifications, kubagev1alpha1.NotificationDelivery{
				ID:   notify.DeliveryID(obj.Namespace, obj.Name, sessionRun, event, s.Name),
				Sink: s.Name, Event: event, TroubleshootName: obj.Name, Problem: problem.DeepCopy(),
			}, now)
		}
	}
	wake, err := o.deliver(ctx, "Troubleshoot", obj, &obj.Status.Notifications, now, func(ctx context.Context) error {
		if err := patchStatus(ctx, run.r.Client, run.persisted, obj, &run.persisted.Status, &obj.Status); err != nil {
			return err
		}
		run.persisted = obj.DeepCopy()
		// The next reconcile starts from this write even if the cache has not seen it yet.
		run.r.remember(ctx, obj)
		return nil
	})
	return ctrl.Result{RequeueAfter: wake}, err
}

// sessionOutcome is the event and problem told about a finished session: its root cause
// (fingerprinted as a schedule's, so a receiver can match the two), or why it failed.
func sessionOutcome(obj *kubagev1alpha1.Troubleshoot, ck *session.Checkpoint) (string, *kubagev1alpha1.ScheduledProblem) {
	if obj.Status.Phase == kubagev1alpha1.PhaseCompleted {
		rc := obj.Status.RootCause
		if rc == nil || !session.RootCauseFound(rc) {
			return notify.EventSessionCompleted, nil
		}
		return notify.EventSessionCompleted, &kubagev1alpha1.ScheduledProblem{
			Fingerprint: schedule.Fingerprint(rc), Summary: truncate(rc.Summary, 1024), Category: rc.Category, TroubleshootName: obj.Name,
		}
	}
	reason, msg := session.Outcome(&obj.Status, ck)
	return notify.EventSessionFailed, &kubagev1alpha1.ScheduledProblem{
		Fingerprint: fmt.Sprintf("failed-%.56s", reason), Summary: truncate(msg, 1024), Category: reason, TroubleshootName: obj.Name,
	}
}

// newTroubleshootOutbox is the outbox of Troubleshoots' spec.notify, sharing the manager's
// sender (and so each sink's rate limit) with the schedules.
func newTroubleshootOutbox(mgr ctrl.Manager, opts Options, sender *notify.Sender) *outbox {
	return &outbox{sinks: newSinkResolver(mgr, opts), sender: sender, backoff: opts.notifyBackoff(),
		recorder: redactingRecorder{mgr.GetEventRecorder(eventRecorderName)}, clock: time.Now}
}
