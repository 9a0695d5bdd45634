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
	"fmt"

	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/metrics"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/internal/tools/registry"
)

// SetupTroubleshoot registers the Troubleshoot reconciler, its session engine and the
// kubage_ metrics with mgr. SetupAll calls it; tests that need only sessions call it alone.
func SetupTroubleshoot(mgr ctrl.Manager, opts Options) error {
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 1
	}
	engine, err := newSessionEngine(mgr, opts)
	if err != nil {
		return err
	}
	if err := metrics.Register(ctrlmetrics.Registry, phaseCounter(mgr)); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	r := &TroubleshootReconciler{Client: mgr.GetClient(), Recorder: redactingRecorder{mgr.GetEventRecorder(eventRecorderName)}, Engine: engine, Shard: opts.Shard, APIReader: mgr.GetAPIReader()}
	if err := r.SetupWithManager(mgr, opts); err != nil {
		return fmt.Errorf("setting up %T: %w", r, err)
	}
	return nil
}

// newSessionEngine fills in the defaults of opts: a clientset, the brain factory (the rule
// engine, or an LLM brain when a model Secret is configured) with the brain configuration
// every task request carries, and the in-process runner, which runs the one task
// implementation (internal/agent/task) and stops with the manager.
func newSessionEngine(mgr ctrl.Manager, opts Options) (*session.Engine, error) {
	cs := opts.Clientset
	if cs == nil {
		var err error
		if cs, err = kubernetes.NewForConfig(mgr.GetConfig()); err != nil {
			return nil, fmt.Errorf("building a clientset: %w", err)
		}
	}
	ruleEngine := agent.NewRuleEngine(cs)
	brains := opts.Brains
	var investigator agent.Investigator = ruleEngine
	var brainConfig func(*kubagev1alpha1.Troubleshoot) *agent.BrainConfig
	if brains == nil {
		// Secrets are read uncached (RBAC grants get only); ToolServers from the cache.
		cluster := registry.KubeCluster(mgr.GetClient(), mgr.GetAPIReader())
		f := newBrainFactory(ruleEngine, mgr.GetAPIReader(), cluster, cs, opts.Knowledge, opts.DefaultModelSecret)
		brains, brainConfig = f.Brain, f.BrainConfig
		investigator = f.taskInvestigator()
	}
	runners := make(map[kubagev1alpha1.TaskRunner]runner.Runner, len(opts.TaskRunners)+1)
	for name, r := range opts.TaskRunners {
		runners[name] = r
	}
	if _, ok := runners[kubagev1alpha1.TaskRunnerInProcess]; !ok {
		inproc := runner.NewInProcess(cs, investigator, runner.InProcessOptions{})
		runners[kubagev1alpha1.TaskRunnerInProcess] = inproc
		stop := manager.RunnableFunc(func(ctx context.Context) error {
			<-ctx.Done()
			inproc.Stop()
			return nil
		})
		if err := mgr.Add(stop); err != nil {
			return nil, err
		}
	}
	def := opts.DefaultTaskRunner
	if def == "" {
		def = kubagev1alpha1.TaskRunnerInProcess
	}
	if _, ok := runners[def]; !ok {
		return nil, fmt.Errorf("the default task runner %q is not configured", def)
	}
	return &session.Engine{
		Client: cs, Brains: brains, BrainConfig: brainConfig, Runners: runners, DefaultRunner: def,
		Executor: &remediate.Executor{Client: cs}, PollInterval: opts.TaskPollInterval,
		Knowledge: opts.Knowledge,
	}, nil
}

// phaseCounter counts Troubleshoots by phase from the manager's cache, for the
// scrape-time sessions gauge.
func phaseCounter(mgr ctrl.Manager) metrics.PhaseLister {
	return func(ctx context.Context) (map[string]int, error) {
		list := &kubagev1alpha1.TroubleshootList{}
		if err := mgr.GetClient().List(ctx, list); err != nil {
			return nil, err
		}
		counts := map[string]int{}
		for _, p := range []kubagev1alpha1.TroubleshootPhase{
			kubagev1alpha1.PhasePending, kubagev1alpha1.PhasePlanning, kubagev1alpha1.PhaseInvestigating,
			kubagev1alpha1.PhaseRegulating, kubagev1alpha1.PhaseSummarizing, kubagev1alpha1.PhaseAwaitingApproval,
			kubagev1alpha1.PhaseRemediating, kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed,
		} {
			counts[string(p)] = 0
		}
		for _, ts := range list.Items {
			phase := string(ts.Status.Phase)
			if phase == "" {
				phase = string(kubagev1alpha1.PhasePending)
			}
			counts[phase]++
		}
		return counts, nil
	}
}
