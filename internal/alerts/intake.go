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
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// Defaults of the journaled intake.
const (
	DefaultIntakeWorkers = 4
	DefaultMaxPending    = 50000
)

// intake creates the sessions the journal accepted, with a few workers: the receiver
// answers once a session is on disk, not once the API server has stored it, so a storm is
// bounded by the disk and not by the API server's create rate.
type intake struct {
	p          *Processor
	journal    *Journal
	queue      workqueue.TypedRateLimitingInterface[string]
	workers    int
	maxPending int
	lastPost   atomic.Int64 // unix nanoseconds of the last payload received
}

// quietAfter is how long after the last payload the receiver counts as idle. While
// payloads keep coming, one worker creates sessions and the others wait: the API server's
// creates then cannot take the CPU (and the API server's priority share) that answering the
// storm needs, and the backlog is created at full speed once it is over.
const quietAfter = 100 * time.Millisecond

// received notes a payload.
func (in *intake) received() { in.lastPost.Store(time.Now().UnixNano()) }

// waitQuiet holds an extra worker back while payloads are arriving.
func (in *intake) waitQuiet(ctx context.Context) {
	for ctx.Err() == nil {
		since := time.Since(time.Unix(0, in.lastPost.Load()))
		if since >= quietAfter {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(quietAfter - since):
		}
	}
}

func newIntake(p *Processor, j *Journal, workers, maxPending int) *intake {
	if workers <= 0 {
		workers = DefaultIntakeWorkers
	}
	if maxPending <= 0 {
		maxPending = DefaultMaxPending
	}
	in := &intake{
		p: p, journal: j, workers: workers, maxPending: maxPending,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 30*time.Second)),
	}
	// What an earlier run accepted and did not create: remembered for de-duplication and
	// the cooldown from the time it was accepted, and queued again.
	sessions, at := j.Pending()
	now := p.opts.Now()
	for i, ts := range sessions {
		p.seen.putCreated(ts.Labels[LabelAlertFingerprint], ts.Name, at[i], now)
		in.queue.Add(ts.Namespace + "/" + ts.Name)
	}
	sessionsPending.Set(float64(len(sessions)))
	return in
}

// accept journals a new session; the answer is a duplicate when the session is already
// pending. Concurrent callers for one session are serialised by the Processor.
func (in *intake) accept(ts *kubagev1alpha1.Troubleshoot, now time.Time) (createResult, error) {
	key := ts.Namespace + "/" + ts.Name
	if in.journal.has(key) {
		return createResult{}, nil
	}
	if n := in.journal.Len(); n >= in.maxPending {
		return createResult{}, fmt.Errorf("%d sessions are waiting to be created; the receiver takes no more until they are", n)
	}
	if err := in.journal.Accept(ts, now); err != nil {
		return createResult{}, err
	}
	in.queue.Add(key)
	sessionsPending.Set(float64(in.journal.Len()))
	return createResult{created: true}, nil
}

// pending reports whether a session is accepted and not created yet.
func (in *intake) pending(namespace, name string) bool {
	return in.journal.has(namespace + "/" + name)
}

// ensure creates a pending session now (a resolution must find it), and is a no-op for
// any other.
func (in *intake) ensure(ctx context.Context, namespace, name string) error {
	key := namespace + "/" + name
	ts, ok := in.journal.session(key)
	if !ok {
		return nil
	}
	return in.createOne(ctx, key, ts)
}

// createOne creates a journaled session and finishes its record unless the failure is
// transient.
func (in *intake) createOne(ctx context.Context, key string, ts *kubagev1alpha1.Troubleshoot) error {
	out, err := in.p.create(ctx, ts)
	if err != nil {
		return err
	}
	if r := out.rejection; r != nil {
		sessionsDropped.WithLabelValues(r.Reason).Inc()
		ctrl.LoggerFrom(ctx).Error(errors.New(r.Message), "Dropping an accepted alert session the API server refuses", "Troubleshoot", key, "reason", r.Reason)
	}
	in.journal.Finish(ts.Namespace, ts.Name)
	sessionsPending.Set(float64(in.journal.Len()))
	return nil
}

// drainTimeout bounds how long a stopping receiver keeps creating its pending sessions,
// within the manager's graceful shutdown (30s by default).
const drainTimeout = 20 * time.Second

// run creates the pending sessions until ctx ends, then for up to drainTimeout more, so a
// replica that is shut down (not killed) leaves nothing behind in a volume that may go
// with its pod; what is still pending is created by the next start on the same volume.
func (in *intake) run(ctx context.Context) error {
	log := ctrl.Log.WithName("alerts")
	workCtx, cancel := context.WithCancel(ctrl.LoggerInto(context.WithoutCancel(ctx), log))
	defer cancel()
	var wg sync.WaitGroup
	for i := range in.workers {
		wg.Go(func() {
			for {
				if i > 0 {
					in.waitQuiet(ctx)
				}
				if !in.next(workCtx) {
					return
				}
			}
		})
	}
	<-ctx.Done()
	for deadline := time.Now().Add(drainTimeout); in.journal.Len() > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := in.journal.Len(); n > 0 {
		log.Info("Stopping with alert sessions not created yet; the next start on this volume creates them", "pending", n)
	}
	cancel()
	in.queue.ShutDown()
	wg.Wait()
	return in.journal.Close()
}

func (in *intake) next(ctx context.Context) bool {
	key, shutdown := in.queue.Get()
	if shutdown {
		return false
	}
	defer in.queue.Done(key)
	ts, ok := in.journal.session(key)
	if !ok {
		in.queue.Forget(key)
		return true
	}
	if err := in.createOne(ctx, key, ts); err != nil {
		if ctx.Err() == nil {
			ctrl.LoggerFrom(ctx).Error(err, "Creating an accepted alert session failed; retrying", "Troubleshoot", key)
			in.queue.AddRateLimited(key)
		}
		return true
	}
	in.queue.Forget(key)
	return true
}
