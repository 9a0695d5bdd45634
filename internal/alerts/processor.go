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

package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/text"
)

// Outcome is what became of one alert.
type Outcome string

const (
	OutcomeCreated           Outcome = "created"
	OutcomeDuplicate         Outcome = "duplicate"
	OutcomeResolved          Outcome = "resolved"
	OutcomeResolvedNoSession Outcome = "resolvedNoSession"
	OutcomeSkipped           Outcome = "skipped"
	OutcomeRejected          Outcome = "rejected"
)

// AlertResult reports one alert of a payload back to the sender.
type AlertResult struct {
	Fingerprint string  `json:"fingerprint"`
	AlertName   string  `json:"alertname"`
	Status      string  `json:"status"`
	Outcome     Outcome `json:"outcome"`
	Namespace   string  `json:"namespace,omitempty"`
	Session     string  `json:"session,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	Message     string  `json:"message,omitempty"`
}

// Summary is the answer to one payload: counts, then one result per alert in order.
type Summary struct {
	Received int `json:"received"`
	Created  int `json:"created"`
	// Queued counts the created alerts whose session is accepted into the journal and
	// not stored by the API server yet (journaled intake only).
	Queued            int           `json:"queued,omitempty"`
	Duplicates        int           `json:"duplicates"`
	Resolved          int           `json:"resolved"`
	ResolvedNoSession int           `json:"resolvedNoSession"`
	Skipped           int           `json:"skipped"`
	Rejected          int           `json:"rejected"`
	Alerts            []AlertResult `json:"alerts"`
}

// TransientError is a failure to reach or write to the API server; the sender should
// retry the whole payload, which is safe because every write is idempotent.
type TransientError struct{ Err error }

func (e *TransientError) Error() string { return "transient: " + e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// ProcessorOptions tune a Processor; zero values take the defaults.
type ProcessorOptions struct {
	// Parallelism is how many alerts of one payload are written at once (default 8).
	Parallelism int
	// SeenCacheSize bounds the fingerprints remembered for de-duplication (default 100000).
	SeenCacheSize int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Sessions, when set, is where a fingerprint the replica has not met yet is looked up
	// for the cooldown (its newest session), so the cooldown survives restarts and holds
	// across replicas; nil keeps the cooldown in this replica's memory only. A cache with
	// FingerprintIndex (SessionsIndexed) keeps the lookup cheap during a storm.
	Sessions        client.Reader
	SessionsIndexed bool
	// Journal, when set, makes the receiver answer once a new session is fsynced into
	// it; workers (Start) then create the sessions. Nil creates them before answering.
	Journal *Journal
	// Workers creating journaled sessions (default DefaultIntakeWorkers), and how many
	// may wait before the receiver answers 503 (default DefaultMaxPending).
	Workers    int
	MaxPending int
}

// Processor turns parsed payloads into API writes: one create per new occurrence, one
// metadata patch per resolution, nothing for repeats it has already seen.
type Processor struct {
	client client.Client
	reader client.Reader
	policy PolicySource
	opts   ProcessorOptions

	seen       *seenCache
	namespaces *namespaceCache
	intake     *intake
	creates    singleflight.Group
	writes     atomic.Int64
}

// NewProcessor builds a Processor that writes with c and reads Namespaces with r (an
// uncached reader, so no cluster-wide Namespace informer is needed).
func NewProcessor(c client.Client, r client.Reader, policy PolicySource, opts ProcessorOptions) *Processor {
	if opts.Parallelism <= 0 {
		opts.Parallelism = 8
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p := &Processor{
		client: c, reader: r, policy: policy, opts: opts,
		// Remember fingerprints for a day at most: Alertmanager repeats every 4h by default.
		seen:       newSeenCache(opts.SeenCacheSize, 24*time.Hour),
		namespaces: newNamespaceCache(r),
	}
	if opts.Journal != nil {
		p.intake = newIntake(p, opts.Journal, opts.Workers, opts.MaxPending)
	}
	return p
}

// Start runs the workers that create journaled sessions until ctx ends (a manager
// Runnable, on every replica); without a journal it only waits.
func (p *Processor) Start(ctx context.Context) error {
	if p.intake == nil {
		<-ctx.Done()
		return nil
	}
	return p.intake.run(ctx)
}

// NeedLeaderElection is false: every replica creates what its own receiver accepted.
func (p *Processor) NeedLeaderElection() bool { return false }

// Pending is the number of accepted sessions not created yet (0 without a journal).
func (p *Processor) Pending() int {
	if p.intake == nil {
		return 0
	}
	return p.intake.journal.Len()
}

// Writes is the number of API writes (creates and patches) made so far.
func (p *Processor) Writes() int64 { return p.writes.Load() }

// Process handles every alert of a payload and returns once all writes are done. A
// TransientError means some alerts may not be recorded yet and the payload should be
// sent again.
func (p *Processor) Process(ctx context.Context, payload *Payload) (*Summary, error) {
	if p.intake != nil {
		p.intake.received()
	}
	pol, err := p.policy.Policy(ctx)
	if err != nil {
		return nil, &TransientError{Err: fmt.Errorf("alert policy: %w", err)}
	}
	now := p.opts.Now()
	results := make([]AlertResult, len(payload.Alerts))
	errs := make([]error, len(payload.Alerts))
	sem := make(chan struct{}, p.opts.Parallelism)
	var wg sync.WaitGroup
	for i := range payload.Alerts {
		a := &payload.Alerts[i]
		alertsReceived.WithLabelValues(a.Status).Inc()
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if a.Status == StatusResolved {
				results[i], errs[i] = p.resolved(ctx, pol, a, payload.Receiver, now)
			} else {
				results[i], errs[i] = p.firing(ctx, pol, a, payload.Receiver, now)
			}
		}()
	}
	wg.Wait()

	s := &Summary{Received: len(results), Alerts: results}
	for i := range results {
		r, al := &results[i], &payload.Alerts[i]
		r.Fingerprint, r.AlertName, r.Status = al.Fingerprint, text.Clip(al.Name(), 256), al.Status
		switch r.Outcome {
		case OutcomeCreated:
			s.Created++
			if p.intake != nil && p.intake.pending(r.Namespace, r.Session) {
				s.Queued++
			}
		case OutcomeDuplicate:
			s.Duplicates++
		case OutcomeResolved:
			s.Resolved++
		case OutcomeResolvedNoSession:
			s.ResolvedNoSession++
		case OutcomeSkipped:
			s.Skipped++
		case OutcomeRejected:
			s.Rejected++
		}
	}
	if err := errors.Join(errs...); err != nil {
		return s, &TransientError{Err: err}
	}
	return s, nil
}

// firing creates the session for a firing alert unless it exists, is excluded, or is a
// new occurrence inside the fingerprint's cooldown.
func (p *Processor) firing(ctx context.Context, pol *CompiledPolicy, a *Alert, receiver string, now time.Time) (AlertResult, error) {
	if !pol.Investigate(a.Labels) {
		return skipped(ReasonPolicyExcluded, "the alert policy's matchers exclude this alert"), nil
	}
	ts, rej := BuildSession(a, receiver, pol, now)
	if rej != nil {
		return rejected(rej.Reason, rej.Message, ""), nil
	}
	res := AlertResult{Namespace: ts.Namespace, Session: ts.Name}
	e, ok := p.seen.get(a.Fingerprint, now)
	if !ok && p.opts.Sessions != nil && pol.CooldownDuration() > 0 {
		name, created, found, err := p.latestSession(ctx, ts.Namespace, a.Fingerprint)
		if err != nil {
			return AlertResult{}, err
		}
		if found {
			p.seen.putCreated(a.Fingerprint, name, created, now)
			e, ok = p.seen.get(a.Fingerprint, now)
		}
	}
	if ok {
		if e.name == ts.Name {
			duplicatesSuppressed.Inc()
			res.Outcome = OutcomeDuplicate
			return res, nil
		}
		if cd := pol.CooldownDuration(); now.Sub(e.createdAt) < cd {
			r := skipped(ReasonCooldown, fmt.Sprintf("session %s for this fingerprint is younger than the cooldown of %s", e.name, cd))
			r.Namespace = ts.Namespace
			return r, nil
		}
	}
	if rej, err := p.namespaces.check(ctx, ts.Namespace); err != nil {
		return AlertResult{}, err
	} else if rej != nil {
		return rejected(rej.Reason, rej.Message, ts.Namespace), nil
	}

	// Concurrent notifications of the same occurrence share one create; only the caller
	// whose function ran reports "created".
	ran := false
	v, err, _ := p.creates.Do(ts.Namespace+"/"+ts.Name, func() (any, error) {
		ran = true
		if p.intake != nil {
			return p.intake.accept(ts, now)
		}
		return p.create(ctx, ts)
	})
	if err != nil {
		return AlertResult{}, err
	}
	out := v.(createResult)
	switch {
	case out.rejection != nil:
		return rejected(out.rejection.Reason, out.rejection.Message, ts.Namespace), nil
	case out.created && ran:
		res.Outcome = OutcomeCreated
	default:
		duplicatesSuppressed.Inc()
		res.Outcome = OutcomeDuplicate
	}
	p.seen.put(a.Fingerprint, ts.Name, now)
	return res, nil
}

type createResult struct {
	created   bool
	rejection *Rejection
}

func (p *Processor) create(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) (createResult, error) {
	log := ctrl.LoggerFrom(ctx)
	p.writes.Add(1)
	apiWrites.WithLabelValues("create").Inc()
	// The object is built from typed fields: the API server need not check for unknown ones.
	err := p.client.Create(ctx, ts, client.FieldValidation("Ignore"))
	switch {
	case err == nil:
		sessionsCreated.Inc()
		log.Info("Created Troubleshoot for alert", "Troubleshoot", client.ObjectKeyFromObject(ts), "alertname", ts.Spec.Alert.AlertName, "fingerprint", ts.Spec.Alert.Fingerprint)
		return createResult{created: true}, nil
	case apierrors.IsAlreadyExists(err):
		return createResult{}, nil
	case apierrors.IsInvalid(err):
		return createResult{rejection: reject(ReasonInvalidObject, "the API server refused the session: %s", text.Clip(err.Error(), 512))}, nil
	case apierrors.IsNotFound(err):
		p.namespaces.forget(ts.Namespace)
		return createResult{rejection: reject(ReasonNamespaceNotFound, "namespace %s does not exist", ts.Namespace)}, nil
	case apierrors.IsForbidden(err):
		p.namespaces.forget(ts.Namespace)
		return createResult{rejection: reject(ReasonForbidden, "%s", text.Clip(err.Error(), 512))}, nil
	default:
		return createResult{}, fmt.Errorf("creating Troubleshoot %s/%s: %w", ts.Namespace, ts.Name, err)
	}
}

// resolved records the resolution on the occurrence's session, if there is one.
func (p *Processor) resolved(ctx context.Context, pol *CompiledPolicy, a *Alert, _ string, now time.Time) (AlertResult, error) {
	if reason, msg := checkAlertContent(a); reason != "" {
		return rejected(reason, msg, ""), nil
	}
	ns, rej := sessionNamespace(a, pol)
	if rej != nil {
		alertsResolved.WithLabelValues("no_session").Inc()
		return AlertResult{Outcome: OutcomeResolvedNoSession, Reason: rej.Reason, Message: rej.Message}, nil
	}
	name := SessionName(a.Name(), a.Fingerprint, a.StartsAt)
	res := AlertResult{Namespace: ns, Session: name, Outcome: OutcomeResolved}
	if e, ok := p.seen.get(a.Fingerprint, now); ok && e.name == name && e.resolved {
		alertsResolved.WithLabelValues("recorded").Inc()
		return res, nil
	}
	at := a.EndsAt
	if at.IsZero() || at.Year() < 1970 || at.Year() > 9999 {
		at = now
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels":      map[string]string{LabelAlertStatus: StatusResolved},
		"annotations": map[string]string{AnnotationResolvedAt: at.UTC().Format(time.RFC3339)},
	}})
	if err != nil {
		return AlertResult{}, err
	}
	if p.intake != nil {
		// A session still in the journal is created first, so the resolution lands on it.
		if err := p.intake.ensure(ctx, ns, name); err != nil {
			return AlertResult{}, err
		}
	}
	ts := &kubagev1alpha1.Troubleshoot{}
	ts.Namespace, ts.Name = ns, name
	p.writes.Add(1)
	apiWrites.WithLabelValues("patch").Inc()
	err = p.client.Patch(ctx, ts, client.RawPatch(types.MergePatchType, patch))
	switch {
	case err == nil:
		alertsResolved.WithLabelValues("recorded").Inc()
		p.seen.markResolved(a.Fingerprint, name, now)
		ctrl.LoggerFrom(ctx).Info("Recorded alert resolution", "Troubleshoot", client.ObjectKeyFromObject(ts))
		return res, nil
	case apierrors.IsNotFound(err):
		alertsResolved.WithLabelValues("no_session").Inc()
		return AlertResult{Namespace: ns, Outcome: OutcomeResolvedNoSession, Message: "no session for this occurrence"}, nil
	case apierrors.IsForbidden(err), apierrors.IsInvalid(err):
		return rejected(ReasonForbidden, text.Clip(err.Error(), 512), ns), nil
	default:
		return AlertResult{}, fmt.Errorf("patching Troubleshoot %s/%s: %w", ns, name, err)
	}
}

func skipped(reason, msg string) AlertResult {
	alertsSkipped.WithLabelValues(reason).Inc()
	return AlertResult{Outcome: OutcomeSkipped, Reason: reason, Message: msg}
}

func rejected(reason, msg, ns string) AlertResult {
	alertsRejected.WithLabelValues(reason).Inc()
	return AlertResult{Outcome: OutcomeRejected, Reason: reason, Message: msg, Namespace: ns}
}

// namespaceCache answers "may a session be created in this namespace?" from a short-lived
// cache, so a storm costs one Namespace read per namespace per TTL.
type namespaceCache struct {
	reader client.Reader
	mu     sync.Mutex
	items  map[string]nsEntry
	flight singleflight.Group
}

type nsEntry struct {
	rej *Rejection
	at  time.Time
}

const (
	nsPositiveTTL = 30 * time.Second
	nsNegativeTTL = 5 * time.Second
	nsCacheMax    = 10000
)

func newNamespaceCache(r client.Reader) *namespaceCache {
	return &namespaceCache{reader: r, items: map[string]nsEntry{}}
}

func (c *namespaceCache) check(ctx context.Context, ns string) (*Rejection, error) {
	c.mu.Lock()
	e, ok := c.items[ns]
	c.mu.Unlock()
	ttl := nsPositiveTTL
	if e.rej != nil {
		ttl = nsNegativeTTL
	}
	if ok && time.Since(e.at) < ttl {
		return e.rej, nil
	}
	v, err, _ := c.flight.Do(ns, func() (any, error) {
		var obj corev1.Namespace
		err := c.reader.Get(ctx, client.ObjectKey{Name: ns}, &obj)
		var rej *Rejection
		switch {
		case apierrors.IsNotFound(err):
			rej = reject(ReasonNamespaceNotFound, "namespace %s does not exist", ns)
		case err != nil:
			return nil, fmt.Errorf("reading namespace %s: %w", ns, err)
		case obj.DeletionTimestamp != nil || obj.Status.Phase == corev1.NamespaceTerminating:
			rej = reject(ReasonNamespaceTerminating, "namespace %s is being deleted", ns)
		}
		c.mu.Lock()
		if len(c.items) >= nsCacheMax {
			c.items = map[string]nsEntry{}
		}
		c.items[ns] = nsEntry{rej: rej, at: time.Now()}
		c.mu.Unlock()
		return rej, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Rejection), nil
}

func (c *namespaceCache) forget(ns string) {
	c.mu.Lock()
	delete(c.items, ns)
	c.mu.Unlock()
}
