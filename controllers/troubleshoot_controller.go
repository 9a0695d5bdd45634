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

	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// TroubleshootReconciler drives a Troubleshoot session through its phases.
type TroubleshootReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// SetupWithManager registers the reconciler; status writes do not retrigger it.
func (r *TroubleshootReconciler) SetupWithManager(mgr ctrl.Manager, opts Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&kubagev1alpha1.Troubleshoot{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("troubleshoot").
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Complete(r)
}

// Reconcile loads the session, runs the steps and patches the status once at the end.
func (r *TroubleshootReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	log := ctrl.LoggerFrom(ctx)

	obj := &kubagev1alpha1.Troubleshoot{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !obj.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	before := obj.DeepCopy()

	defer func() {
		summarizeTroubleshoot(obj, retErr)
		if err := patchStatus(ctx, r.Client, before, obj, &before.Status, &obj.Status); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
			return
		}
		recordReadyTransition(r.Recorder, obj, before.Status.Conditions, obj.Status.Conditions)
		result, retErr = resultFor(result, retErr)
	}()

	log.V(1).Info("Reconciling", "Troubleshoot", klog.KObj(obj), "phase", obj.Status.Phase)
	return runSteps(ctx, obj, r.steps())
}

// steps is the ordered work of one reconcile. Later issues add planning, investigation,
// regulation and summarizing here.
func (r *TroubleshootReconciler) steps() []step[*kubagev1alpha1.Troubleshoot] {
	return []step[*kubagev1alpha1.Troubleshoot]{
		r.initialize,
	}
}

// initialize puts a new session in Pending.
func (r *TroubleshootReconciler) initialize(_ context.Context, obj *kubagev1alpha1.Troubleshoot) (ctrl.Result, error) {
	if obj.Status.Phase == "" {
		obj.Status.Phase = kubagev1alpha1.PhasePending
	}
	return ctrl.Result{}, nil
}
