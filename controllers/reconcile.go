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

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// step is one stage of a reconcile. Steps run in order; the first error or requeue stops
// the list. Steps change the object's status fields but never its conditions.
type step[T client.Object] func(ctx context.Context, obj T) (ctrl.Result, error)

// runSteps runs steps in order and returns the first non-empty result or error.
func runSteps[T client.Object](ctx context.Context, obj T, steps []step[T]) (ctrl.Result, error) {
	for _, s := range steps {
		res, err := s(ctx, obj)
		if err != nil || !res.IsZero() {
			return res, err
		}
	}
	return ctrl.Result{}, nil
}

// maxConditionMessage keeps condition messages short; the API allows 32768 bytes.
const maxConditionMessage = 1024

// truncate shortens s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut]
}

// patchStatus writes obj's status if it differs from before's. A merge patch replaces
// lists whole, which is right for a single writer per object.
func patchStatus(ctx context.Context, c client.Client, before, obj client.Object, beforeStatus, afterStatus any) error {
	if equality.Semantic.DeepEqual(beforeStatus, afterStatus) {
		return nil
	}
	err := c.Status().Patch(ctx, obj, client.MergeFrom(before))
	if err = client.IgnoreNotFound(err); err != nil {
		return fmt.Errorf("patching status: %w", err)
	}
	return nil
}

// recordReadyTransition emits one Event when the Ready condition changes status or
// reason, so a steady state does not flood the namespace with Events.
func recordReadyTransition(rec events.EventRecorder, obj client.Object, before, after []metav1.Condition) {
	if rec == nil {
		return
	}
	now := meta.FindStatusCondition(after, kubagev1alpha1.ReadyCondition)
	if now == nil {
		return
	}
	was := meta.FindStatusCondition(before, kubagev1alpha1.ReadyCondition)
	if was != nil && was.Status == now.Status && was.Reason == now.Reason {
		return
	}
	eventType := "Normal"
	if now.Status != metav1.ConditionTrue && now.Reason != kubagev1alpha1.NotImplementedReason &&
		now.Reason != kubagev1alpha1.ProgressingReason {
		eventType = "Warning"
	}
	rec.Eventf(obj, nil, eventType, now.Reason, "Reconcile", "%s", now.Message)
}

// usersOf maps a changed Secret or ConfigMap to the objects of its namespace whose field
// index names it; newList makes an empty list of the kind that reads such objects.
func usersOf(c client.Client, newList func() client.ObjectList, index string) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		list := newList()
		if err := c.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{index: obj.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the users of a changed object", "index", index, "name", obj.GetName())
			return nil
		}
		var reqs []reconcile.Request
		_ = meta.EachListItem(list, func(o runtime.Object) error {
			if co, ok := o.(client.Object); ok {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(co)})
			}
			return nil
		})
		return reqs
	}
}
