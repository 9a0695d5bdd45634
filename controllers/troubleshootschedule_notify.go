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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/schedule"
)

// keptNotifications is how many deliveries a schedule's status keeps (pending ones always).
const keptNotifications = 16

var notifications = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "kubage_notifications_total",
	Help: "Notification attempts by sink type and outcome: delivered, retrying, failed (given up), deferred (rate limit).",
}, []string{"type", "outcome"})

func init() {
	metrics.Registry.MustRegister(notifications)
}

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

// notify sends the pending messages that are due. The outbox is persisted before the first
// send and after each one, so a restart resumes it without losing or repeating a message
// (a receiver that saw a message whose acceptance was not recorded sees its id again).
func (run *scheduleRun) notify(ctx context.Context, obj *kubagev1alpha1.TroubleshootSchedule) (ctrl.Result, error) {
	defer func() {
		notify.Trim(&obj.Status.Notifications, keptNotifications)
		if d, ok := notify.NextWake(obj.Status.Notifications, run.r.Now()); ok {
			run.wake = max(d, 10*time.Millisecond)
		}
	}()
	due := notify.Due(obj.Status.Notifications, run.now)
	if len(due) == 0 {
		return ctrl.Result{}, nil
	}
	if err := run.persist(ctx, obj); err != nil {
		return ctrl.Result{}, err
	}
	for _, i := range due {
		d := &obj.Status.Notifications[i]
		sink, err := run.r.sinks.resolve(ctx, obj.Namespace, d.Sink)
		sinkType := string(sink.Type)
		if err != nil {
			// A missing sink or Secret may appear: retried like a failed send, then given up.
			notify.Record(d, err, run.r.Backoff, run.now)
		} else if wait := run.r.Sender.Wait(obj.Namespace+"/"+d.Sink, sink.MaxPerHour, run.now); wait > 0 {
			notify.Defer(d, wait, run.now)
			notifications.WithLabelValues(sinkType, "deferred").Inc()
			continue
		} else {
			ctrl.LoggerFrom(ctx).Info("Sending a notification", "sink", d.Sink, "event", d.Event, "id", d.ID, "attempt", d.Attempts+1)
			err = run.r.Sender.Send(ctx, sink, notify.Message{
				ID: d.ID, Event: d.Event, Kind: "TroubleshootSchedule", Namespace: obj.Namespace, Name: obj.Name,
				Troubleshoot: d.TroubleshootName, Problem: d.Problem, Time: d.CreatedTime.Time,
			}, run.now)
			notify.Record(d, err, run.r.Backoff, run.now)
		}
		switch d.State {
		case kubagev1alpha1.DeliveryDelivered:
			notifications.WithLabelValues(sinkType, "delivered").Inc()
		case kubagev1alpha1.DeliveryFailed:
			notifications.WithLabelValues(sinkType, "failed").Inc()
			run.event(obj, nil, "Warning", kubagev1alpha1.DeliveryFailedReason, "Gave up on notifying %s after %d attempt(s): %s", d.Sink, d.Attempts, d.LastError)
		default:
			notifications.WithLabelValues(sinkType, "retrying").Inc()
		}
		if err := run.persist(ctx, obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// persist writes the status as it is now, so what follows can rely on it being recorded.
func (run *scheduleRun) persist(ctx context.Context, obj *kubagev1alpha1.TroubleshootSchedule) error {
	if err := patchStatus(ctx, run.r.Client, run.before, obj, &run.before.Status, &obj.Status); err != nil {
		return err
	}
	run.before = obj.DeepCopy()
	return nil
}
