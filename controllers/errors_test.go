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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
)

func TestErrorVocabularyDecidesResultConditionsAndEvents(t *testing.T) {
	cause := errors.New("remote said no")
	cases := []struct {
		name        string
		err         error
		wantResult  ctrl.Result
		wantErr     bool
		wantReason  string
		wantStalled bool
		wantEvent   bool
	}{
		{"stalling waits for a spec change", serror.NewStalling(kubagev1alpha1.InvalidSpecReason, cause), ctrl.Result{}, false, kubagev1alpha1.InvalidSpecReason, true, false},
		{"waiting comes back on its own schedule", &serror.Waiting{Reason: kubagev1alpha1.AuthFailedReason, Err: cause, RequeueAfter: time.Minute}, ctrl.Result{RequeueAfter: time.Minute}, false, kubagev1alpha1.AuthFailedReason, false, false},
		{"waiting without a schedule is retried with backoff", &serror.Waiting{Reason: kubagev1alpha1.AuthFailedReason, Err: cause}, ctrl.Result{}, true, kubagev1alpha1.AuthFailedReason, false, false},
		{"generic is retried with backoff and may ask for an Event", &serror.Generic{Reason: "CleanupFailed", Err: cause, Event: true}, ctrl.Result{}, true, "CleanupFailed", false, true},
		{"an error outside the vocabulary is a failure", cause, ctrl.Result{}, true, kubagev1alpha1.FailedReason, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewWithT(t)
			res, err := resultFor(ctrl.Result{}, c.err)
			g.Expect(res).To(Equal(c.wantResult))
			g.Expect(err != nil).To(Equal(c.wantErr))

			ready := readyFromError(c.err, 4)
			g.Expect(ready.Reason).To(Equal(c.wantReason))
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Message).To(Equal("remote said no"))

			var conds []metav1.Condition
			setStalled(&conds, c.err, 4)
			g.Expect(meta.IsStatusConditionTrue(conds, kubagev1alpha1.StalledCondition)).To(Equal(c.wantStalled))

			rec := events.NewFakeRecorder(1)
			recordFailureEvent(rec, newTroubleshoot(4, kubagev1alpha1.PhasePending), c.err)
			if c.wantEvent {
				g.Expect(rec.Events).To(Receive(Equal("Warning CleanupFailed remote said no")))
			} else {
				g.Expect(rec.Events).NotTo(Receive())
			}
		})
	}
	g := NewWithT(t)
	res, err := resultFor(ctrl.Result{RequeueAfter: time.Second}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal(ctrl.Result{RequeueAfter: time.Second}), "success keeps the steps' result")
	g.Expect(readyFromError(nil, 1)).To(BeNil())
}
