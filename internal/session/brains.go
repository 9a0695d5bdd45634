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
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/task"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/tools/registry"
)

// ReadSecret reads the data of the Secret ref names, as ref.ServiceAccount when it names
// one; an error the API server gives (NotFound, Forbidden) comes back as it is, and a
// reader that refuses to read (no account named where one is required) says Forbidden.
type ReadSecret func(ctx context.Context, ref SecretRef) (map[string][]byte, error)

// SecretRef names a Secret and the ServiceAccount whose rights read it.
type SecretRef = agent.SecretRef

// Brains turns a Troubleshoot into its brain configuration, which travels in every task
// request, and builds the brain of a session step from it with the same task.Env the
// InProcess runner's tasks use, so steps and tasks think alike.
type Brains struct {
	env *task.Env
	// readSecret reads model Secrets (uncached: RBAC grants get only).
	readSecret ReadSecret
	// defaultModel is the operator-wide model Secret (nil: none).
	defaultModel *agent.SecretRef
	// redactKey derives each session's redaction key (see BrainConfig).
	redactKey []byte
}

// NewBrains builds sessions' brains on the rule engine rules, the cluster cs, the
// ToolServers the operator admits and the knowledge service (nil: none); defaultModel
// names the model Secret of sessions without spec.model (nil: none).
func NewBrains(rules agent.Brain, readSecret ReadSecret, toolServers registry.Cluster, cs kubernetes.Interface, know *knowledge.Service, defaultModel *agent.SecretRef) *Brains {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	f := &Brains{readSecret: readSecret, defaultModel: defaultModel, redactKey: key}
	// Steps and tasks of the sessions borrow ToolServer sessions from one pool.
	f.env = &task.Env{Client: cs, Rules: rules, ModelSecret: f.modelSecret, ToolServers: toolServers, MCP: &registry.Pool{}}
	if know != nil {
		f.env.Knowledge = know
	}
	return f
}

// BrainConfig is ts's brain as its steps and tasks build it.
func (f *Brains) BrainConfig(ts *kubagev1alpha1.Troubleshoot) *agent.BrainConfig {
	mac := hmac.New(sha256.New, f.redactKey)
	mac.Write([]byte(ts.UID))
	cfg := &agent.BrainConfig{
		Mode:             string(ts.Spec.Mode),
		MaxIterations:    int(ts.Spec.Budget.MaxIterations),
		MaxToolCalls:     int(ts.Spec.Budget.MaxToolCalls),
		ToolServers:      ts.Spec.ToolServers,
		KnowledgeSources: ts.Spec.KnowledgeSources,
		Knowledge:        ts.Spec.Knowledge,
		RedactionKey:     mac.Sum(nil),
	}
	switch {
	case ts.Spec.Model != nil && ts.Spec.Model.Name != "":
		cfg.Model = &agent.SecretRef{Namespace: ts.Namespace, Name: ts.Spec.Model.Name, ServiceAccount: ts.Spec.ServiceAccountName}
	case f.defaultModel != nil && f.defaultModel.Name != "":
		ref := *f.defaultModel
		cfg.Model = &ref
	}
	return cfg
}

// TaskBrainConfig is the brain ts's task requests carry. A task Job is handed the model
// Secret by the kubelet, which never asks whose rights the session has; so the model
// travels only when the session may read it now, and otherwise the task runs on the
// rules (the session's own step reports why, as Degraded).
func (f *Brains) TaskBrainConfig(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) *agent.BrainConfig {
	cfg := f.BrainConfig(ts)
	if cfg.Model != nil {
		if _, err := f.readSecret(ctx, *cfg.Model); err != nil {
			cfg.Model = nil
		}
	}
	return cfg
}

// Brain implements BrainFactory. A missing or invalid Secret never fails the session: it
// runs on the rules and reports Degraded with ModelSecretInvalidReason.
func (f *Brains) Brain(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) (agent.Brain, error) {
	env, err := f.env.For(ctx, agent.Session{Namespace: ts.Namespace, Cluster: ClusterRefOf(ts)})
	if err != nil {
		return nil, err
	}
	return env.Brain(ctx, ts.Namespace, f.BrainConfig(ts))
}

// SetClusters lets the brains and tasks of sessions with spec.cluster read that cluster.
func (f *Brains) SetClusters(c task.Clusters) { f.env.Clusters = c }

// modelSecret reads a model Secret for the brains built in the operator.
func (f *Brains) modelSecret(ctx context.Context, ref agent.SecretRef) (map[string][]byte, error) {
	data, err := f.readSecret(ctx, ref)
	if err != nil {
		if apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("%w: %v", task.ErrModelForbidden, err)
		}
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%w: %v", task.ErrModelUnavailable, err)
		}
		return nil, err
	}
	return data, nil
}

// Investigator is the InProcess runner's investigator: the one task implementation, in
// the operator's environment.
func (f *Brains) Investigator() agent.Investigator {
	return &task.Investigator{Env: f.env}
}
