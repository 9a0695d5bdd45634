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
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/memory"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/internal/tools/registry"
)

// TaskRunner runs a session's tasks (InProcess, Job); Notifier is one that reports
// finished tasks, and Owner names a session's tasks. The controller wires them through
// this package.
type (
	TaskRunner = runner.Runner
	Notifier   = runner.Notifier
	Owner      = runner.Owner
)

// OperatorOptions say how the operator's session engine is built.
type OperatorOptions struct {
	// Clientset reads the cluster and keeps the sessions' state; required.
	Clientset kubernetes.Interface
	// Brains overrides the brains (tests); when nil, an LLM brain for sessions with a model
	// Secret and the rule engine for the others, built by NewBrains.
	Brains BrainFactory
	// ReadSecret reads model Secrets with the rights it decides from the reference (see
	// ReadSecret); ToolServers are the ToolServers sessions may use.
	ReadSecret  ReadSecret
	ToolServers registry.Cluster
	// Knowledge is the knowledge service sessions search and cite (none when nil).
	Knowledge *knowledge.Service
	// DefaultModel is the model Secret of sessions without spec.model (none when its Name
	// is empty).
	DefaultModel types.NamespacedName
	// TaskRunners are the configured runners by name; an InProcess runner is added when
	// none is given. DefaultRunner serves sessions without spec.taskRunner (InProcess
	// when empty).
	TaskRunners   map[kubagev1alpha1.TaskRunner]TaskRunner
	DefaultRunner kubagev1alpha1.TaskRunner
	// PollInterval is how often running tasks are checked (2s when zero).
	PollInterval time.Duration
	// ApprovalsNeedDecidedBy: the approval webhook is enabled (Engine.ApprovalsNeedDecidedBy).
	ApprovalsNeedDecidedBy bool
	// MemoryEntries bounds the incident memory of each namespace (50 when zero); a
	// negative value turns the memory off. MemoryRetention is how long an entry is kept
	// (30 days when zero).
	MemoryEntries   int
	MemoryRetention time.Duration
}

// NewOperatorEngine builds the operator's session engine: the brains (with the brain
// configuration every task request carries), the InProcess runner running the one task
// implementation (internal/agent/task), the remediation executor and the informers the
// rule engine reads through. stop stops the informers and the InProcess runner it added;
// call it when the manager stops.
func NewOperatorEngine(o OperatorOptions) (e *Engine, stop func(), err error) {
	cs := o.Clientset
	ruleEngine := agent.NewRuleEngine(cs)
	// Sessions of one namespace share its informers instead of listing on every step.
	informers := tools.NewInformerCache(cs, 10*time.Minute)
	ruleEngine.Cache = informers
	brains := o.Brains
	var investigator agent.Investigator = ruleEngine
	var brainConfig func(context.Context, *kubagev1alpha1.Troubleshoot) *agent.BrainConfig
	var clusters *RemoteClusters
	if o.ReadSecret != nil {
		clusters = &RemoteClusters{ReadSecret: o.ReadSecret}
	}
	if brains == nil {
		var model *agent.SecretRef
		if o.DefaultModel.Name != "" {
			model = &agent.SecretRef{Namespace: o.DefaultModel.Namespace, Name: o.DefaultModel.Name}
		}
		f := NewBrains(ruleEngine, o.ReadSecret, o.ToolServers, cs, o.Knowledge, model)
		if clusters != nil {
			f.SetClusters(clusters)
		}
		brains, brainConfig, investigator = f.Brain, f.TaskBrainConfig, f.Investigator()
	}
	runners := make(map[kubagev1alpha1.TaskRunner]runner.Runner, len(o.TaskRunners)+1)
	for name, r := range o.TaskRunners {
		runners[name] = r
	}
	cacheCtx, stopCache := context.WithCancel(context.Background())
	cacheDone := make(chan struct{})
	go func() {
		defer close(cacheDone)
		_ = informers.Run(cacheCtx)
	}()
	stop = func() {
		stopCache()
		<-cacheDone
	}
	if _, ok := runners[kubagev1alpha1.TaskRunnerInProcess]; !ok {
		inproc := runner.NewInProcess(cs, investigator, runner.InProcessOptions{})
		runners[kubagev1alpha1.TaskRunnerInProcess] = inproc
		stop = func() {
			inproc.Stop()
			stopCache()
			<-cacheDone
		}
	}
	def := o.DefaultRunner
	if def == "" {
		def = kubagev1alpha1.TaskRunnerInProcess
	}
	if _, ok := runners[def]; !ok {
		stop()
		return nil, nil, fmt.Errorf("the default task runner %q is not configured", def)
	}
	e = &Engine{
		Client: cs, Brains: brains, BrainConfig: brainConfig, Runners: runners, DefaultRunner: def,
		Executor: &remediate.Executor{Client: cs}, PollInterval: o.PollInterval, Knowledge: o.Knowledge,
		ApprovalsNeedDecidedBy: o.ApprovalsNeedDecidedBy, Cache: informers,
	}
	if clusters != nil {
		e.Clusters = clusters
	}
	if o.MemoryEntries >= 0 {
		e.Memory = &memory.Store{Client: cs, MaxEntries: o.MemoryEntries, Retention: o.MemoryRetention}
	}
	return e, stop, nil
}

// Forget stops the in-process work of a deleted session; its Jobs and ConfigMaps carry an
// ownerReference and go with the garbage collector.
func (e *Engine) Forget(ctx context.Context, namespace, name string) error {
	e.checkpoints.dropName(namespace, name)
	e.results.dropName(namespace, name)
	var errs []error
	for _, r := range e.Runners {
		if err := r.Cleanup(ctx, runner.Owner{Namespace: namespace, Name: name}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
