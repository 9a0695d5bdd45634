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
	"crypto/rand"
	"fmt"
	"io"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/internal/tools/redact"
	"github.com/kubage/kubage/internal/tools/registry"
)

// ModelSecretInvalidReason is the Degraded reason of a session whose model Secret is
// missing or unusable: it runs on the rule engine alone instead of failing.
const ModelSecretInvalidReason = "ModelSecretInvalid"

// brainFactory builds the brain of one session step: the rule engine when no model is
// configured, otherwise an LLM brain over the model Secret with the rule engine as its
// fallback, the session's tool registry and the knowledge service.
type brainFactory struct {
	rules agent.Brain
	// secrets reads model Secrets uncached (RBAC grants get only).
	secrets client.Reader
	cluster registry.Cluster
	cs      kubernetes.Interface
	know    *knowledge.Service
	// defaultModel is the operator-wide model Secret (empty Name: none).
	defaultModel types.NamespacedName
	pool         *llm.Pool
	// redactKey keeps pseudonyms stable across the steps of a session.
	redactKey []byte

	// pending holds what in-process tasks consumed of the model, by Troubleshoot UID,
	// until the session's next step accounts it.
	mu      sync.Mutex
	pending map[types.UID]*pendingUse
}

type pendingUse struct {
	usage           llm.Usage
	reason, message string
	degraded        bool
}

// maxPending bounds the sessions with unaccounted task usage (a deleted session's
// entry is never drained).
const maxPending = 4096

func newBrainFactory(rules agent.Brain, secrets client.Reader, cluster registry.Cluster, cs kubernetes.Interface, know *knowledge.Service, defaultModel types.NamespacedName) *brainFactory {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &brainFactory{rules: rules, secrets: secrets, cluster: cluster, cs: cs, know: know, defaultModel: defaultModel, pool: llm.DefaultPool, redactKey: key, pending: map[types.UID]*pendingUse{}}
}

// modelSecret says which Secret configures ts's model; ok is false when none does.
func (f *brainFactory) modelSecret(ts *kubagev1alpha1.Troubleshoot) (types.NamespacedName, bool) {
	if ts.Spec.Model != nil && ts.Spec.Model.Name != "" {
		return types.NamespacedName{Namespace: ts.Namespace, Name: ts.Spec.Model.Name}, true
	}
	return f.defaultModel, f.defaultModel.Name != ""
}

// Brain implements session.BrainFactory. A missing or invalid Secret never fails the
// session: it runs on the rules and reports Degraded with ModelSecretInvalidReason.
func (f *brainFactory) Brain(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) (agent.Brain, error) {
	return f.brain(ctx, ts, false)
}

// brain builds ts's brain; a task brain's usage and degradations are kept for the
// session's next step instead of being taken by the engine.
func (f *brainFactory) brain(ctx context.Context, ts *kubagev1alpha1.Troubleshoot, task bool) (agent.Brain, error) {
	key, ok := f.modelSecret(ts)
	if !ok {
		return f.rules, nil
	}
	secret := &corev1.Secret{}
	if err := f.secrets.Get(ctx, key, secret); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			return f.invalid(key, err.Error()), nil
		}
		return nil, fmt.Errorf("reading the model Secret %s: %w", key, err)
	}
	cfg, err := llm.ConfigFromSecretData(secret.Data)
	if err != nil {
		return f.invalid(key, err.Error()), nil
	}
	cfg.Mode = llm.ModeDiagnose
	if ts.Spec.Mode == kubagev1alpha1.ModeRemediate {
		cfg.Mode = llm.ModeRemediate
	}
	cfg.MaxIterations = int(ts.Spec.Budget.MaxIterations)
	cfg.MaxToolCalls = int(ts.Spec.Budget.MaxToolCalls)

	red := redact.New(f.redactKey)
	for _, v := range secret.Data {
		red.AddSecrets(string(v))
	}
	builtin := tools.Builtin(f.cs, tools.Scope{Namespace: ts.Namespace})
	if f.know != nil {
		if builtin, err = tools.WithTools(builtin, tools.NewKnowledgeSearch(f.know, ts.Namespace, ts.Spec.KnowledgeSources)); err != nil {
			return nil, fmt.Errorf("adding knowledge_search: %w", err)
		}
	}
	reg, err := registry.Open(ctx, registry.Options{
		Namespace: ts.Namespace, Selector: ts.Spec.ToolServers, Mode: ts.Spec.Mode,
		Builtin: builtin, Cluster: f.cluster, Redact: red.Redact,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the session's tools: %w", err)
	}
	opts := llm.Options{Fallback: f.rules, Tools: llm.RegistryTools(reg), Redactor: red, Pool: f.pool}
	uid := ts.UID
	if task {
		opts.UsageSink = func(u llm.Usage) { f.keep(uid, func(p *pendingUse) { p.usage = p.usage.Add(u) }) }
	}
	if f.know != nil {
		opts.Knowledge = sessionKnowledge(f.know, ts)
	}
	b, err := llm.New(cfg, opts)
	if err != nil {
		reg.Close()
		return f.invalid(key, err.Error()), nil
	}
	return &modelBrain{LLMBrain: b, reg: reg, f: f, uid: uid}, nil
}

// keep records task usage of session uid for its next step.
func (f *brainFactory) keep(uid types.UID, update func(*pendingUse)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pending[uid]
	if p == nil {
		if len(f.pending) >= maxPending {
			return
		}
		p = &pendingUse{}
		f.pending[uid] = p
	}
	update(p)
}

// drain returns and forgets what the tasks of session uid kept.
func (f *brainFactory) drain(uid types.UID) pendingUse {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pending[uid]
	delete(f.pending, uid)
	if p == nil {
		return pendingUse{}
	}
	return *p
}

func (f *brainFactory) invalid(key types.NamespacedName, why string) agent.Brain {
	return &rulesOnly{Brain: f.rules, reason: ModelSecretInvalidReason,
		message: truncate(fmt.Sprintf("The model Secret %s cannot be used (%s); the rule engine investigated alone", key, why), maxConditionMessage)}
}

// sessionKnowledge searches the KnowledgeSources ts selects, for the brain's prompts.
func sessionKnowledge(s *knowledge.Service, ts *kubagev1alpha1.Troubleshoot) llm.Knowledge {
	ns, sel := ts.Namespace, ts.Spec.KnowledgeSources
	return llm.KnowledgeFunc(func(ctx context.Context, query string) ([]llm.Snippet, error) {
		ans, err := s.Search(ctx, knowledge.Query{Namespace: ns, Selector: sel, Text: query, K: 3})
		if err != nil {
			return nil, err
		}
		out := make([]llm.Snippet, 0, len(ans.Snippets))
		for _, sn := range ans.Snippets {
			out = append(out, llm.Snippet{Citation: sn.Citation.String(), Title: sn.Title, Text: sn.Text})
		}
		return out, nil
	})
}

// modelBrain is an LLM brain with the tool registry it owns for one step; the session
// engine closes it when the step ends. It also reports what the session's in-process
// tasks consumed since the last step.
type modelBrain struct {
	*llm.LLMBrain
	reg *registry.Registry
	f   *brainFactory
	uid types.UID
	// task is what the session's tasks kept, until TakeUsage and TakeDegraded report it.
	task pendingUse
}

// Close releases the registry's ToolServer connections.
func (b *modelBrain) Close() error {
	b.reg.Close()
	return nil
}

// takeTasks moves what the session's tasks kept into b.task.
func (b *modelBrain) takeTasks() {
	p := b.f.drain(b.uid)
	b.task.usage = b.task.usage.Add(p.usage)
	if p.degraded {
		b.task.reason, b.task.message, b.task.degraded = p.reason, p.message, true
	}
}

// TakeUsage implements session.UsageReporter: the step's own model calls plus those of
// the session's in-process tasks.
func (b *modelBrain) TakeUsage() session.Usage {
	b.takeTasks()
	u := b.LLMBrain.TakeUsage()
	t := b.task.usage
	b.task.usage = llm.Usage{}
	u.LLMCalls += t.LLMCalls
	u.PromptTokens += t.PromptTokens
	u.CompletionTokens += t.CompletionTokens
	return u
}

// TakeDegraded implements session.DegradationReporter: the step's own fallback first,
// else one of the session's in-process tasks.
func (b *modelBrain) TakeDegraded() (string, string, bool) {
	b.takeTasks()
	reason, msg, ok := b.LLMBrain.TakeDegraded()
	if !ok && b.task.degraded {
		reason, msg, ok = b.task.reason, b.task.message, true
	}
	b.task.reason, b.task.message, b.task.degraded = "", "", false
	return reason, msg, ok
}

// rulesOnly is the rule engine standing in for a model that could not be configured;
// it reports why on every step, so the Degraded condition survives each one.
type rulesOnly struct {
	agent.Brain
	reason, message string
}

// TakeDegraded implements session.DegradationReporter.
func (b *rulesOnly) TakeDegraded() (string, string, bool) { return b.reason, b.message, true }

// taskInvestigator is the InProcess runner's investigator: Analyze tasks run on the rule
// engine; ToolCall, Knowledge and Investigate tasks on the session's brain, so the tasks
// a model plans run in-process too (on the rules alone when the session has no model).
type taskInvestigator struct {
	f      *brainFactory
	reader client.Reader
}

// Investigate implements agent.Investigator.
func (i *taskInvestigator) Investigate(ctx context.Context, s agent.Session, t agent.Task) (agent.TaskResult, error) {
	if t.Type == agent.TaskAnalyze || t.Type == "" {
		return i.f.rules.Investigate(ctx, s, t)
	}
	ns, name, ok := strings.Cut(s.ID, "/")
	ts := &kubagev1alpha1.Troubleshoot{}
	if !ok || ns != s.Namespace {
		return i.f.rules.Investigate(ctx, s, t)
	}
	if err := i.reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, ts); err != nil {
		return agent.TaskResult{TaskID: t.ID}, fmt.Errorf("reading Troubleshoot %s: %w", s.ID, err)
	}
	brain, err := i.f.brain(ctx, ts, true)
	if err != nil {
		return agent.TaskResult{TaskID: t.ID}, err
	}
	if c, ok := brain.(io.Closer); ok {
		defer func() { _ = c.Close() }()
	}
	res, err := brain.Investigate(ctx, s, t)
	if mb, ok := brain.(*modelBrain); ok {
		if reason, msg, degraded := mb.LLMBrain.TakeDegraded(); degraded {
			i.f.keep(ts.UID, func(p *pendingUse) { p.reason, p.message, p.degraded = reason, msg, true })
		}
	}
	return res, err
}
