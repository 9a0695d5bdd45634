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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/internal/tools/registry"
)

// Headers come from Secrets and ConfigMaps. ConfigMap metadata is watched; Secrets are
// only ever read by name (no list or watch on Secrets), so a rotated token is picked up by
// the secretPoller within Options.SecretPollInterval.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// ReconcileRequestedAnnotation asks for an immediate health check and re-listing when its
// value changes, e.g. `kubectl annotate toolserver logs kubage.io/reconcile-requested-at="$(date +%s)" --overwrite`.
const ReconcileRequestedAnnotation = "kubage.io/reconcile-requested-at"

const (
	// toolServerConfigMapIndex indexes ToolServers by the ConfigMaps their headers refer to,
	// so a change of one enqueues only its users.
	toolServerConfigMapIndex = "kubage.io/header-configmaps"

	// maxListedTools bounds how many tools one health check reads from a server.
	maxListedTools = 5000
	// defaultHealthCheckInterval applies when spec.healthCheckInterval is unset.
	defaultHealthCheckInterval = time.Minute
	// firstRetry is the wait after the first failed health check; it doubles per failure.
	firstRetry = 2 * time.Second
	// minMaxBackoff is the least the backoff may grow to, for short intervals.
	minMaxBackoff = 5 * time.Minute
)

var (
	toolServerChecks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_toolserver_health_checks_total",
		Help: "ToolServer health checks by outcome (Connected or the failure reason).",
	}, []string{"reason"})
	toolServerDiscoverySeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "kubage_toolserver_discovery_duration_seconds",
		Help:    "Time to connect to an MCP server, initialise and list its tools.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
	})
)

func init() {
	metrics.Registry.MustRegister(toolServerChecks, toolServerDiscoverySeconds)
}

// ToolServerReconciler connects to an MCP server, lists its tools and tracks its health.
type ToolServerReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// APIReader reads Secrets and ConfigMaps without a cache; set from the manager when nil.
	APIReader client.Reader
	// secretUse records the Secret versions reconciles read, for the Secret poller.
	secretUse *secretTracker
	// AsServiceAccount returns a reader acting as a ServiceAccount of a namespace, for
	// objects that name one; built from the manager's config when nil.
	AsServiceAccount func(namespace, name string) (client.Reader, error)
	// RequireServiceAccount refuses headers from Secrets unless the object names a
	// ServiceAccount to read them as (Options.SecretsNeedServiceAccount).
	RequireServiceAccount bool
	// Discover connects and lists tools; kmcp.Discover when nil (tests may replace it).
	Discover func(context.Context, kmcp.Config) (*kmcp.Discovery, error)
}

// SetupWithManager registers the reconciler. Spec changes, the reconcile-request annotation
// and changes of referenced Secrets and ConfigMaps trigger it; status writes do not.
func (r *ToolServerReconciler) SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Discover == nil {
		r.Discover = kmcp.Discover
	}
	if r.AsServiceAccount == nil {
		r.AsServiceAccount = newImpersonatingReaders(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}).For
	}
	r.RequireServiceAccount = r.RequireServiceAccount || opts.SecretsNeedServiceAccount
	ctx := context.Background()
	indexer := mgr.GetFieldIndexer()
	if err := indexer.IndexField(ctx, &kubagev1alpha1.ToolServer{}, toolServerConfigMapIndex, func(o client.Object) []string {
		return registry.ReferencedConfigMaps(o.(*kubagev1alpha1.ToolServer))
	}); err != nil {
		return fmt.Errorf("indexing ToolServers by ConfigMap: %w", err)
	}
	r.secretUse = newSecretTracker()
	secrets := newSecretPoller(mgr.GetClient(), r.APIReader, newToolServerList, func(o client.Object) []string {
		return registry.ReferencedSecrets(o.(*kubagev1alpha1.ToolServer))
	}, r.secretUse, opts.SecretPollInterval)
	if err := mgr.Add(secrets); err != nil {
		return fmt.Errorf("adding the ToolServer Secret poller: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&kubagev1alpha1.ToolServer{}, builder.WithPredicates(inWatchSelector(opts.WatchSelector),
			predicate.Or(predicate.GenerationChangedPredicate{}, reconcileRequested{}))).
		WatchesRawSource(secrets.Source()).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(usersOf(r.Client, newToolServerList, toolServerConfigMapIndex)), builder.OnlyMetadata).
		Named("toolserver").
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Complete(r)
}

// reconcileRequested passes updates that change ReconcileRequestedAnnotation.
type reconcileRequested struct {
	predicate.Funcs
}

func (reconcileRequested) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	return e.ObjectOld.GetAnnotations()[ReconcileRequestedAnnotation] != e.ObjectNew.GetAnnotations()[ReconcileRequestedAnnotation]
}

// Reconcile loads the object, runs the steps and patches the status once at the end.
func (r *ToolServerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	log := ctrl.LoggerFrom(ctx)

	obj := &kubagev1alpha1.ToolServer{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !obj.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	before := obj.DeepCopy()

	defer func() {
		summarizeToolServer(obj, retErr, time.Now())
		if err := patchStatus(ctx, r.Client, before, obj, &before.Status, &obj.Status); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
			return
		}
		recordReadyTransition(r.Recorder, obj, before.Status.Conditions, obj.Status.Conditions)
		recordFailureEvent(r.Recorder, obj, retErr)
		result, retErr = resultFor(result, retErr)
	}()

	log.V(1).Info("Reconciling", "ToolServer", klog.KObj(obj), "url", obj.Spec.URL)
	run := &toolServerRun{r: r}
	return runSteps(ctx, obj, []step[*kubagev1alpha1.ToolServer]{
		run.resolveHeaders,
		run.discover,
	})
}

// toolServerRun carries what one reconcile learns from step to step.
type toolServerRun struct {
	r       *ToolServerReconciler
	headers map[string]string
}

// resolveHeaders reads header values; a missing Secret or ConfigMap stalls the object
// until it appears (the Secret poller or the ConfigMap watch brings it back).
func (run *toolServerRun) resolveHeaders(ctx context.Context, obj *kubagev1alpha1.ToolServer) (ctrl.Result, error) {
	reader, err := run.r.referenceReader(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	reader = recordingReader{Reader: reader, used: run.r.secretUse, user: client.ObjectKeyFromObject(obj)}
	headers, err := registry.ResolveHeaders(ctx, reader, obj)
	var missing *registry.MissingReferenceError
	switch {
	case apierrors.IsForbidden(err):
		toolServerChecks.WithLabelValues(kubagev1alpha1.ForbiddenReason).Inc()
		return ctrl.Result{}, serror.NewStalling(kubagev1alpha1.ForbiddenReason,
			fmt.Errorf("ServiceAccount %s may not read what the headers refer to, so they are not sent: %w", obj.Spec.ServiceAccountName, err))
	case errors.As(err, &missing):
		reason := kubagev1alpha1.SecretNotFoundReason
		if missing.Kind == "ConfigMap" {
			reason = kubagev1alpha1.ConfigMapNotFoundReason
		}
		toolServerChecks.WithLabelValues(reason).Inc()
		return ctrl.Result{}, serror.NewStalling(reason, err)
	case err != nil:
		return ctrl.Result{}, err
	}
	for name, value := range headers {
		if !validHeaderValue(value) {
			return ctrl.Result{}, serror.NewStalling(kubagev1alpha1.InvalidSpecReason,
				fmt.Errorf("the value of header %s contains control characters", name))
		}
	}
	run.headers = headers
	return ctrl.Result{}, nil
}

// discover connects to the server, lists its tools and records them; on failure it
// keeps the last-known tools and counts the failure for the backoff.
func (run *toolServerRun) discover(ctx context.Context, obj *kubagev1alpha1.ToolServer) (ctrl.Result, error) {
	cfg := registry.ConfigFor(obj, run.headers)
	cfg.MaxTools = maxListedTools
	// Each request is bounded by the timeout; the whole check by a few of them.
	ctx, cancel := context.WithTimeout(ctx, 3*cfg.Timeout)
	defer cancel()

	ctrl.LoggerFrom(ctx).V(1).Info("Checking MCP server", "ToolServer", klog.KObj(obj), "transport", cfg.Transport)
	start := time.Now()
	d, err := run.r.Discover(ctx, cfg)
	toolServerDiscoverySeconds.Observe(time.Since(start).Seconds())
	if err != nil {
		reason := string(kmcp.ReasonOf(err))
		toolServerChecks.WithLabelValues(reason).Inc()
		obj.Status.ConsecutiveFailures++
		return ctrl.Result{}, probeFailure(obj, reason, err)
	}
	toolServerChecks.WithLabelValues(kubagev1alpha1.ConnectedReason).Inc()

	now := metav1.NewTime(time.Now())
	obj.Status.DiscoveredTools = discoveredTools(obj.Spec.Tools, d.Tools.Tools)
	obj.Status.ToolCount = int32(len(d.Tools.Tools))
	obj.Status.ServerInfo = &kubagev1alpha1.ServerInfo{
		Name:            truncate(d.Server.Name, 253),
		Version:         truncate(d.Server.Version, 64),
		ProtocolVersion: truncate(d.Server.ProtocolVersion, 32),
	}
	obj.Status.LastSeenTime = &now
	obj.Status.ConsecutiveFailures = 0
	return ctrl.Result{RequeueAfter: healthCheckInterval(obj)}, nil
}

// probeFailure is a failed health check: the server, not the spec, is at fault. The
// check is retried on the ToolServer's own backoff, not controller-runtime's, which
// starts at milliseconds; the message says what to look at.
func probeFailure(obj *kubagev1alpha1.ToolServer, reason string, err error) *serror.Waiting {
	return &serror.Waiting{Reason: reason, Err: fmt.Errorf("%w%s", err, probeHint(reason)),
		RequeueAfter: healthCheckBackoff(obj.Status.ConsecutiveFailures, healthCheckInterval(obj))}
}

// healthCheckInterval is spec.healthCheckInterval or its default.
func healthCheckInterval(obj *kubagev1alpha1.ToolServer) time.Duration {
	if obj.Spec.HealthCheckInterval != nil && obj.Spec.HealthCheckInterval.Duration > 0 {
		return obj.Spec.HealthCheckInterval.Duration
	}
	return defaultHealthCheckInterval
}

// healthCheckBackoff is the wait after the n-th consecutive failure: 2s, 4s, 8s, ...
// up to the larger of the interval and five minutes, so an outage is noticed ending
// quickly at first and a long one is not hammered.
func healthCheckBackoff(failures int32, interval time.Duration) time.Duration {
	ceiling := max(interval, minMaxBackoff)
	d := firstRetry
	for i := int32(1); i < failures && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}

// validHeaderValue rejects control characters, which net/http would refuse to send.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func newToolServerList() client.ObjectList { return &kubagev1alpha1.ToolServerList{} }

// referenceReader is how obj's header references are read: as the ServiceAccount it
// names, or with the operator's rights unless the operator requires an account.
func (r *ToolServerReconciler) referenceReader(obj *kubagev1alpha1.ToolServer) (client.Reader, error) {
	if sa := obj.Spec.ServiceAccountName; sa != "" {
		return r.AsServiceAccount(obj.Namespace, sa)
	}
	if r.RequireServiceAccount && len(registry.ReferencedSecrets(obj)) > 0 {
		return nil, serror.NewStalling(kubagev1alpha1.ForbiddenReason, errors.New(
			"spec.serviceAccountName is required: this operator reads the Secrets of headers only as a ServiceAccount the ToolServer names, so they are not sent"))
	}
	return r.APIReader, nil
}
