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
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/egress"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/knowledge"
)

const (
	// KnowledgeSourceFinalizer removes a source's chunks from its store before the object goes.
	KnowledgeSourceFinalizer = "kubage.io/knowledge-index"

	// knowledgeConfigMapIndex indexes KnowledgeSources by the ConfigMap they read, so a
	// change of one re-reconciles only its users.
	knowledgeConfigMapIndex = "kubage.io/knowledge-configmaps"

	// defaultRefreshInterval applies when spec.refreshInterval is unset.
	defaultRefreshInterval = time.Hour
	// indexTimeout bounds one fetch-and-index run, so a hung remote cannot hold a worker.
	indexTimeout = 10 * time.Minute
	// firstIndexRetry is the wait after the first failed run; it doubles per failure up
	// to maxIndexRetry (or the refresh interval, when shorter).
	firstIndexRetry = 5 * time.Second
	maxIndexRetry   = 10 * time.Minute
	// cleanupGracePeriod is how long deletion waits for an unreachable store before it
	// lets the object go and leaves its chunks behind.
	cleanupGracePeriod = 10 * time.Minute
	// maxFailedDocuments bounds status.failedDocuments (the API allows 20).
	maxFailedDocuments = 20
)

var (
	knowledgeIndexRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_knowledge_index_runs_total",
		Help: "KnowledgeSource indexing runs by outcome (Indexed, UpToDate or the failure reason).",
	}, []string{"reason"})
	knowledgeIndexSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "kubage_knowledge_index_duration_seconds",
		Help:    "Time to fetch a KnowledgeSource and bring its index up to date.",
		Buckets: prometheus.ExponentialBuckets(0.01, 3, 12),
	})
	knowledgeDocuments = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_knowledge_documents_total",
		Help: "Documents seen by indexing runs, by what happened to them (added, updated, removed, unchanged, failed).",
	}, []string{"action"})
)

func init() {
	metrics.Registry.MustRegister(knowledgeIndexRuns, knowledgeIndexSeconds, knowledgeDocuments)
}

// KnowledgeSourceReconciler fetches, chunks and indexes a KnowledgeSource into the
// operator's knowledge service. The embedded index lives in memory: after a restart the
// service knows no source, so the first reconcile of each one re-indexes it in full.
type KnowledgeSourceReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// APIReader reads Secrets and ConfigMaps without a cache; set from the manager when nil.
	APIReader client.Reader
	// secretUse records the Secret versions reconciles read, for the Secret poller.
	secretUse *secretTracker
	// AsServiceAccount returns a reader acting as a ServiceAccount of a namespace, for
	// sources that name one; built from the manager's config when nil.
	AsServiceAccount func(namespace, name string) (client.Reader, error)
	// RequireServiceAccount refuses sources that refer to Secrets unless they name a
	// ServiceAccount to read them as (Options.SecretsNeedServiceAccount).
	RequireServiceAccount bool
	// Knowledge is the shared knowledge service the sources are indexed into; required.
	Knowledge *knowledge.Service
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	// sources translates specs into what the knowledge service indexes.
	sources *knowledge.SpecResolver

	mu    sync.Mutex
	state map[types.NamespacedName]*sourceState
}

// sourceState is what the reconciler keeps between runs of one source.
type sourceState struct {
	// failures counts consecutive failed runs, for the retry backoff.
	failures int
}

// SetupWithManager registers the reconciler. Spec and label changes (labels select
// sources for sessions), ReconcileRequestedAnnotation (to pick up a new commit before the
// refresh interval) and changes of referenced Secrets and ConfigMaps trigger it; status
// writes do not.
func (r *KnowledgeSourceReconciler) SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if r.Knowledge == nil {
		return errors.New("the KnowledgeSource reconciler needs a knowledge service")
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.AsServiceAccount == nil {
		r.AsServiceAccount = newImpersonatingReaders(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}).For
	}
	r.RequireServiceAccount = r.RequireServiceAccount || opts.SecretsNeedServiceAccount
	r.sources = knowledge.NewSpecResolver(refReader{r.APIReader})
	r.sources.Workspace = r.Knowledge.GitWorkspace()
	if err := mgr.Add(&forgetDeletedSources{cache: mgr.GetCache(), knowledge: r.Knowledge}); err != nil {
		return fmt.Errorf("adding the restored-source check: %w", err)
	}
	ctx := context.Background()
	indexer := mgr.GetFieldIndexer()
	if err := indexer.IndexField(ctx, &kubagev1alpha1.KnowledgeSource{}, knowledgeConfigMapIndex, func(o client.Object) []string {
		if ref := o.(*kubagev1alpha1.KnowledgeSource).Spec.ConfigMapRef; ref != nil {
			return []string{ref.Name}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("indexing KnowledgeSources by ConfigMap: %w", err)
	}
	chunks := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "kubage_knowledge_embedded_chunks",
		Help: "Chunks held by the operator's embedded knowledge store.",
	}, func() float64 { return float64(r.Knowledge.Embedded().Len()) })
	if err := metrics.Registry.Register(chunks); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		return fmt.Errorf("registering the embedded chunks gauge: %w", err)
	}
	// Secrets are polled by name, not watched: the operator may not list or watch them.
	r.secretUse = newSecretTracker()
	secrets := newSecretPoller(mgr.GetClient(), r.APIReader, newKnowledgeSourceList, func(o client.Object) []string {
		return knowledge.ReferencedSecrets(o.(*kubagev1alpha1.KnowledgeSource))
	}, r.secretUse, opts.SecretPollInterval)
	if err := mgr.Add(secrets); err != nil {
		return fmt.Errorf("adding the KnowledgeSource Secret poller: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&kubagev1alpha1.KnowledgeSource{}, builder.WithPredicates(inWatchSelector(opts.WatchSelector),
			predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, reconcileRequested{}))).
		WatchesRawSource(secrets.Source()).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(usersOf(r.Client, newKnowledgeSourceList, knowledgeConfigMapIndex)), builder.OnlyMetadata).
		Named("knowledgesource").
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Complete(r)
}

// Reconcile loads the object, runs the steps and patches the status once at the end.
func (r *KnowledgeSourceReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	log := ctrl.LoggerFrom(ctx)

	obj := &kubagev1alpha1.KnowledgeSource{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !obj.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, obj)
	}
	if !controllerutil.ContainsFinalizer(obj, KnowledgeSourceFinalizer) {
		base := obj.DeepCopy()
		controllerutil.AddFinalizer(obj, KnowledgeSourceFinalizer)
		if err := r.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	run := &knowledgeSourceRun{r: r, before: obj.DeepCopy(), now: r.now()}

	defer func() {
		summarizeKnowledgeSource(obj, retErr)
		if err := patchStatus(ctx, r.Client, run.before, obj, &run.before.Status, &obj.Status); err != nil {
			retErr = kerrors.NewAggregate([]error{retErr, err})
			return
		}
		recordReadyTransition(r.Recorder, obj, run.before.Status.Conditions, obj.Status.Conditions)
		recordFailureEvent(r.Recorder, obj, retErr)
		result, retErr = resultFor(result, retErr)
	}()

	log.V(1).Info("Reconciling", "KnowledgeSource", klog.KObj(obj), "phase", obj.Status.Phase, "revision", obj.Status.Revision)
	return runSteps(ctx, obj, []step[*kubagev1alpha1.KnowledgeSource]{
		run.initialize,
		run.resolve,
		run.markIndexing,
		run.index,
	})
}

func (r *KnowledgeSourceReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// stateOf returns the kept state of one source, creating it.
func (r *KnowledgeSourceReconciler) stateOf(key types.NamespacedName) *sourceState {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		r.state = map[types.NamespacedName]*sourceState{}
	}
	st := r.state[key]
	if st == nil {
		st = &sourceState{}
		r.state[key] = st
	}
	return st
}

func (r *KnowledgeSourceReconciler) forget(key types.NamespacedName) {
	r.mu.Lock()
	delete(r.state, key)
	r.mu.Unlock()
	r.sources.Forget(key.Namespace, key.Name)
}

// finalize removes the source's chunks from its store and then the finalizer. A store
// that stays unreachable for cleanupGracePeriod does not block the deletion forever.
func (r *KnowledgeSourceReconciler) finalize(ctx context.Context, obj *kubagev1alpha1.KnowledgeSource) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	if !controllerutil.ContainsFinalizer(obj, KnowledgeSourceFinalizer) {
		r.forget(client.ObjectKeyFromObject(obj))
		return ctrl.Result{}, nil
	}
	milvusCfg := r.sources.RemovalStore(ctx, obj)
	log.Info("Removing the source from the knowledge store", "KnowledgeSource", klog.KObj(obj))
	if err := r.Knowledge.Remove(ctx, obj.Namespace, obj.Name, milvusCfg); err != nil {
		if r.now().Sub(obj.DeletionTimestamp.Time) < cleanupGracePeriod {
			return ctrl.Result{}, fmt.Errorf("removing the source from its store: %w", err)
		}
		log.Error(err, "Giving up removing the source from its store; its chunks stay behind", "KnowledgeSource", klog.KObj(obj))
		if r.Recorder != nil {
			r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, kubagev1alpha1.CleanupFailedReason, "Delete", "%s", truncate(err.Error(), maxConditionMessage))
		}
	}
	base := obj.DeepCopy()
	controllerutil.RemoveFinalizer(obj, KnowledgeSourceFinalizer)
	if err := r.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.forget(client.ObjectKeyFromObject(obj))
	return ctrl.Result{}, nil
}

// knowledgeSourceRun carries what one reconcile learns from step to step.
type knowledgeSourceRun struct {
	r *KnowledgeSourceReconciler
	// before is the status as last written, the base of the final status patch.
	before *kubagev1alpha1.KnowledgeSource
	now    time.Time
	cfg    knowledge.SourceConfig
}

// initialize puts a new source in Pending.
func (run *knowledgeSourceRun) initialize(_ context.Context, obj *kubagev1alpha1.KnowledgeSource) (ctrl.Result, error) {
	if obj.Status.Phase == "" {
		obj.Status.Phase = kubagev1alpha1.KnowledgePending
	}
	return ctrl.Result{}, nil
}

// resolve turns the spec and the objects it refers to into what the knowledge service
// indexes (see knowledge.SpecResolver). Missing Secrets or ConfigMaps and unusable
// settings stall the source until they change (the ConfigMap watch and the Secret poller
// bring it back); an embedding endpoint that fails before indexing starts is a failed
// run like a failed fetch.
func (run *knowledgeSourceRun) resolve(ctx context.Context, obj *kubagev1alpha1.KnowledgeSource) (ctrl.Result, error) {
	reader, err := run.r.referenceReader(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	reader = recordingReader{Reader: reader, used: run.r.secretUse, user: client.ObjectKeyFromObject(obj)}
	cfg, err := run.r.sources.Resolve(withRefReader(ctx, reader), obj)
	if apierrors.IsForbidden(err) {
		return ctrl.Result{}, serror.NewStalling(kubagev1alpha1.ForbiddenReason,
			fmt.Errorf("ServiceAccount %s may not read what this source refers to, so it is not fetched: %w", obj.Spec.ServiceAccountName, err))
	}
	var waiting *serror.Waiting
	if errors.As(err, &waiting) {
		return ctrl.Result{}, run.fail(ctx, obj, waiting.Reason, waiting.Err)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	run.cfg = cfg
	return ctrl.Result{}, nil
}

// markIndexing shows phase Indexing while a new or changed spec is fetched for the first
// time; refreshes and retries of the same generation do not write the status twice.
func (run *knowledgeSourceRun) markIndexing(ctx context.Context, obj *kubagev1alpha1.KnowledgeSource) (ctrl.Result, error) {
	if obj.Status.ObservedGeneration == obj.Generation && obj.Status.Phase != kubagev1alpha1.KnowledgePending {
		return ctrl.Result{}, nil
	}
	obj.Status.Phase = kubagev1alpha1.KnowledgeIndexing
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{
		Type:               kubagev1alpha1.ReconcilingCondition,
		Status:             metav1.ConditionTrue,
		Reason:             kubagev1alpha1.ProgressingReason,
		Message:            "Fetching and indexing the source",
		ObservedGeneration: obj.Generation,
	})
	if err := patchStatus(ctx, run.r.Client, run.before, obj, &run.before.Status, &obj.Status); err != nil {
		return ctrl.Result{}, err
	}
	run.before = obj.DeepCopy()
	return ctrl.Result{}, nil
}

// index brings the source's index up to date and schedules the next check.
func (run *knowledgeSourceRun) index(ctx context.Context, obj *kubagev1alpha1.KnowledgeSource) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	state := run.r.stateOf(client.ObjectKeyFromObject(obj))
	interval := refreshInterval(obj)

	log.V(1).Info("Indexing", "KnowledgeSource", klog.KObj(obj), "previousRevision", obj.Status.Revision)
	ictx, cancel := context.WithTimeout(ctx, indexTimeout)
	stats, err := run.r.Knowledge.Index(ictx, run.cfg)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctrl.Result{}, ctx.Err()
		}
		return ctrl.Result{}, run.fail(ctx, obj, indexFailureReason(err), err)
	}
	state.failures = 0
	knowledgeIndexSeconds.Observe(stats.Duration.Seconds())
	recordDocumentCounts(stats)
	if stats.RevisionUnchanged {
		knowledgeIndexRuns.WithLabelValues(kubagev1alpha1.UpToDateReason).Inc()
	} else {
		knowledgeIndexRuns.WithLabelValues(kubagev1alpha1.IndexedReason).Inc()
		log.Info("Indexed", "KnowledgeSource", klog.KObj(obj), "revision", stats.Revision, "documents", stats.Docs,
			"chunks", stats.Chunks, "added", stats.Added, "updated", stats.Updated, "removed", stats.Removed,
			"failed", len(stats.Failed), "duration", stats.Duration)
	}

	st := &obj.Status
	st.Phase = kubagev1alpha1.KnowledgeReady
	st.Revision = truncate(stats.Revision, 128)
	st.DocumentCount = clampInt32(stats.Docs)
	st.ChunkCount = clampInt32(stats.Chunks)
	last := metav1.NewTime(run.now)
	st.LastIndexTime = &last
	if !stats.RevisionUnchanged {
		// An unchanged revision read nothing: the failures of the last full run still stand.
		st.FailedDocuments = failedDocuments(stats.Failed)
	}
	next := metav1.NewTime(run.now.Add(interval))
	st.NextIndexTime = &next
	return ctrl.Result{RequeueAfter: interval}, nil
}

// fail records a failed run: the retry backoff, the metric, and status counts that say
// what is still served. A failed fetch is weather, not a bug: it waits on the source's own
// backoff, not controller-runtime's, which starts at milliseconds.
func (run *knowledgeSourceRun) fail(ctx context.Context, obj *kubagev1alpha1.KnowledgeSource, reason string, err error) error {
	state := run.r.stateOf(client.ObjectKeyFromObject(obj))
	state.failures++
	retryAfter := indexRetry(state.failures, refreshInterval(obj))
	knowledgeIndexRuns.WithLabelValues(reason).Inc()
	ctrl.LoggerFrom(ctx).Info("Indexing failed; the last good index keeps serving", "KnowledgeSource", klog.KObj(obj),
		"reason", reason, "error", err.Error(), "retryAfter", retryAfter)
	run.reflectServedIndex(obj)
	next := metav1.NewTime(run.now.Add(retryAfter))
	obj.Status.NextIndexTime = &next
	return &serror.Waiting{Reason: reason, Err: err, RequeueAfter: max(retryAfter, firstIndexRetry)}
}

// refreshInterval is how often the source is checked for a new revision.
func refreshInterval(obj *kubagev1alpha1.KnowledgeSource) time.Duration {
	if obj.Spec.RefreshInterval != nil && obj.Spec.RefreshInterval.Duration > 0 {
		return obj.Spec.RefreshInterval.Duration
	}
	return defaultRefreshInterval
}

// reflectServedIndex makes the counts say what is searchable after a failed run: the
// last good index if this process holds one, nothing if the embedded store lost it.
func (run *knowledgeSourceRun) reflectServedIndex(obj *kubagev1alpha1.KnowledgeSource) {
	info, ok := run.r.Knowledge.Source(obj.Namespace, obj.Name)
	switch {
	case ok:
		obj.Status.Revision = truncate(info.Revision, 128)
		obj.Status.DocumentCount = clampInt32(info.Stats.Docs)
		obj.Status.ChunkCount = clampInt32(info.Stats.Chunks)
	case obj.Spec.Store.Type != kubagev1alpha1.StoreMilvus:
		obj.Status.Revision, obj.Status.DocumentCount, obj.Status.ChunkCount = "", 0, 0
		obj.Status.FailedDocuments = nil
	}
}

// indexRetry is the wait before retrying after n consecutive failures.
func indexRetry(n int, interval time.Duration) time.Duration {
	limit := min(maxIndexRetry, interval)
	d := firstIndexRetry
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// indexFailureReason names why a run failed, for the Ready condition.
func indexFailureReason(err error) string {
	var se *knowledge.StoreError
	switch {
	case egress.IsDenied(err):
		return kubagev1alpha1.EgressDeniedReason
	case errors.As(err, &se):
		return kubagev1alpha1.StoreErrorReason
	case errors.Is(err, knowledge.ErrTooLarge):
		return kubagev1alpha1.TooLargeReason
	case errors.Is(err, knowledge.ErrRefNotFound):
		return kubagev1alpha1.RefNotFoundReason
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		strings.Contains(err.Error(), "unable to authenticate"):
		return kubagev1alpha1.AuthFailedReason
	default:
		return kubagev1alpha1.FetchFailedReason
	}
}

func recordDocumentCounts(s *knowledge.IndexStats) {
	for action, n := range map[string]int{"added": s.Added, "updated": s.Updated, "removed": s.Removed, "unchanged": s.Unchanged, "failed": len(s.Failed)} {
		if n > 0 {
			knowledgeDocuments.WithLabelValues(action).Add(float64(n))
		}
	}
}

// failedDocuments keeps the first few per-document failures within the API's bounds.
func failedDocuments(errs []knowledge.DocumentError) []kubagev1alpha1.FailedDocument {
	if len(errs) == 0 {
		return nil
	}
	out := make([]kubagev1alpha1.FailedDocument, 0, min(len(errs), maxFailedDocuments))
	for _, e := range errs[:min(len(errs), maxFailedDocuments)] {
		p := truncate(e.Path, 1024)
		if p == "" {
			p = "(unknown)"
		}
		out = append(out, kubagev1alpha1.FailedDocument{Path: p, Error: truncate(e.Err, 1024)})
	}
	return out
}

func clampInt32(n int) int32 {
	return int32(min(max(n, 0), 1<<31-1))
}

func newKnowledgeSourceList() client.ObjectList { return &kubagev1alpha1.KnowledgeSourceList{} }
