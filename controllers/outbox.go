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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/notify"
)

// keptNotifications is how many deliveries a status keeps (pending ones always).
const keptNotifications = 16

// attemptGrace bounds how long an attempt that has begun may run on, and its outcome be
// written, after the operator was told to stop: longer than the sender's own 10s timeout.
const attemptGrace = 15 * time.Second

var notifications = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "kubage_notifications_total",
	Help: "Notification attempts by sink type and outcome: delivered, retrying, failed (given up), deferred (rate limit).",
}, []string{"type", "outcome"})

func init() {
	metrics.Registry.MustRegister(notifications)
}

// outbox delivers the notifications an object records in its status (a schedule's new
// problems, a Troubleshoot's outcome): the same sinks, rate limits, backoff and metrics.
type outbox struct {
	sinks    *sinkResolver
	sender   *notify.Sender
	backoff  notify.Backoff
	recorder events.EventRecorder
	// clock is the reconciler's clock, read again after the sends for the next wake.
	clock func() time.Time
}

// deliver sends the messages of list that are due at now. persist writes the status as it
// is; it runs before the first send and after each one, so a restart resumes the outbox
// without losing or repeating a message (a receiver that saw a message whose acceptance was
// not recorded sees its id again). It returns when the next pending message is due.
func (o *outbox) deliver(ctx context.Context, kind string, obj client.Object, list *[]kubagev1alpha1.NotificationDelivery, now time.Time,
	persist func(context.Context) error) (wake time.Duration, err error) {
	defer func() {
		notify.Trim(list, keptNotifications)
		if d, ok := notify.NextWake(*list, o.clock()); ok {
			wake = max(d, 10*time.Millisecond)
		}
	}()
	due := notify.Due(*list, now)
	if len(due) == 0 {
		return 0, nil
	}
	if err := persist(ctx); err != nil {
		return 0, err
	}
	for _, i := range due {
		if ctx.Err() != nil {
			// Shutting down: what has not begun waits for the next operator.
			return 0, ctx.Err()
		}
		d := &(*list)[i]
		sink, err := o.sinks.resolve(ctx, obj.GetNamespace(), d.Sink)
		sinkType := string(sink.Type)
		if err != nil && ctx.Err() != nil {
			// Told to stop while reading the sink: nothing was sent, so no attempt was made.
			return 0, ctx.Err()
		} else if err != nil {
			// A missing sink or Secret may appear: retried like a failed send, then given up.
			notify.Record(d, err, o.backoff, now)
		} else if w := o.sender.Wait(obj.GetNamespace()+"/"+d.Sink, sink.MaxPerHour, now); w > 0 {
			notify.Defer(d, w, now)
			notifications.WithLabelValues(sinkType, "deferred").Inc()
			continue
		} else {
			// An attempt that has begun is finished and its outcome written even when the
			// operator is told to stop meanwhile: cancelling it would leave a request the
			// receiver may have accepted unrecorded, and the next operator would send it again.
			attempt, cancel := context.WithTimeout(context.WithoutCancel(ctx), attemptGrace)
			ctrl.LoggerFrom(ctx).Info("Sending a notification", "sink", d.Sink, "event", d.Event, "id", d.ID, "attempt", d.Attempts+1)
			err = o.sender.Send(attempt, sink, notify.Message{
				ID: d.ID, Event: d.Event, Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
				Troubleshoot: d.TroubleshootName, Problem: d.Problem, Time: d.CreatedTime.Time,
			}, now)
			notify.Record(d, err, o.backoff, now)
			o.count(sinkType, d, obj)
			err = persistAttempt(attempt, persist)
			cancel()
			if err != nil {
				return 0, err
			}
			continue
		}
		o.count(sinkType, d, obj)
		if err := persist(ctx); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

// persistAttempt writes the outcome of an attempt, trying again briefly (within ctx) when the
// API server is unavailable: an outcome not written is an attempt the next reconcile repeats.
func persistAttempt(ctx context.Context, persist func(context.Context) error) error {
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		err := persist(ctx)
		if err == nil || try == 4 || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsForbidden(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// count records the outcome of one attempt in the metrics, and a given-up message as an Event.
func (o *outbox) count(sinkType string, d *kubagev1alpha1.NotificationDelivery, obj client.Object) {
	switch d.State {
	case kubagev1alpha1.DeliveryDelivered:
		notifications.WithLabelValues(sinkType, "delivered").Inc()
	case kubagev1alpha1.DeliveryFailed:
		notifications.WithLabelValues(sinkType, "failed").Inc()
		if o.recorder != nil {
			o.recorder.Eventf(obj, nil, "Warning", kubagev1alpha1.DeliveryFailedReason, "Notify",
				"Gave up on notifying %s after %d attempt(s): %s", d.Sink, d.Attempts, d.LastError)
		}
	default:
		notifications.WithLabelValues(sinkType, "retrying").Inc()
	}
}

// notifiedCondition summarises an outbox: False while a message is retried or after one was
// given up, True when every recorded message was delivered; nil when nothing is configured.
func notifiedCondition(configured bool, list []kubagev1alpha1.NotificationDelivery, generation int64) *metav1.Condition {
	if !configured && len(list) == 0 {
		return nil
	}
	ok, reason, msg := notify.Summary(list)
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return &metav1.Condition{Type: kubagev1alpha1.NotifiedCondition, Status: status, Reason: reason,
		Message: truncate(msg, maxConditionMessage), ObservedGeneration: generation}
}

// notifyBackoff is the retry schedule of failed notifications: Options.NotifyBackoff, or
// notify.DefaultBackoff when it is zero. Schedules and Troubleshoots share it.
func (o Options) notifyBackoff() notify.Backoff {
	if o.NotifyBackoff == (notify.Backoff{}) {
		return notify.DefaultBackoff
	}
	return o.NotifyBackoff
}
