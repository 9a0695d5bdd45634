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
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// copyable is an API object that copies itself (what controller-gen generates).
type copyable[P any] interface {
	client.Object
	DeepCopy() P
	DeepCopyInto(P)
}

// writtenObjects holds objects as a reconciler last wrote them, until the manager's cache has
// caught up: the next reconcile must start from what the previous one wrote (a step already
// taken, a notification already sent), and the cache may not have seen that write yet. A
// process restart starts with none and reads the cache.
type writtenObjects[P copyable[P]] struct {
	mu sync.Mutex
	m  map[types.NamespacedName]P
	// pruneAt is the size at which the copies are pruned; pruning is held while they are.
	pruneAt int
	pruning sync.Mutex
}

// minPruneAt is how many written copies are held before the first pruning.
const minPruneAt = 256

// read gets obj from cache without a request to the API server when it can, or from the
// copy written last when the cache has not caught up with that write yet. It asks apiReader
// only when the cache does not have the object (it may belong to another shard, or be brand
// new) or the two cannot be ordered.
func (w *writtenObjects[P]) read(ctx context.Context, cache, apiReader client.Reader, key types.NamespacedName, obj P) error {
	err := cache.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return apiReader.Get(ctx, key, obj)
	}
	if err != nil {
		return err
	}
	written, ok := w.get(key)
	if !ok || written.GetUID() != obj.GetUID() {
		return nil
	}
	cmp, err := resourceversion.CompareResourceVersion(obj.GetResourceVersion(), written.GetResourceVersion())
	switch {
	case err != nil:
		return apiReader.Get(ctx, key, obj)
	case cmp < 0:
		written.DeepCopyInto(obj)
	default:
		// The cache has seen the write: the memo is no longer needed.
		w.forgetVersion(key, written.GetResourceVersion())
	}
	return nil
}

// remember keeps obj as written. When many copies are held, those the cache has caught up
// with are dropped, so objects that are never read again do not pile up.
func (w *writtenObjects[P]) remember(ctx context.Context, cache client.Reader, obj P) {
	if !w.keep(obj) || !w.pruning.TryLock() {
		return
	}
	defer w.pruning.Unlock()
	for _, key := range w.keys() {
		written, ok := w.get(key)
		if !ok {
			continue
		}
		cur := written.DeepCopy()
		err := cache.Get(ctx, key, cur)
		if apierrors.IsNotFound(err) || err == nil && (cur.GetUID() != written.GetUID() || !isOlder(cur.GetResourceVersion(), written.GetResourceVersion())) {
			w.forgetVersion(key, written.GetResourceVersion())
		}
	}
	w.pruned()
}

func isOlder(a, b string) bool {
	cmp, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && cmp < 0
}

// pruned sets the next pruning at twice the copies left.
func (w *writtenObjects[P]) pruned() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pruneAt = max(2*len(w.m), minPruneAt)
}

func (w *writtenObjects[P]) keys() []types.NamespacedName {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]types.NamespacedName, 0, len(w.m))
	for k := range w.m {
		out = append(out, k)
	}
	return out
}

func (w *writtenObjects[P]) get(key types.NamespacedName) (P, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	o, ok := w.m[key]
	return o, ok
}

// keep stores a copy of obj and says whether the copies are due for pruning.
func (w *writtenObjects[P]) keep(obj P) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]P{}
	}
	w.m[client.ObjectKeyFromObject(obj)] = obj.DeepCopy()
	return len(w.m) >= max(w.pruneAt, minPruneAt)
}

func (w *writtenObjects[P]) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, key)
}

func (w *writtenObjects[P]) forgetVersion(key types.NamespacedName, resourceVersion string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if o, ok := w.m[key]; ok && o.GetResourceVersion() == resourceVersion {
		delete(w.m, key)
	}
}
