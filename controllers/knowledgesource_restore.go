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

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/knowledge"
)

// forgetDeletedSources drops, once the cache has synced, the sources the knowledge service
// restored from snapshots whose KnowledgeSource no longer exists (deleted while no
// manager ran, so no finalizer removed them): they must not be served. It runs on every
// replica, since every replica restores and serves its own snapshots.
type forgetDeletedSources struct {
	cache     cache.Cache
	knowledge *knowledge.Service
}

// NeedLeaderElection implements manager.LeaderElectionRunnable.
func (f *forgetDeletedSources) NeedLeaderElection() bool { return false }

// Start implements manager.Runnable.
func (f *forgetDeletedSources) Start(ctx context.Context) error {
	if !f.cache.WaitForCacheSync(ctx) {
		return nil // stopping
	}
	list := &kubagev1alpha1.KnowledgeSourceList{}
	if err := f.cache.List(ctx, list); err != nil {
		// Not fatal for the manager: the restored sources keep serving until re-indexed or removed.
		ctrl.LoggerFrom(ctx).Error(err, "Could not list KnowledgeSources to check the restored ones")
		return nil
	}
	exists := make(map[string]bool, len(list.Items))
	for _, ks := range list.Items {
		exists[ks.Namespace+"/"+ks.Name] = true
	}
	n, err := f.knowledge.ForgetRestored(ctx, func(namespace, name string) bool { return exists[namespace+"/"+name] })
	if n > 0 {
		ctrl.LoggerFrom(ctx).Info("Dropped restored knowledge of KnowledgeSources that no longer exist", "sources", n)
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Could not drop all restored knowledge of deleted KnowledgeSources")
	}
	return nil
}
