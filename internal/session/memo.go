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

package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/runner"
)

// checkpointMemo remembers the checkpoint this process last wrote for each session, so
// that the next step starts from it without reading the ConfigMap back. It is safe because
// one process at a time advances a session (leader election, disjoint shards) and every
// write is conflict-checked by resourceVersion: a memo that went stale makes the write fail,
// which drops the memo, and the retry reads the ConfigMap. A restart starts with none.
type checkpointMemo struct{ byUID[memoEntry] }

// byUID is what both memos share: entries per session UID, each knowing the session's
// namespace and name, so a deleted session (UID unknown) can be forgotten by name.
type byUID[V interface{ sessionName() (string, string) }] struct {
	mu sync.Mutex
	m  map[types.UID]V
}

func (c *byUID[V]) drop(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, uid)
}

// dropName forgets every session of a namespace and name (a deleted one, UID unknown).
func (c *byUID[V]) dropName(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for uid, v := range c.m {
		if ns, n := v.sessionName(); ns == namespace && n == name {
			delete(c.m, uid)
		}
	}
}

type memoEntry struct {
	namespace, name string
	stored          []byte
	resourceVersion string
}

func (e memoEntry) sessionName() (string, string) { return e.namespace, e.name }

func (c *checkpointMemo) get(owner runner.Owner) (memoEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[owner.UID]
	return e, ok
}

func (c *checkpointMemo) put(owner runner.Owner, e memoEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[types.UID]memoEntry{}
	}
	c.m[owner.UID] = e
}

// resultsMemo remembers the task results of each session's run that this process read
// or collected, so that later steps of the run need not list them again. Results are
// written once per task and run and never change, so the memo only ever lacks some.
type resultsMemo struct{ byUID[runResults] }

type runResults struct {
	namespace, name, run string
	byID                 map[string]agent.TaskResult
}

func (r runResults) sessionName() (string, string) { return r.namespace, r.name }

// get returns a copy of the run's results if the memo holds every one in want.
func (c *resultsMemo) get(owner runner.Owner, want []string) (map[string]agent.TaskResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rr, ok := c.m[owner.UID]
	if !ok || rr.run != owner.Run {
		return nil, false
	}
	for _, id := range want {
		if _, ok := rr.byID[id]; !ok {
			return nil, false
		}
	}
	out := make(map[string]agent.TaskResult, len(rr.byID))
	for id, r := range rr.byID {
		out[id] = r
	}
	return out, true
}

// add records results of the owner's run.
func (c *resultsMemo) add(owner runner.Owner, results ...agent.TaskResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[types.UID]runResults{}
	}
	rr, ok := c.m[owner.UID]
	if !ok || rr.run != owner.Run {
		rr = runResults{namespace: owner.Namespace, name: owner.Name, run: owner.Run, byID: map[string]agent.TaskResult{}}
		c.m[owner.UID] = rr
	}
	for _, r := range results {
		rr.byID[r.TaskID] = r
	}
}

// deferCheckpoint keeps ck's changes in the memo only; the next save writes them with the
// rest. A restart loses them, which a step that defers must allow for.
func (e *Engine) deferCheckpoint(owner runner.Owner, ck *Checkpoint) error {
	raw, err := json.Marshal(ck)
	if err != nil {
		return fmt.Errorf("encoding session checkpoint: %w", err)
	}
	e.checkpoints.put(owner, memoEntry{namespace: owner.Namespace, name: owner.Name,
		stored: redact.Default().SecretsJSON(raw), resourceVersion: ck.resourceVersion})
	return nil
}

// loadCheckpoint reads owner's checkpoint from the memo when this process wrote it last,
// else from its ConfigMap. A session that is new (no phase yet) has none, unless a write
// of its checkpoint found one in the way: then it is read.
func (e *Engine) loadCheckpoint(ctx context.Context, owner runner.Owner, isNew bool) (*Checkpoint, bool, error) {
	m, ok := e.checkpoints.get(owner)
	if ok && m.stored == nil {
		e.checkpoints.drop(owner.UID)
		return loadCheckpoint(ctx, e.Client, owner)
	}
	if !ok && isNew {
		return &Checkpoint{}, false, nil
	}
	if ok {
		ck := &Checkpoint{resourceVersion: m.resourceVersion, exists: true}
		if err := ck.decode(m.stored); err == nil {
			return ck, true, nil
		}
		e.checkpoints.drop(owner.UID)
	}
	return loadCheckpoint(ctx, e.Client, owner)
}

// saveCheckpoint writes ck when it changed and remembers what it wrote; a failed write
// forgets the memo, so the next step reads the ConfigMap.
func (e *Engine) saveCheckpoint(ctx context.Context, owner runner.Owner, ck *Checkpoint) error {
	if err := saveCheckpoint(ctx, e.Client, owner, ck); err != nil {
		e.checkpoints.drop(owner.UID)
		if apierrors.IsAlreadyExists(err) {
			// A ConfigMap nobody knew of: not KubAge's (a stalling conflict), or a deleted
			// namesake's checkpoint or one whose write lost its answer, which the next
			// step reads.
			if _, _, lerr := loadCheckpoint(ctx, e.Client, owner); errors.Is(lerr, runner.ErrNotManaged) {
				return lerr
			}
			e.checkpoints.put(owner, memoEntry{namespace: owner.Namespace, name: owner.Name})
		}
		return err
	}
	e.checkpoints.put(owner, memoEntry{namespace: owner.Namespace, name: owner.Name, stored: ck.stored, resourceVersion: ck.resourceVersion})
	return nil
}
