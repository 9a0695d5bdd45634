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
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/redact"
)

// failure is what the error a reconcile's steps returned means for the object. failureOf
// is the one reading of the error vocabulary (internal/errors): the result returned to
// controller-runtime, the Ready and Stalled conditions and the Warning Events of all three
// reconcilers are derived from it.
type failure struct {
	// reason is the condition reason; message says what went wrong.
	reason, message string
	// stalled: nothing changes until the spec (or a watched reference) does; no retry.
	stalled bool
	// waiting: an outside dependency failed; retried after requeueAfter, not on backoff.
	waiting      bool
	requeueAfter time.Duration
	// event asks for a Warning Event.
	event bool
}

// failureOf classifies err; nil means the steps succeeded. An error outside the
// vocabulary is a Generic failure with reason Failed, retried with backoff.
func failureOf(err error) *failure {
	if err == nil {
		return nil
	}
	// Error texts quote what servers and sources answered: credentials go first.
	f := &failure{reason: kubagev1alpha1.FailedReason, message: truncate(redact.Default().Secrets(err.Error()), maxConditionMessage)}
	var (
		stalling *serror.Stalling
		waiting  *serror.Waiting
		generic  *serror.Generic
	)
	switch {
	case errors.As(err, &stalling):
		f.reason, f.stalled = stalling.Reason, true
	case errors.As(err, &waiting):
		f.reason, f.waiting, f.requeueAfter = waiting.Reason, true, waiting.RequeueAfter
	case errors.As(err, &generic):
		f.reason, f.event = generic.Reason, generic.Event
	}
	return f
}

// actedOn reports whether the reconcile acted on the object's generation even though it
// failed: a stalled spec or an outside dependency that failed is this generation's
// answer, while a transient error (the API server) leaves the generation unobserved.
func (f *failure) actedOn() bool { return f == nil || f.stalled || f.waiting }

// resultFor turns a reconcile outcome into what controller-runtime should do: a stalled
// object waits for a spec change, a waiting one comes back on its own schedule, and
// anything else is retried with backoff.
func resultFor(res ctrl.Result, err error) (ctrl.Result, error) {
	f := failureOf(err)
	switch {
	case f == nil:
		return res, nil
	case f.stalled:
		return ctrl.Result{}, nil
	case f.waiting && f.requeueAfter > 0:
		return ctrl.Result{RequeueAfter: f.requeueAfter}, nil
	}
	return res, err
}

// readyFromError returns the Ready condition for a failed reconcile, or nil on success.
func readyFromError(err error, generation int64) *metav1.Condition {
	f := failureOf(err)
	if f == nil {
		return nil
	}
	return &metav1.Condition{
		Type:               kubagev1alpha1.ReadyCondition,
		Status:             metav1.ConditionFalse,
		Reason:             f.reason,
		Message:            f.message,
		ObservedGeneration: generation,
	}
}

// setStalled mirrors a stalled error as Stalled=True, and clears it otherwise.
func setStalled(conditions *[]metav1.Condition, err error, generation int64) {
	f := failureOf(err)
	if f == nil || !f.stalled {
		meta.RemoveStatusCondition(conditions, kubagev1alpha1.StalledCondition)
		return
	}
	meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               kubagev1alpha1.StalledCondition,
		Status:             metav1.ConditionTrue,
		Reason:             f.reason,
		Message:            f.message,
		ObservedGeneration: generation,
	})
}

// recordFailureEvent emits a Warning Event for a failure that asks for one; the
// transitions of Ready and of a session's phase have their own Events.
func recordFailureEvent(rec events.EventRecorder, obj client.Object, err error) {
	if f := failureOf(err); rec != nil && f != nil && f.event {
		rec.Eventf(obj, nil, "Warning", f.reason, "Reconcile", "%s", f.message)
	}
}
