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

// Package task is the one implementation of a plan task: it builds the session's brain
// from what the task request carries (agent.Session.Brain) and runs the task on it. The
// InProcess runner calls it inside the operator and `kubage agent task` inside a Job; only
// their Env differs (whose credentials, where the model Secret and the knowledge come from).
// The session's own steps (plan, judge, summarize) build their brain with the same Env.Brain.
package task

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/telemetry"
	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/internal/tools/registry"
)

// ReasonModelSecretInvalid is the degradation reason of a brain whose model Secret is
// missing or unusable: it runs on the rule engine alone instead of failing.
const ReasonModelSecretInvalid = "ModelSecretInvalid"

// ErrModelUnavailable marks a model Secret that cannot be had (missing, forbidden, not
// handed to the Job): the brain degrades to the rule engine. Other errors of
// Env.ModelSecret are transient and fail the call.
var ErrModelUnavailable = errors.New("model Secret unavailable")

// ErrModelForbidden is an ErrModelUnavailable whose cause is the account that reads the
// Secret: it may not (or the operator requires an account and none was named). The brain
// degrades to the rule engine with reason Forbidden, and the model is never called.
var ErrModelForbidden = fmt.Errorf("%w: reading it is forbidden", ErrModelUnavailable)

// maxDegradedMessage bounds a degradation message (a condition message).
const maxDegradedMessage = 1024

// Env is where tasks run.
type Env struct {
	// Client is the task's view of the cluster: the operator's, or the agent's read-only account.
	Client kubernetes.Interface
	// Rules is the rule engine over Client (built from Client when nil).
	Rules agent.Brain
	// ModelSecret returns the data of the model Secret ref names; an error wrapping
	// ErrModelUnavailable degrades to the rules. Nil: no model is ever available.
	ModelSecret func(ctx context.Context, ref agent.SecretRef) (map[string][]byte, error)
	// Knowledge searches KnowledgeSources (nil: none).
	Knowledge tools.KnowledgeSearcher
	// ToolServers lists ToolServers and resolves their headers (nil: built-in tools only).
	ToolServers registry.Cluster
	// Pool shares model endpoints and circuit breakers (llm.DefaultPool when nil).
	Pool *llm.Pool
	// Clusters reaches the other clusters sessions may investigate (spec.cluster); nil:
	// such sessions' tasks fail with an error saying so.
	Clusters Clusters
	// MCP lends ToolServer sessions from one brain to the next (nil: each brain opens
	// and closes its own).
	MCP *registry.Pool

	// remote holds the environments of other clusters (see For).
	remote clusterEnvs
}

func (e *Env) rules() agent.Brain {
	if e.Rules == nil {
		e.Rules = agent.NewRuleEngine(e.Client)
	}
	return e.Rules
}

// Brain builds the brain cfg describes for a session in namespace: the rule engine when
// cfg names no model, else an LLM brain over the model with the rule engine as fallback,
// the session's tools and knowledge. An unusable model Secret yields the rule engine,
// reporting why through TakeDegraded. Close the brain (io.Closer) when done with it.
func (e *Env) Brain(ctx context.Context, namespace string, cfg *agent.BrainConfig) (agent.Brain, error) {
	rules := e.rules()
	if cfg == nil || cfg.Model == nil {
		return rules, nil
	}
	ref := *cfg.Model
	if e.ModelSecret == nil {
		return e.invalid(ref, "no model Secret is available where this task runs"), nil
	}
	data, err := e.ModelSecret(ctx, ref)
	if errors.Is(err, ErrModelForbidden) {
		return e.degraded(ref, kubagev1alpha1.ForbiddenReason, err.Error()), nil
	}
	if errors.Is(err, ErrModelUnavailable) {
		return e.invalid(ref, err.Error()), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the model Secret %s: %w", ref, err)
	}
	mc, err := llm.ConfigFromSecretData(data)
	if err != nil {
		return e.invalid(ref, err.Error()), nil
	}
	mc.Mode = llm.ModeDiagnose
	if cfg.Mode == string(kubagev1alpha1.ModeRemediate) {
		mc.Mode = llm.ModeRemediate
	}
	mc.MaxIterations, mc.MaxToolCalls = cfg.MaxIterations, cfg.MaxToolCalls

	red := redact.New(cfg.RedactionKey)
	for _, v := range data {
		red.AddSecrets(string(v))
	}
	builtin := tools.Builtin(e.Client, tools.Scope{Namespace: namespace})
	if e.Knowledge != nil {
		if builtin, err = tools.WithTools(builtin, tools.NewKnowledgeSearch(e.Knowledge, namespace, cfg.KnowledgeSources, knowledge.ScopesOf(cfg.Knowledge)...)); err != nil {
			return nil, fmt.Errorf("adding knowledge_search: %w", err)
		}
	}
	reg, err := registry.Open(ctx, registry.Options{
		Namespace: namespace, Selector: cfg.ToolServers, Mode: kubagev1alpha1.Mode(mc.Mode),
		Builtin: builtin, Cluster: e.ToolServers, Redact: red.Redact, Pool: e.MCP,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the session's tools: %w", err)
	}
	opts := llm.Options{Fallback: rules, Tools: llm.RegistryTools(reg), Redactor: red, Pool: e.Pool}
	// The brain's knowledge reranks with the brain's own model client, so a rerank
	// shares its retries, breaker, egress guard and dialect and counts in its usage; the
	// client exists once the brain is built, before any search can run.
	var b *llm.LLMBrain
	if e.Knowledge != nil {
		rerank := &knowledge.RerankModel{ID: mc.BaseURL + " " + mc.Model, Chat: func(ctx context.Context, system, user string, maxTokens int) (string, error) {
			return b.JSONReply(ctx, system, user, maxTokens)
		}}
		opts.Knowledge = sessionKnowledge(e.Knowledge, namespace, cfg, rerank)
	}
	if b, err = llm.New(mc, opts); err != nil {
		reg.Close()
		return e.invalid(ref, err.Error()), nil
	}
	return &ModelBrain{LLMBrain: b, reg: reg}, nil
}

func (e *Env) invalid(ref agent.SecretRef, why string) agent.Brain {
	return e.degraded(ref, ReasonModelSecretInvalid, why)
}

func (e *Env) degraded(ref agent.SecretRef, reason, why string) agent.Brain {
	return &RulesOnly{Brain: e.rules(), Degradation: agent.Degradation{
		Reason:  reason,
		Message: tools.Sanitize(fmt.Sprintf("The model Secret %s cannot be used (%s); the rule engine investigated alone", ref, why), maxDegradedMessage, true),
	}}
}

// sessionKnowledge searches the KnowledgeSources cfg selects, for the brain's prompts;
// the session's model reorders the best candidates (the deterministic order stands when
// it cannot).
func sessionKnowledge(s tools.KnowledgeSearcher, namespace string, cfg *agent.BrainConfig, model *knowledge.RerankModel) llm.Knowledge {
	sel, scopes := cfg.KnowledgeSources, knowledge.ScopesOf(cfg.Knowledge)
	return llm.KnowledgeFunc(func(ctx context.Context, query string) ([]llm.Snippet, error) {
		ans, err := s.Search(ctx, knowledge.Query{Namespace: namespace, Selector: sel, Scopes: scopes, Text: query, K: 3, RerankModel: model})
		if err != nil {
			return nil, err
		}
		out := make([]llm.Snippet, 0, len(ans.Snippets))
		for _, sn := range ans.Snippets {
			// The extractive summary, not the whole chunk, enters the prompt, with its source.
			body := sn.Summary
			if body == "" {
				body = sn.Text
			}
			out = append(out, llm.Snippet{Citation: sn.Citation.String(), Title: sn.Title, Text: body})
		}
		return out, nil
	})
}

// ModelBrain is an LLM brain with the tool registry it owns; Close releases the
// registry's ToolServer connections.
type ModelBrain struct {
	*llm.LLMBrain
	reg *registry.Registry
}

// Close implements io.Closer.
func (b *ModelBrain) Close() error {
	b.reg.Close()
	return nil
}

// RulesOnly is the rule engine standing in for a model that could not be configured; it
// reports why every time it is asked, so the Degraded condition survives each step.
type RulesOnly struct {
	agent.Brain
	agent.Degradation
}

// TakeDegraded reports why the model is not used (session.DegradationReporter).
func (b *RulesOnly) TakeDegraded() (string, string, bool) { return b.Reason, b.Message, true }

// Investigator runs plan tasks: Analyze tasks, and every task of a session without a
// model, on the rule engine; the model's tasks on the brain the session's request
// describes. Its results carry what the task consumed and whether it degraded.
type Investigator struct {
	Env *Env
}

var _ agent.Investigator = (*Investigator)(nil)

// Investigate implements agent.Investigator.
func (i *Investigator) Investigate(ctx context.Context, s agent.Session, t agent.Task) (res agent.TaskResult, err error) {
	ctx, span := telemetry.Tracer().Start(telemetry.WithTraceParent(ctx, s.TraceParent), "task "+string(t.Type),
		trace.WithAttributes(attribute.String("kubage.task.id", t.ID), attribute.String("kubage.session", s.ID)))
	defer func() {
		span.SetAttributes(attribute.Int("kubage.task.evidence", len(res.Evidence)), attribute.Int("kubage.task.tool_calls", len(res.ToolCalls)))
		telemetry.Fail(span, err)
		span.End()
	}()
	env, err := i.Env.For(ctx, s)
	if err != nil {
		return agent.TaskResult{TaskID: t.ID}, err
	}
	if t.Type == agent.TaskAnalyze || t.Type == "" || s.Brain == nil || s.Brain.Model == nil {
		return env.rules().Investigate(ctx, s, t)
	}
	brain, err := env.Brain(ctx, s.Namespace, s.Brain)
	if err != nil {
		return agent.TaskResult{TaskID: t.ID}, err
	}
	if c, ok := brain.(io.Closer); ok {
		defer func() { _ = c.Close() }()
	}
	res, err = brain.Investigate(ctx, s, t)
	switch b := brain.(type) {
	case *ModelBrain:
		u := b.Usage()
		res.Usage = &agent.Usage{LLMCalls: u.LLMCalls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
		if reason, msg, degraded := b.TakeDegraded(); degraded {
			res.Degraded = &agent.Degradation{Reason: reason, Message: msg}
		}
	case *RulesOnly:
		res.Usage = &agent.Usage{}
		d := b.Degradation
		res.Degraded = &d
	}
	if res.Usage != nil {
		res.Usage.ToolCalls = int64(len(res.ToolCalls))
	}
	return res, err
}
