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

	"k8s.io/apimachinery/pkg/types"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// read gets a Troubleshoot from the manager's cache, or as this reconciler wrote it last
// when the cache has not caught up with that write yet (see writtenObjects).
func (r *TroubleshootReconciler) read(ctx context.Context, key types.NamespacedName, obj *kubagev1alpha1.Troubleshoot) error {
	if r.APIReader == nil {
		return r.Get(ctx, key, obj)
	}
	return r.written.read(ctx, r.Client, r.APIReader, key, obj)
}

// remember keeps obj as written (see writtenObjects).
func (r *TroubleshootReconciler) remember(ctx context.Context, obj *kubagev1alpha1.Troubleshoot) {
	if r.APIReader == nil {
		return
	}
	r.written.remember(ctx, r.Client, obj)
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
