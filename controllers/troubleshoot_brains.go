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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/knowledge"
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
}

func newBrainFactory(rules agent.Brain, secrets client.Reader, cluster registry.Cluster, cs kubernetes.Interface, know *knowledge.Service, defaultModel types.NamespacedName) *brainFactory {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &brainFactory{rules: rules, secrets: secrets, cluster: cluster, cs: cs, know: know, defaultModel: defaultModel, pool: llm.DefaultPool, redactKey: key}
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
	if f.know != nil {
		opts.Knowledge = sessionKnowledge(f.know, ts)
	}
	b, err := llm.New(cfg, opts)
	if err != nil {
		reg.Close()
		return f.invalid(key, err.Error()), nil
	}
	return &modelBrain{LLMBrain: b, reg: reg}, nil
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
// engine closes it when the step ends.
type modelBrain struct {
	*llm.LLMBrain
	reg *registry.Registry
}

// Close releases the registry's ToolServer connections.
func (b *modelBrain) Close() error {
	b.reg.Close()
	return nil
}

// rulesOnly is the rule engine standing in for a model that could not be configured;
// it reports why on every step, so the Degraded condition survives each one.
type rulesOnly struct {
	agent.Brain
	reason, message string
}

// TakeDegraded implements the session engine's degradation reporter.
func (b *rulesOnly) TakeDegraded() (string, string, bool) { return b.reason, b.message, true }
