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
	"errors"
	"fmt"
	"net/url"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/egress"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/notify"
)

// +kubebuilder:rbac:groups=kubage.io,resources=notificationsinks,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=kubage.io,resources=notificationsinks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kubage.io,resources=notificationsinks/finalizers,verbs=update

// sinkRecheckInterval is how often a sink's Secrets and address are checked again.
const sinkRecheckInterval = 5 * time.Minute

// sinkResolver reads NotificationSinks and their Secrets with the rights the sink names.
type sinkResolver struct {
	client    client.Reader
	apiReader client.Reader
	// asServiceAccount returns a reader acting as a ServiceAccount of a namespace.
	asServiceAccount func(namespace, name string) (client.Reader, error)
	// requireServiceAccount refuses to read Secrets with the operator's own rights.
	requireServiceAccount bool
}

func newSinkResolver(mgr ctrl.Manager, opts Options) *sinkResolver {
	return &sinkResolver{
		client: mgr.GetClient(), apiReader: mgr.GetAPIReader(),
		asServiceAccount:      newImpersonatingReaders(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}).For,
		requireServiceAccount: opts.SecretsNeedServiceAccount,
	}
}

// resolve reads sink namespace/name and its Secrets.
func (s *sinkResolver) resolve(ctx context.Context, namespace, name string) (notify.Sink, error) {
	obj := &kubagev1alpha1.NotificationSink{}
	if err := s.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return notify.Sink{}, serror.NewStalling(kubagev1alpha1.SinkNotFoundReason, fmt.Errorf("NotificationSink %s/%s not found", namespace, name))
		}
		return notify.Sink{}, err
	}
	return s.resolveObject(ctx, obj)
}

func (s *sinkResolver) resolveObject(ctx context.Context, obj *kubagev1alpha1.NotificationSink) (notify.Sink, error) {
	reader := s.apiReader
	if sa := obj.Spec.ServiceAccountName; sa != "" {
		r, err := s.asServiceAccount(obj.Namespace, sa)
		if err != nil {
			return notify.Sink{}, err
		}
		reader = r
	} else if s.requireServiceAccount {
		return notify.Sink{}, serror.NewStalling(kubagev1alpha1.ForbiddenReason, errors.New(
			"spec.serviceAccountName is required: this operator reads a sink's Secrets only as a ServiceAccount the sink names, so nothing is sent"))
	}
	sink, err := notify.ResolveSink(ctx, reader, obj)
	var missing *notify.MissingSecretError
	switch {
	case err == nil:
		return sink, nil
	case errors.As(err, &missing):
		return notify.Sink{}, serror.NewStalling(kubagev1alpha1.SecretNotFoundReason, err)
	case apierrors.IsForbidden(err):
		return notify.Sink{}, serror.NewStalling(kubagev1alpha1.ForbiddenReason, err)
	case notify.IsPermanent(err):
		return notify.Sink{}, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, err)
	}
	return notify.Sink{}, err
}

// NotificationSinkReconciler checks that a sink can be used: its Secrets are readable with
// the rights it names and the egress guard allows its address. Nothing is sent.
type NotificationSinkReconciler struct {
	client.Client
	Recorder events.EventRecorder
	sinks    *sinkResolver
}

// SetupWithManager registers the reconciler; spec changes trigger it, and it rechecks on its own.
func (r *NotificationSinkReconciler) SetupWithManager(mgr ctrl.Manager, opts Options) error {
	r.sinks = newSinkResolver(mgr, opts)
	return ctrl.NewControllerManagedBy(mgr).
		For(&kubagev1alpha1.NotificationSink{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("notificationsink").
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Complete(r)
}

// Reconcile validates the sink and writes its Ready condition.
func (r *NotificationSinkReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	obj := &kubagev1alpha1.NotificationSink{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !obj.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	before := obj.DeepCopy()
	defer func() {
		ready := metav1.Condition{Type: kubagev1alpha1.ReadyCondition, Status: metav1.ConditionTrue, Reason: kubagev1alpha1.SinkValidReason,
			Message: "The Secrets are readable and the egress guard allows the address", ObservedGeneration: obj.Generation}
		if c := readyFromError(retErr, obj.Generation); c != nil {
			ready = *c
		}
		meta.SetStatusCondition(&obj.Status.Conditions, ready)
		setStalled(&obj.Status.Conditions, retErr, obj.Generation)
		if failureOf(retErr).actedOn() {
			obj.Status.ObservedGeneration = obj.Generation
		}
		if err := patchStatus(ctx, r.Client, before, obj, &before.Status, &obj.Status); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
			return
		}
		recordReadyTransition(r.Recorder, obj, before.Status.Conditions, obj.Status.Conditions)
		result, retErr = resultFor(result, retErr)
		if retErr == nil && result.IsZero() {
			// Secrets are never watched and names may resolve elsewhere later: look again.
			result.RequeueAfter = sinkRecheckInterval
		}
	}()
	sink, err := r.sinks.resolveObject(ctx, obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	u, _ := url.Parse(sink.URL)
	if err := egress.CheckHost(ctx, u.Hostname()); err != nil {
		if egress.IsDenied(err) {
			return ctrl.Result{}, serror.NewStalling(kubagev1alpha1.EgressDeniedReason, fmt.Errorf("the egress guard refuses the sink's address: %w", err))
		}
		// An unresolvable name may resolve later; deliveries say so when they fail.
		return ctrl.Result{}, &serror.Waiting{Reason: kubagev1alpha1.ConnectionFailedReason, RequeueAfter: sinkRecheckInterval, Err: fmt.Errorf("the sink's host does not resolve: %w", err)}
	}
	return ctrl.Result{}, nil
}
