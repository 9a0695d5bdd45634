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
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/approval"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/session"
)

// Options configure all reconcilers of the manager.
type Options struct {
	// MaxConcurrentReconciles bounds how many objects of one kind reconcile at once.
	MaxConcurrentReconciles int

	// TaskRunners are the runners sessions may use, by name. SetupAll adds an InProcess
	// runner (investigating with the rule engine) when none is given.
	TaskRunners map[kubagev1alpha1.TaskRunner]session.TaskRunner
	// DefaultTaskRunner serves sessions without spec.taskRunner (InProcess when empty).
	DefaultTaskRunner kubagev1alpha1.TaskRunner
	// Brains returns the brain of a session; when nil, an LLM brain for sessions with a
	// model Secret (spec.model or DefaultModelSecret) and the rule engine for the others.
	Brains session.BrainFactory
	// DefaultModelSecret is the model Secret of sessions without spec.model (none when
	// its Name is empty).
	DefaultModelSecret types.NamespacedName
	// Clientset reads the cluster for the tools and writes results, reports and approved
	// remediations; built from the manager's config when nil.
	Clientset kubernetes.Interface
	// TaskPollInterval is how often running tasks are checked (2s when zero).
	TaskPollInterval time.Duration
	// WatchSelector selects the Troubleshoots, KnowledgeSources and ToolServers this
	// manager reconciles, by their labels (all when nil); shards select on
	// kubagev1alpha1.ShardingKeyLabel. Pair it with WatchCacheOptions in the manager.
	WatchSelector labels.Selector
	// SecretsNeedServiceAccount makes objects that refer to Secrets name a ServiceAccount
	// whose rights are used to read them (multi-tenant clusters); off, the operator reads
	// them with its own rights, as a single-team cluster may prefer.
	SecretsNeedServiceAccount bool
	// SecretPollInterval is how often the Secrets that ToolServers and KnowledgeSources
	// refer to are re-read to notice rotation (30s when zero); Secrets are never watched.
	SecretPollInterval time.Duration
	// ScheduleSeconds lets TroubleshootSchedules carry a leading seconds field, so tests can
	// run a schedule every few seconds; production schedules keep the CronJob's five fields.
	ScheduleSeconds bool
	// NotifyBackoff retries failed notifications (notify.DefaultBackoff when zero).
	NotifyBackoff notify.Backoff
	// ApprovalWebhook registers the approval webhook (internal/approval) on the manager's
	// webhook server, and makes sessions run no action whose decision lacks the author the
	// webhook records (decidedBy).
	ApprovalWebhook bool
	// Knowledge is the shared knowledge service KnowledgeSources are indexed into and
	// sessions search; SetupAll creates one when nil.
	Knowledge *knowledge.Service
	// IncidentMemoryEntries bounds the incident memory of each namespace (50 when zero);
	// a negative value turns the memory off.
	IncidentMemoryEntries int
	// IncidentMemoryRetention is how long a remembered incident is kept (30 days when zero).
	IncidentMemoryRetention time.Duration

	// notifySender is the one sender (and per-sink rate limit) SetupAll shares between the
	// Troubleshoots' and the schedules' notifications.
	notifySender *notify.Sender
}

// eventRecorderName is the reporting controller of every Event the manager emits.
const eventRecorderName = "kubage"

// SetupAll registers the reconcilers of the five kinds with mgr.
func SetupAll(mgr ctrl.Manager, opts Options) error {
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 1
	}
	if opts.Knowledge == nil {
		opts.Knowledge = knowledge.NewService(knowledge.Options{})
	}
	opts.notifySender = &notify.Sender{}
	if err := SetupTroubleshoot(mgr, opts); err != nil {
		return err
	}
	recorder := redactingRecorder{mgr.GetEventRecorder(eventRecorderName)}
	reconcilers := []interface {
		SetupWithManager(ctrl.Manager, Options) error
	}{
		&KnowledgeSourceReconciler{Client: mgr.GetClient(), Recorder: recorder, Knowledge: opts.Knowledge},
		&ToolServerReconciler{Client: mgr.GetClient(), Recorder: recorder},
		&TroubleshootScheduleReconciler{Client: mgr.GetClient(), Recorder: recorder, Sender: opts.notifySender},
		&NotificationSinkReconciler{Client: mgr.GetClient(), Recorder: recorder},
	}
	for _, r := range reconcilers {
		if err := r.SetupWithManager(mgr, opts); err != nil {
			return fmt.Errorf("setting up %T: %w", r, err)
		}
	}
	if opts.ApprovalWebhook {
		approval.Register(mgr.GetWebhookServer(), mgr.GetScheme(), mgr.GetClient())
	}
	return nil
}
