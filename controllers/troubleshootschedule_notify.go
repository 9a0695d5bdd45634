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

	ctrl "sigs.k8s.io/controller-runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/schedule"
)

// enqueue records one pending message per sink of spec.notify; it is written to the status
// before anything is sent, and its id is the same however often it is recorded.
func (run *scheduleRun) enqueue(obj *kubagev1alpha1.TroubleshootSchedule, event string, r schedule.Run) {
	if obj.Spec.Notify == nil {
		return
	}
	for _, s := range obj.Spec.Notify.Sinks {
		notify.Enqueue(&obj.Status.Notifications, kubagev1alpha1.NotificationDelivery{
			ID:   notify.DeliveryID(obj.Namespace, obj.Name, r.Name, event, s.Name),
			Sink: s.Name, Event: event, TroubleshootName: r.Name, Problem: r.Problem.DeepCopy(),
		}, run.now)
	}
}

// notify sends the pending messages that are due (see outbox.deliver).
func (run *scheduleRun) notify(ctx context.Context, obj *kubagev1alpha1.TroubleshootSchedule) (ctrl.Result, error) {
	o := &outbox{sinks: run.r.sinks, sender: run.r.Sender, backoff: run.r.Backoff, recorder: run.r.Recorder, clock: run.r.Now}
	wake, err := o.deliver(ctx, "TroubleshootSchedule", obj, &obj.Status.Notifications, run.now, func(ctx context.Context) error { return run.persist(ctx, obj) })
	if wake > 0 {
		run.wake = wake
	}
	return ctrl.Result{}, err
}

// persist writes the status as it is now, so what follows can rely on it being recorded.
func (run *scheduleRun) persist(ctx context.Context, obj *kubagev1alpha1.TroubleshootSchedule) error {
	if err := patchStatus(ctx, run.r.Client, run.before, obj, &run.before.Status, &obj.Status); err != nil {
		return err
	}
	run.r.written.remember(ctx, run.r.Client, obj)
	run.before = obj.DeepCopy()
	return nil
}
