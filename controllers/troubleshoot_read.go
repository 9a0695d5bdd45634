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

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// read gets a Troubleshoot without a request to the API server when it can: from the
// manager's cache, or from the copy this reconciler wrote last when the cache has not
// caught up with that write yet (the next step must start from the status the previous
// one wrote). It asks the API server only when the cache does not have the object (it
// may belong to another shard, or be brand new) or the two cannot be ordered.
func (r *TroubleshootReconciler) read(ctx context.Context, key types.NamespacedName, obj *kubagev1alpha1.Troubleshoot) error {
	if r.APIReader == nil {
		return r.Get(ctx, key, obj)
	}
	err := r.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return r.APIReader.Get(ctx, key, obj)
	}
	if err != nil {
		return err
	}
	w := r.written.get(key)
	if w == nil || w.UID != obj.UID {
		return nil
	}
	cmp, err := resourceversion.CompareResourceVersion(obj.ResourceVersion, w.ResourceVersion)
	switch {
	case err != nil:
		return r.APIReader.Get(ctx, key, obj)
	case cmp < 0:
		w.DeepCopyInto(obj)
	default:
		// The cache has seen the write: the memo is no longer needed.
		r.written.forgetVersion(key, w.ResourceVersion)
	}
	return nil
}

// remember keeps obj as written. When many copies are held, those the cache has caught up
// with are dropped, so finished sessions that are never read again do not pile up.
func (r *TroubleshootReconciler) remember(ctx context.Context, obj *kubagev1alpha1.Troubleshoot) {
	if r.APIReader == nil {
		return
	}
	if !r.written.remember(obj) || !r.written.pruning.TryLock() {
		return
	}
	defer r.written.pruning.Unlock()
	for _, key := range r.written.keys() {
		cur := &kubagev1alpha1.Troubleshoot{}
		err := r.Get(ctx, key, cur)
		w := r.written.get(key)
		if w == nil {
			continue
		}
		if apierrors.IsNotFound(err) || err == nil && (cur.UID != w.UID || !isOlder(cur.ResourceVersion, w.ResourceVersion)) {
			r.written.forgetVersion(key, w.ResourceVersion)
		}
	}
	r.written.pruned()
}

// minPruneAt is how many written copies are held before the first pruning.
const minPruneAt = 256

func isOlder(a, b string) bool {
	cmp, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && cmp < 0
}

// writtenSessions holds the Troubleshoots as the reconciler last wrote them, until the
// cache has caught up; a process restart starts with none and reads the cache.
type writtenSessions struct {
	mu sync.Mutex
	m  map[types.NamespacedName]*kubagev1alpha1.Troubleshoot
	// pruneAt is the size at which the copies are pruned; pruning is held while they are.
	pruneAt int
	pruning sync.Mutex
}

// pruned sets the next pruning at twice the copies left.
func (w *writtenSessions) pruned() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pruneAt = max(2*len(w.m), minPruneAt)
}

func (w *writtenSessions) keys() []types.NamespacedName {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]types.NamespacedName, 0, len(w.m))
	for k := range w.m {
		out = append(out, k)
	}
	return out
}

func (w *writtenSessions) get(key types.NamespacedName) *kubagev1alpha1.Troubleshoot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m[key]
}

// remember keeps a copy of obj and says whether the copies are due for pruning.
func (w *writtenSessions) remember(obj *kubagev1alpha1.Troubleshoot) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]*kubagev1alpha1.Troubleshoot{}
	}
	w.m[client.ObjectKeyFromObject(obj)] = obj.DeepCopy()
	return len(w.m) >= max(w.pruneAt, minPruneAt)
}

func (w *writtenSessions) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, key)
}

func (w *writtenSessions) forgetVersion(key types.NamespacedName, resourceVersion string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if o := w.m[key]; o != nil && o.ResourceVersion == resourceVersion {
		delete(w.m, key)
	}
}

// phasePriority orders the requeued sessions: those further along go first, so that a
// burst of sessions finishes some early instead of all late.
func phasePriority(p kubagev1alpha1.TroubleshootPhase) int {
	switch p {
	case kubagev1alpha1.PhaseSummarizing, kubagev1alpha1.PhaseRemediating:
		return 6
	case kubagev1alpha1.PhaseRegulating:
		return 5
	case kubagev1alpha1.PhaseInvestigating:
		return 4
	case kubagev1alpha1.PhasePlanning:
		return 3
	case kubagev1alpha1.PhasePending:
		return 2
	}
	return 0
}
