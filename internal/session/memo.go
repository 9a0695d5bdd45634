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
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubage/kubage/internal/runner"
)

// checkpointMemo remembers the checkpoint this process last wrote for each session, so
// that the next step starts from it without reading the ConfigMap back. It is safe because
// one process at a time advances a session (leader election, disjoint shards) and every
// write is conflict-checked by resourceVersion: a memo that went stale makes the write fail,
// which drops the memo, and the retry reads the ConfigMap. A restart starts with none.
type checkpointMemo struct {
	mu sync.Mutex
	m  map[types.UID]memoEntry
}

type memoEntry struct {
	namespace, name string
	stored          []byte
	resourceVersion string
}

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

func (c *checkpointMemo) drop(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, uid)
}

// dropName forgets every session of a namespace and name (a deleted one, UID unknown).
func (c *checkpointMemo) dropName(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for uid, e := range c.m {
		if e.namespace == namespace && e.name == name {
			delete(c.m, uid)
		}
	}
}

// loadCheckpoint reads owner's checkpoint from the memo when this process wrote it last,
// else from its ConfigMap.
func (e *Engine) loadCheckpoint(ctx context.Context, owner runner.Owner) (*Checkpoint, bool, error) {
	if m, ok := e.checkpoints.get(owner); ok {
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
		return err
	}
	e.checkpoints.put(owner, memoEntry{namespace: owner.Namespace, name: owner.Name, stored: ck.stored, resourceVersion: ck.resourceVersion})
	return nil
}
