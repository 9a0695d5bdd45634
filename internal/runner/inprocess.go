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

package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubage/kubage/internal/agent"
)

// InProcess runs tasks in goroutines of the operator. It remembers in-flight tasks in
// memory only: after a restart a task that was running is reported Missing, Orphaned
// since this process never started it, and the controller starts it again, which is safe
// because a task's result depends only on the session, the task and the cluster.
type InProcess struct {
	client       kubernetes.Interface
	investigator agent.Investigator
	taskTimeout  time.Duration
	// slots bounds the tasks running at once across all sessions; the controller bounds
	// each session by its spec.budget.parallelism.
	slots    chan struct{}
	finished chan Owner

	mu    sync.Mutex
	tasks map[string]*inflight
	// written holds the results this runner wrote until Check hands them over, so that
	// collecting a task needs no read of its ConfigMap.
	written map[string]writtenResult
	owners  map[string]*ownerScope // by owner UID
	// started holds the tasks this process started and has not handed a result of over,
	// so that a task it knows nothing of can be told apart from one it lost (Orphaned).
	started map[string]Owner
	base    context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// inflight is one task the runner started and has not handed over yet.
type inflight struct {
	owner   Owner
	taskID  string
	timeout time.Duration
	done    bool
	reason  string // why the task ended without a result
}

// writtenResult is a result the runner wrote, as stored, for its owner.
type writtenResult struct {
	owner Owner
	res   agent.TaskResult
}

// ownerScope lets Cleanup cancel every task of one Troubleshoot at once.
type ownerScope struct {
	ctx     context.Context
	cancel  context.CancelFunc
	running int
}

// InProcessOptions configure NewInProcess; zero values pick defaults.
type InProcessOptions struct {
	// MaxConcurrent bounds the tasks running at once in the process (default 16).
	MaxConcurrent int
	// TaskTimeout bounds one task (default 2m).
	TaskTimeout time.Duration
}

// NewInProcess returns a runner that investigates with inv and writes results through cs.
func NewInProcess(cs kubernetes.Interface, inv agent.Investigator, opts InProcessOptions) *InProcess {
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 16
	}
	if opts.TaskTimeout <= 0 {
		opts.TaskTimeout = 2 * time.Minute
	}
	base, stop := context.WithCancel(context.Background())
	return &InProcess{
		client: cs, investigator: inv, taskTimeout: opts.TaskTimeout,
		slots: make(chan struct{}, opts.MaxConcurrent), finished: make(chan Owner, 1024),
		tasks: map[string]*inflight{}, owners: map[string]*ownerScope{}, written: map[string]writtenResult{}, started: map[string]Owner{},
		base: base, stop: stop,
	}
}

var (
	_ Runner   = (*InProcess)(nil)
	_ Notifier = (*InProcess)(nil)
)

func taskKey(o Owner, taskID string) string { return o.key() + "/" + taskID }

// Start implements Runner.
func (r *InProcess) Start(ctx context.Context, owner Owner, req agent.TaskRequest) error {
	if err := owner.Validate(); err != nil {
		return err
	}
	if req.Task.ID == "" {
		return errors.New("task has no id")
	}
	key := taskKey(owner, req.Task.ID)
	if r.known(key) {
		return nil
	}
	// A task that already has a result is never run twice; a task planned by the very
	// step that starts it cannot have one.
	if !freshTask(ctx) {
		res, err := ReadResult(ctx, r.client, owner, req.Task.ID)
		if err != nil && !errors.Is(err, ErrMalformedResult) {
			return err
		}
		if res != nil {
			return nil
		}
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tasks[key]; ok {
		return nil
	}
	if r.base.Err() != nil {
		return errors.New("in-process runner is stopped")
	}
	scope, ok := r.owners[string(owner.UID)]
	if !ok {
		sctx, cancel := context.WithCancel(r.base)
		scope = &ownerScope{ctx: sctx, cancel: cancel}
		r.owners[string(owner.UID)] = scope
	}
	scope.running++
	t := &inflight{owner: owner, taskID: req.Task.ID, timeout: r.taskTimeout}
	if dl, ok := taskDeadline(ctx); ok {
		// A task never outlives its session's deadline by much.
		t.timeout = min(t.timeout, max(time.Until(dl), time.Second))
	}
	r.tasks[key] = t
	r.started[key] = owner
	r.wg.Add(1)
	go r.run(scope, t, req)
	return nil
}

func (r *InProcess) known(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.tasks[key]
	return ok
}

// run executes one task and writes its result; it never panics (agent.RunTask recovers).
func (r *InProcess) run(scope *ownerScope, t *inflight, req agent.TaskRequest) {
	defer r.wg.Done()
	reason := ""
	var stored *agent.TaskResult
	select {
	case r.slots <- struct{}{}:
		ctx, cancel := context.WithTimeout(scope.ctx, t.timeout)
		res := agent.RunTask(ctx, r.investigator, req.Session, req.Task)
		<-r.slots
		switch {
		case scope.ctx.Err() != nil:
			reason = "cancelled"
		case ctx.Err() != nil && res.Error == "":
			res.Error = fmt.Sprintf("task timed out after %s", t.timeout)
			fallthrough
		default:
			stored, reason = r.write(scope.ctx, t.owner, res)
		}
		cancel()
	case <-scope.ctx.Done():
		reason = "cancelled before it started"
	}

	r.mu.Lock()
	// Whether Cleanup cancelled the owner's tasks, asked before the last task of the scope
	// releases it below (which cancels it too).
	cleanedUp := scope.ctx.Err() != nil
	scope.running--
	if scope.running == 0 && r.owners[string(t.owner.UID)] == scope {
		scope.cancel()
		delete(r.owners, string(t.owner.UID))
	}
	key := taskKey(t.owner, t.taskID)
	if reason == "" {
		// The ConfigMap is the truth from now on; written is a copy of it.
		delete(r.tasks, key)
		if !cleanedUp {
			r.written[key] = writtenResult{owner: t.owner, res: *stored}
		}
	} else if cur, ok := r.tasks[key]; ok && cur == t {
		t.done, t.reason = true, reason
	}
	r.mu.Unlock()

	select {
	case r.finished <- t.owner:
	default:
	}
}

// write stores the result, retrying briefly on API errors; it returns the result as
// stored, or why it could not store it.
func (r *InProcess) write(ctx context.Context, owner Owner, res agent.TaskResult) (*agent.TaskResult, string) {
	var err error
	backoff := 200 * time.Millisecond
	for attempt := 0; attempt < 5; attempt++ {
		var stored *agent.TaskResult
		if stored, err = writeResult(ctx, r.client, owner, res); err == nil {
			return stored, ""
		}
		select {
		case <-ctx.Done():
			return nil, "cancelled while writing the result"
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	return nil, "could not write the result: " + err.Error()
}

// Check implements Runner.
func (r *InProcess) Check(ctx context.Context, owner Owner, taskID string) (Outcome, error) {
	key := taskKey(owner, taskID)
	r.mu.Lock()
	if w, ok := r.written[key]; ok {
		delete(r.written, key)
		delete(r.started, key)
		r.mu.Unlock()
		return Outcome{State: StateDone, Result: &w.res}, nil
	}
	t, ok := r.tasks[key]
	if ok && t.done {
		// Hand the failure over once; a later Check finds the task Missing.
		delete(r.tasks, key)
	}
	_, startedHere := r.started[key]
	r.mu.Unlock()
	if ok && !t.done {
		return Outcome{State: StateRunning}, nil
	}
	if ok && t.done {
		return Outcome{State: StateFailed, Reason: t.reason}, nil
	}
	res, err := ReadResult(ctx, r.client, owner, taskID)
	switch {
	case errors.Is(err, ErrMalformedResult):
		return Outcome{State: StateFailed, Reason: err.Error()}, nil
	case err != nil:
		return Outcome{}, err
	case res == nil:
		return Outcome{State: StateMissing, Orphaned: !startedHere}, nil
	}
	r.mu.Lock()
	delete(r.started, key)
	r.mu.Unlock()
	return Outcome{State: StateDone, Result: res}, nil
}

// covers says whether x is the Troubleshoot that o stands for in Cleanup: the same
// namespace and name, and the same UID unless o has none.
func (o Owner) covers(x Owner) bool {
	return x.Namespace == o.Namespace && x.Name == o.Name && (o.UID == "" || x.UID == o.UID)
}

// Cleanup implements Runner. An owner without UID stands for every Troubleshoot of that
// namespace and name (the object is gone and its UID unknown).
func (r *InProcess) Cleanup(_ context.Context, owner Owner) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	uids := map[string]bool{}
	for key, t := range r.tasks {
		if !owner.covers(t.owner) {
			continue
		}
		uids[string(t.owner.UID)] = true
		delete(r.tasks, key)
	}
	for key, w := range r.written {
		if owner.covers(w.owner) {
			delete(r.written, key)
		}
	}
	// The owner's tasks are over: this process forgets that it started them.
	for key, o := range r.started {
		if owner.covers(o) {
			delete(r.started, key)
		}
	}
	if owner.UID != "" {
		uids[string(owner.UID)] = true
	}
	for uid := range uids {
		if s, ok := r.owners[uid]; ok {
			s.cancel()
			delete(r.owners, uid)
		}
	}
	return nil
}

// Finished implements Notifier.
func (r *InProcess) Finished() <-chan Owner { return r.finished }

// Running returns how many tasks run or wait for a slot, for tests and metrics.
func (r *InProcess) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, t := range r.tasks {
		if !t.done {
			n++
		}
	}
	return n
}

// Stop cancels every task and waits for the goroutines to return.
func (r *InProcess) Stop() {
	r.stop()
	r.wg.Wait()
}
