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
	"errors"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/knowledge"
)

// refReader reads a KnowledgeSource's Secrets and ConfigMaps with the reader the reconcile
// put in the context (the source's ServiceAccount), else the reconciler's uncached reader
// (RBAC grants get on Secrets, not list).
type refReader struct{ client.Reader }

type refReaderKey struct{}

func withRefReader(ctx context.Context, r client.Reader) context.Context {
	return context.WithValue(ctx, refReaderKey{}, r)
}

func (r refReader) pick(ctx context.Context) client.Reader {
	if c, ok := ctx.Value(refReaderKey{}).(client.Reader); ok && c != nil {
		return c
	}
	return r.Reader
}

// referenceReader is how obj's references are read: as the ServiceAccount it names, or
// with the operator's rights unless the operator requires an account.
func (r *KnowledgeSourceReconciler) referenceReader(obj *kubagev1alpha1.KnowledgeSource) (client.Reader, error) {
	if sa := obj.Spec.ServiceAccountName; sa != "" {
		return r.AsServiceAccount(obj.Namespace, sa)
	}
	if r.RequireServiceAccount && len(knowledge.ReferencedSecrets(obj)) > 0 {
		return nil, serror.NewStalling(kubagev1alpha1.ForbiddenReason, errors.New(
			"spec.serviceAccountName is required: this operator reads a source's Secrets only as a ServiceAccount it names"))
	}
	return r.APIReader, nil
}

func (r refReader) SecretData(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	s := &corev1.Secret{}
	if err := r.pick(ctx).Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, s); err != nil {
		return nil, err
	}
	return s.Data, nil
}

func (r refReader) ConfigMapData(ctx context.Context, namespace, name string) (map[string]string, error) {
	cm := &corev1.ConfigMap{}
	if err := r.pick(ctx).Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
		return nil, err
	}
	return cm.Data, nil
}
