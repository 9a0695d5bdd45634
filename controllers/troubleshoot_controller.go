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

	"k8s.io/apimachinery/pkg/labels"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/session"
)

// What the remediation executor may change, on top of the reads in rbac.go: approved
// Low-risk rollout restarts, scales and patches of workloads, deleting a Pod, and deleting
// the session's own ConfigMaps on a rerun.
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;daemonsets,verbs=patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=delete

// TroubleshootReconciler drives a Troubleshoot session through its phases, one persisted
// step per reconcile (see internal/session for the phase machine):
//
//	Pending → Planning → Investigating → Regulating → (Planning | Summarizing) → Completed
//	                                                                 ↘ AwaitingApproval ⇄ Remediating → Completed (Remediate mode)
//	any phase → Failed (target not found, no conclusion before the deadline)
//
// Rerun: a spec change after Completed or Failed does not rerun the session; the
// condition Outdated says the result answers an older spec. Setting the annotation
// kubage.io/rerun to a value it has not had before restarts the session from Pending,
// deleting the previous run's task results, Jobs and report:
//
//	kubectl annotate troubleshoot <name> kubage.io/rerun="$(date +%s)" --overwrite
//
// Approval (Remediate mode): the session waits in AwaitingApproval until spec.approvals
// holds a decision for the action ids listed in status.remediation.actions:
//
//	kubectl patch troubleshoot <name> --type=merge -p '{"spec":{"approvals":[{"actionID":"a1-3f2a9c","decision":"Approved"}]}}'
//
// Approved Low-risk actions that are a rollout restart, a scale, a Pod deletion or a
// workload/ConfigMap patch in the session's namespace run in Remediating and end Executed
// or Failed with a result; other approved actions are recorded as Approved with a result
// saying they are left to a human. Diagnose mode never changes anything but the session's
// own ConfigMaps.
type TroubleshootReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Engine   *session.Engine
	// WatchSelector selects the Troubleshoots this reconciler handles (all when nil).
	WatchSelector labels.Selector
	// APIReader reads the Troubleshoot uncached when the cache cannot be trusted: a step
	// must start from the status the previous step wrote, which the cache may not have
	// seen yet (see written).
	APIReader client.Reader

	// outbox tells spec.notify's sinks the outcome (none when nil).
	outbox *outbox
	// written holds the Troubleshoots as this reconciler last wrote them.
	written writtenObjects[*kubagev1alpha1.Troubleshoot]
}

// SetupWithManager registers the reconciler. Status writes do not retrigger it; spec
// changes (approvals) and annotation changes (the rerun gesture) do, and so do runners
// that report finished tasks.
func (r *TroubleshootReconciler) SetupWithManager(mgr ctrl.Manager, opts Options) error {
	b := ctrl.NewControllerManagedBy(mgr).
		For(&kubagev1alpha1.Troubleshoot{}, builder.WithPredicates(inWatchSelector(r.WatchSelector), predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Named("troubleshoot").
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles})
	for _, rn := range r.Engine.Runners {
		n, ok := rn.(session.Notifier)
		if !ok {
			continue
		}
		ch := make(chan event.GenericEvent, 1024)
		if err := mgr.Add(forwardFinished(n, ch)); err != nil {
			return err
		}
		b = b.WatchesRawSource(source.Channel(ch, &handler.EnqueueRequestForObject{}))
	}
	return b.Complete(r)
}

// forwardFinished turns a runner's finished-task notices into reconcile requests.
func forwardFinished(n session.Notifier, ch chan<- event.GenericEvent) manager.RunnableFunc {
	return func(ctx context.Context) error {
		for {
			select {
			case <-ctx.Done():
				return nil
			case o := <-n.Finished():
				ts := &kubagev1alpha1.Troubleshoot{}
				ts.Namespace, ts.Name = o.Namespace, o.Name
				select {
				case ch <- event.GenericEvent{Object: ts}:
				case <-ctx.Done():
					return nil
				}
			}
		}
	}
}

// Reconcile loads the session, admits it, advances it one step and patches the status
// once at the end.
func (r *TroubleshootReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	log := ctrl.LoggerFrom(ctx)

	obj := &kubagev1alpha1.Troubleshoot{}
	if err := r.read(ctx, req.NamespacedName, obj); err != nil {
		if client.IgnoreNotFound(err) == nil {
			// Deleted: stop what still runs in this process; owned objects go with the GC.
			r.written.forget(req.NamespacedName)
			r.cleanupDeleted(ctx, req.Namespace, req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !r.admit(ctx, obj) {
		return ctrl.Result{}, nil
	}
	before := obj.DeepCopy()
	run := &troubleshootRun{r: r, persisted: before.DeepCopy()}

	defer func() {
		summarizeTroubleshoot(obj, run.ck, retErr)
		if err := patchStatus(ctx, r.Client, run.persisted, obj, &run.persisted.Status, &obj.Status); err != nil {
			// What is stored is what was last written (a notification's outcome, say).
			r.remember(ctx, run.persisted)
			retErr = kerrors.NewAggregate([]error{retErr, err})
			return
		}
		r.remember(ctx, obj)
		recordPhaseTransition(r.Recorder, obj, before, run.ck, run.entered)
		recordFailureEvent(r.Recorder, obj, retErr)
		recordWaitingEvent(r.Recorder, obj, before, retErr)
		result, retErr = resultFor(result, retErr)
		if retErr != nil || result.RequeueAfter > 0 {
			p := phasePriority(obj.Status.Phase)
			result.Priority = &p
		}
	}()

	log.V(1).Info("Reconciling", "Troubleshoot", klog.KObj(obj), "phase", obj.Status.Phase)
	return runSteps(ctx, obj, []step[*kubagev1alpha1.Troubleshoot]{
		run.advanceSession,
		run.notifyOutcome,
	})
}

// admit decides, before anything is written, whether this reconcile may work on obj: a
// Troubleshoot being deleted only has its in-process tasks stopped, and one that belongs
// to another shard (or came from a runner notice of another shard) is left alone.
func (r *TroubleshootReconciler) admit(ctx context.Context, obj *kubagev1alpha1.Troubleshoot) bool {
	if !obj.DeletionTimestamp.IsZero() {
		r.cleanupDeleted(ctx, obj.Namespace, obj.Name)
		return false
	}
	return selects(r.WatchSelector, obj)
}

// troubleshootRun carries what one reconcile learns from step to step.
type troubleshootRun struct {
	r *TroubleshootReconciler
	// ck is the session's checkpoint after its step; nil when the step failed.
	ck *session.Checkpoint
	// persisted is the object as last written, which a status patch is computed against.
	persisted *kubagev1alpha1.Troubleshoot
	// entered are the phases the session entered in this reconcile.
	entered []session.Mark
}

// advanceSession runs one step of the session (see internal/session); the engine's
// errors already speak the reconcilers' error vocabulary.
func (run *troubleshootRun) advanceSession(ctx context.Context, obj *kubagev1alpha1.Troubleshoot) (ctrl.Result, error) {
	phase := obj.Status.Phase
	st, err := run.r.Engine.Advance(ctx, obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	run.ck, run.entered = st.Checkpoint, st.Entered
	if obj.Status.Phase != phase {
		ctrl.LoggerFrom(ctx).Info("Phase changed", "Troubleshoot", klog.KObj(obj), "from", phase, "to", obj.Status.Phase)
	}
	return ctrl.Result{RequeueAfter: st.RequeueAfter}, nil
}

// cleanupDeleted stops in-process work of a deleted session; Jobs and ConfigMaps carry an
// ownerReference and are removed by the garbage collector.
func (r *TroubleshootReconciler) cleanupDeleted(ctx context.Context, namespace, name string) {
	if err := r.Engine.Forget(ctx, namespace, name); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Cleaning up the tasks of a deleted Troubleshoot")
	}
}
