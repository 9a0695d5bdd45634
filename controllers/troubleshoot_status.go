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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// summarizeTroubleshoot computes the conditions and observedGeneration of obj from its
// status fields and the outcome of the steps.
func summarizeTroubleshoot(obj *kubagev1alpha1.Troubleshoot, reconcileErr error) {
	gen := obj.Generation
	meta.SetStatusCondition(&obj.Status.Conditions, troubleshootReady(obj, reconcileErr))
	setStalled(&obj.Status.Conditions, reconcileErr, gen)
	if reconcileErr == nil {
		obj.Status.ObservedGeneration = gen
	}
}

// troubleshootReady says whether the session has concluded.
func troubleshootReady(obj *kubagev1alpha1.Troubleshoot, reconcileErr error) metav1.Condition {
	if c := readyFromError(reconcileErr, obj.Generation); c != nil {
		return *c
	}
	cond := metav1.Condition{
		Type:               kubagev1alpha1.ReadyCondition,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: obj.Generation,
	}
	switch obj.Status.Phase {
	case kubagev1alpha1.PhaseCompleted:
		cond.Status = metav1.ConditionTrue
		cond.Reason = kubagev1alpha1.SucceededReason
		cond.Message = "Investigation completed"
	case kubagev1alpha1.PhaseFailed:
		cond.Reason = kubagev1alpha1.FailedReason
		cond.Message = "Investigation failed"
	case kubagev1alpha1.PhasePending, "":
		cond.Reason = kubagev1alpha1.NotImplementedReason
		cond.Message = "The investigation loop is not implemented yet; the session stays Pending"
	default:
		cond.Reason = kubagev1alpha1.ProgressingReason
		cond.Message = "Investigation in phase " + string(obj.Status.Phase)
	}
	return cond
}
