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

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/schedule"
)

// +kubebuilder:rbac:groups=kubage.io,resources=troubleshootschedules,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=kubage.io,resources=troubleshootschedules/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kubage.io,resources=troubleshootschedules/finalizers,verbs=update
// +kubebuilder:rbac:groups=kubage.io,resources=troubleshoots,verbs=delete

var (
	scheduleRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_schedule_runs_total",
		Help: "Scheduled runs by outcome: created, skipped (Forbid held it back), missed (past its starting deadline), replaced.",
	}, []string{"outcome"})
	scheduleVerdicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_schedule_verdicts_total",
		Help: "Finished scheduled runs by verdict: new (a problem unlike the last), repeat, resolved, clean, failed.",
	}, []string{"verdict"})
)

func init() {
	metrics.Registry.MustRegister(scheduleRuns, scheduleVerdicts)
}

// TroubleshootScheduleReconciler creates a TroubleshootSchedule's runs when they are due,
// judges the finished ones and keeps the history within its limits.
type TroubleshootScheduleReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// Parser reads spec.schedule; its Seconds field is for tests only.
	Parser schedule.Parser
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// WatchSelector selects the schedules this reconciler handles, as for Troubleshoots;
	// set from Options.WatchSelector (all when nil).
	WatchSelector labels.Selector
	// Sender delivers notifications and rate-limits each sink; one per manager.
	Sender *notify.Sender
	// Backoff retries failed notifications; Options.NotifyBackoff or notify.DefaultBackoff.
	Backoff notify.Backoff
	// APIReader reads a schedule uncached when the cache cannot be ordered with the last
	// write; set from the manager when nil.
	APIReader client.Reader
	sinks     *sinkResolver
	// written holds the schedules as this reconciler last wrote them: a reconcile that
	// starts before the cache has seen the previous one's status must not send a
	// notification that status already records as sent.
	written writtenObjects[*kubagev1alpha1.TroubleshootSchedule]
}

// SetupWithManager registers the reconciler. Spec changes and the start and end of owned
// runs trigger it; the runs' progress in between does not.
func (r *TroubleshootScheduleReconciler) SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if r.Now == nil {
		r.Now = time.Now
	}
	r.Parser.Seconds = r.Parser.Seconds || opts.ScheduleSeconds
	if r.WatchSelector == nil {
		r.WatchSelector = opts.WatchSelector
	}
	if r.Sender == nil {
		r.Sender = &notify.Sender{}
	}
	if r.Backoff == (notify.Backoff{}) {
		r.Backoff = opts.notifyBackoff()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	r.sinks = newSinkResolver(mgr, opts)
	return ctrl.NewControllerManagedBy(mgr).
		For(&kubagev1alpha1.TroubleshootSchedule{}, builder.WithPredicates(inWatchSelector(r.WatchSelector), predicate.GenerationChangedPredicate{})).
		Owns(&kubagev1alpha1.Troubleshoot{}, builder.WithPredicates(runFinished{})).
		Named("troubleshootschedule").
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Complete(r)
}

// runFinished passes the creation and deletion of runs and their move to a final phase.
type runFinished struct {
	predicate.Funcs
}

func (runFinished) Create(event.CreateEvent) bool { return true }
func (runFinished) Delete(event.DeleteEvent) bool { return true }
func (runFinished) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(*kubagev1alpha1.Troubleshoot)
	n, ok2 := e.ObjectNew.(*kubagev1alpha1.Troubleshoot)
	return ok1 && ok2 && o.Status.Phase.IsTerminal() != n.Status.Phase.IsTerminal()
}

// Reconcile loads the schedule, runs the steps and patches the status once at the end.
func (r *TroubleshootScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	obj := &kubagev1alpha1.TroubleshootSchedule{}
	if err := r.written.read(ctx, r.Client, r.APIReader, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// Owned runs enqueue their schedule whatever its shard: only one shard acts on it.
	if !obj.DeletionTimestamp.IsZero() || !selects(r.WatchSelector, obj) {
		return ctrl.Result{}, nil
	}
	run := &scheduleRun{r: r, now: r.Now(), before: obj.DeepCopy()}

	defer func() {
		summarizeSchedule(obj, retErr)
		before := run.before
		if err := patchStatus(ctx, r.Client, before, obj, &before.Status, &obj.Status); err != nil {
			// What is stored is what was last written (a notification's outcome, say).
			r.written.remember(ctx, r.Client, before)
			retErr = kerrors.NewAggregate([]error{retErr, err})
			return
		}
		r.written.remember(ctx, r.Client, obj)
		recordReadyTransition(r.Recorder, obj, before.Status.Conditions, obj.Status.Conditions)
		recordFailureEvent(r.Recorder, obj, retErr)
		result, retErr = resultFor(result, retErr)
	}()

	ctrl.LoggerFrom(ctx).V(1).Info("Reconciling", "TroubleshootSchedule", klog.KObj(obj), "schedule", obj.Spec.Schedule)
	return runSteps(ctx, obj, []step[*kubagev1alpha1.TroubleshootSchedule]{
		run.parse,
		run.collect,
		run.judge,
		run.notify,
		run.prune,
		run.start,
	})
}

// scheduleRun carries what one reconcile learns from step to step.
type scheduleRun struct {
	r   *TroubleshootScheduleReconciler
	now time.Time
	// before is the object as last written, for status patches.
	before *kubagev1alpha1.TroubleshootSchedule
	cron   *schedule.Cron
	// wake is when a pending notification is due (zero: none is).
	wake time.Duration
	runs []schedule.Run
	// objs holds the runs' Troubleshoots by name.
	objs map[string]*kubagev1alpha1.Troubleshoot
}

// parse reads the schedule; an unreadable one stalls until the spec changes.
func (run *scheduleRun) parse(_ context.Context, obj *kubagev1alpha1.TroubleshootSchedule) (ctrl.Result, error) {
	c, err := run.r.Parser.Parse(obj.Spec.Schedule, ptr.Deref(obj.Spec.TimeZone, ""))
	if err != nil {
		obj.Status.NextScheduleTime = nil
		return ctrl.Result{}, serror.NewStalling(kubagev1alpha1.InvalidScheduleReason, fmt.Errorf("spec.schedule %q: %w", obj.Spec.Schedule, err))
	}
	run.cron = c
	return ctrl.Result{}, nil
}

// collect lists the schedule's runs and records the active ones.
func (run *scheduleRun) collect(ctx context.Context, obj *kubagev1alpha1.TroubleshootSchedule) (ctrl.Result, error) {
	list := &kubagev1alpha1.TroubleshootList{}
	if err := run.r.List(ctx, list, client.InNamespace(obj.Namespace), client.MatchingLabels{schedule.LabelSchedule: obj.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the runs: %w", err)
	}
	run.objs = map[string]*kubagev1alpha1.Troubleshoot{}
	obj.Status.Active = nil
	for i := range list.Items {
		ts := &list.Items[i]
		// Only runs this schedule owns count: a label alone can be copied by anyone.
		if !metav1.IsControlledBy(ts, obj) {
			continue
		}
		r, ok := schedule.RunOf(ts)
		if !ok {
			continue
		}
		run.runs = append(run.runs, r)
		run.objs[r.Name] = ts
		if !r.Finished && ts.DeletionTimestamp.IsZero() && len(obj.Status.Active) < 100 {
			obj.Status.Active = append(obj.Status.Active, r.Name)
		}
	}
	return ctrl.Result{}, nil
}

// judge decides what the newly finished runs found, with one Event per new or resolved problem.
func (run *scheduleRun) judge(_ context.Context, obj *kubagev1alpha1.TroubleshootSchedule) (ctrl.Result, error) {
	for _, v := range schedule.Judge(&obj.Status, run.runs) {
		ts := run.objs[v.Run.Name]
		switch {
		case v.Run.Failed:
			scheduleVerdicts.WithLabelValues("failed").Inc()
		case v.New:
			scheduleVerdicts.WithLabelValues("new").Inc()
			run.event(obj, ts, "Warning", kubagev1alpha1.NewProblemReason, "Run %s found a new problem: %s", v.Run.Name, v.Run.Problem.Summary)
			run.enqueue(obj, kubagev1alpha1.NewProblemReason, v.Run)
		case v.Resolved:
			scheduleVerdicts.WithLabelValues("resolved").Inc()
			run.event(obj, ts, "Normal", kubagev1alpha1.ProblemResolvedReason, "Run %s found no problem any more", v.Run.Name)
			if obj.Spec.Notify != nil && obj.Spec.Notify.OnResolved {
				run.enqueue(obj, kubagev1alpha1.ProblemResolvedReason, v.Run)
			}
		case v.Run.Problem != nil:
			scheduleVerdicts.WithLabelValues("repeat").Inc()
		default:
			scheduleVerdicts.WithLabelValues("clean").Inc()
		}
	}
	return ctrl.Result{}, nil
}

// prune deletes finished runs beyond the history limits.
func (run *scheduleRun) prune(ctx context.Context, obj *kubagev1alpha1.TroubleshootSchedule) (ctrl.Result, error) {
	problems, failed := int32(3), int32(1)
	if obj.Spec.SuccessfulRunsHistoryLimit != nil {
		problems = *obj.Spec.SuccessfulRunsHistoryLimit
	}
	if obj.Spec.FailedRunsHistoryLimit != nil {
		failed = *obj.Spec.FailedRunsHistoryLimit
	}
	for _, name := range schedule.Prune(run.runs, int(problems), int(failed)) {
		if err := run.r.Delete(ctx, run.objs[name], client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting run %s beyond the history limit: %w", name, err)
		}
	}
	return ctrl.Result{}, nil
}

// start creates the run that is due, if any, and comes back when the next one is.
func (run *scheduleRun) start(ctx context.Context, obj *kubagev1alpha1.TroubleshootSchedule) (ctrl.Result, error) {
	if obj.Spec.Suspend {
		obj.Status.NextScheduleTime = nil
		return ctrl.Result{RequeueAfter: run.wake}, nil
	}
	next, ok := run.cron.Next(run.now)
	obj.Status.NextScheduleTime = nil
	if ok {
		t := metav1.NewTime(next)
		obj.Status.NextScheduleTime = &t
	}
	requeue := ctrl.Result{RequeueAfter: run.wake}
	if d := next.Sub(run.now) + 100*time.Millisecond; ok && (requeue.RequeueAfter == 0 || d < requeue.RequeueAfter) {
		// A little late rather than early: Prev must already see the new time.
		requeue.RequeueAfter = d
	}
	at, due, missed := schedule.Due(run.cron, obj.Status.LastScheduleTime, obj.CreationTimestamp.Time, run.now, obj.Spec.StartingDeadlineSeconds)
	if missed {
		scheduleRuns.WithLabelValues("missed").Inc()
		run.event(obj, nil, "Warning", kubagev1alpha1.RunSkippedReason, "The run due at %s missed its starting deadline of %ds", at.UTC().Format(time.RFC3339), *obj.Spec.StartingDeadlineSeconds)
		return requeue, nil
	}
	if !due {
		return requeue, nil
	}
	if len(obj.Status.Active) > 0 {
		switch obj.Spec.ConcurrencyPolicy {
		case kubagev1alpha1.ConcurrencyAllow:
		case kubagev1alpha1.ConcurrencyReplace:
			for _, name := range obj.Status.Active {
				if err := run.r.Delete(ctx, run.objs[name], client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
					return ctrl.Result{}, fmt.Errorf("replacing active run %s: %w", name, err)
				}
				scheduleRuns.WithLabelValues("replaced").Inc()
			}
			obj.Status.Active = nil
		default:
			// Forbid: the time stays due; the end of the active run brings the reconcile back.
			scheduleRuns.WithLabelValues("skipped").Inc()
			return requeue, nil
		}
	}
	ts := schedule.NewRun(obj, at)
	if err := controllerutil.SetControllerReference(obj, ts, run.r.Scheme()); err != nil {
		return ctrl.Result{}, err
	}
	err := run.r.Create(ctx, ts)
	switch {
	case apierrors.IsAlreadyExists(err):
		// An earlier reconcile created it and crashed before recording it.
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("creating run %s: %w", ts.Name, err)
	default:
		scheduleRuns.WithLabelValues("created").Inc()
		run.event(obj, ts, "Normal", kubagev1alpha1.RunCreatedReason, "Created run %s for %s", ts.Name, at.UTC().Format(time.RFC3339))
	}
	last := metav1.NewTime(at)
	obj.Status.LastScheduleTime = &last
	if len(obj.Status.Active) < 100 {
		obj.Status.Active = append(obj.Status.Active, ts.Name)
	}
	return requeue, nil
}

func (run *scheduleRun) event(obj *kubagev1alpha1.TroubleshootSchedule, related *kubagev1alpha1.Troubleshoot, eventType, reason, note string, args ...any) {
	if run.r.Recorder == nil {
		return
	}
	var rel runtime.Object
	if related != nil {
		rel = related
	}
	run.r.Recorder.Eventf(obj, rel, eventType, reason, "Schedule", note, args...)
}
