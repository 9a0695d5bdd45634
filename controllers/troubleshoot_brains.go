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
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/task"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/tools/registry"
)

// ModelSecretInvalidReason is the Degraded reason of a session whose model Secret is
// missing or unusable: it runs on the rule engine alone instead of failing.
const ModelSecretInvalidReason = task.ReasonModelSecretInvalid

// brainFactory turns a Troubleshoot into its brain configuration, which travels in every
// task request, and builds the brain of a session step from it with the same task.Env the
// InProcess runner's tasks use, so steps and tasks think alike.
type brainFactory struct {
	env *task.Env
	// secrets reads model Secrets uncached (RBAC grants get only).
	secrets client.Reader
	// defaultModel is the operator-wide model Secret (empty Name: none).
	defaultModel types.NamespacedName
	// redactKey derives each session's redaction key (see BrainConfig).
	redactKey []byte
}

func newBrainFactory(rules agent.Brain, secrets client.Reader, cluster registry.Cluster, cs kubernetes.Interface, know *knowledge.Service, defaultModel types.NamespacedName) *brainFactory {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	f := &brainFactory{secrets: secrets, defaultModel: defaultModel, redactKey: key}
	f.env = &task.Env{Client: cs, Rules: rules, ModelSecret: f.modelSecret, ToolServers: cluster}
	if know != nil {
		f.env.Knowledge = know
	}
	return f
}

// BrainConfig is ts's brain as its steps and tasks build it.
func (f *brainFactory) BrainConfig(ts *kubagev1alpha1.Troubleshoot) *agent.BrainConfig {
	mac := hmac.New(sha256.New, f.redactKey)
	mac.Write([]byte(ts.UID))
	cfg := &agent.BrainConfig{
		Mode:             string(ts.Spec.Mode),
		MaxIterations:    int(ts.Spec.Budget.MaxIterations),
		MaxToolCalls:     int(ts.Spec.Budget.MaxToolCalls),
		ToolServers:      ts.Spec.ToolServers,
		KnowledgeSources: ts.Spec.KnowledgeSources,
		RedactionKey:     mac.Sum(nil),
	}
	switch {
	case ts.Spec.Model != nil && ts.Spec.Model.Name != "":
		cfg.Model = &agent.SecretRef{Namespace: ts.Namespace, Name: ts.Spec.Model.Name}
	case f.defaultModel.Name != "":
		cfg.Model = &agent.SecretRef{Namespace: f.defaultModel.Namespace, Name: f.defaultModel.Name}
	}
	return cfg
}

// Brain implements session.BrainFactory. A missing or invalid Secret never fails the
// session: it runs on the rules and reports Degraded with ModelSecretInvalidReason.
func (f *brainFactory) Brain(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) (agent.Brain, error) {
	return f.env.Brain(ctx, ts.Namespace, f.BrainConfig(ts))
}

// modelSecret reads a model Secret for the brains built in the operator.
func (f *brainFactory) modelSecret(ctx context.Context, ref agent.SecretRef) (map[string][]byte, error) {
	secret := &corev1.Secret{}
	if err := f.secrets.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, secret); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("%w: %v", task.ErrModelUnavailable, err)
		}
		return nil, err
	}
	return secret.Data, nil
}

// taskInvestigator is the InProcess runner's investigator: the one task implementation,
// in the operator's environment.
func (f *brainFactory) taskInvestigator() agent.Investigator {
	return &task.Investigator{Env: f.env}
}
