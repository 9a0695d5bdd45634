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
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
)

// Options configure all reconcilers of the manager.
type Options struct {
	// MaxConcurrentReconciles bounds how many objects of one kind reconcile at once.
	MaxConcurrentReconciles int
}

// eventRecorderName is the reporting controller of every Event the manager emits.
const eventRecorderName = "kubage"

// SetupAll registers the reconcilers of the three kinds with mgr.
func SetupAll(mgr ctrl.Manager, opts Options) error {
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 1
	}
	recorder := mgr.GetEventRecorder(eventRecorderName)
	reconcilers := []interface {
		SetupWithManager(ctrl.Manager, Options) error
	}{
		&TroubleshootReconciler{Client: mgr.GetClient(), Recorder: recorder},
		&KnowledgeSourceReconciler{Client: mgr.GetClient(), Recorder: recorder},
		&ToolServerReconciler{Client: mgr.GetClient(), Recorder: recorder},
	}
	for _, r := range reconcilers {
		if err := r.SetupWithManager(mgr, opts); err != nil {
			return fmt.Errorf("setting up %T: %w", r, err)
		}
	}
	return nil
}
