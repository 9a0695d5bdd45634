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

package registry

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// Cluster is what the registry reads from Kubernetes.
type Cluster interface {
	// ListToolServers lists ToolServers in every namespace (servers may admit others).
	ListToolServers(ctx context.Context) ([]kubagev1alpha1.ToolServer, error)
	// NamespaceLabels returns the labels of a namespace, for allowedNamespaces selectors.
	NamespaceLabels(ctx context.Context, namespace string) (map[string]string, error)
	// Headers resolves a ToolServer's header values.
	Headers(ctx context.Context, ts *kubagev1alpha1.ToolServer) (map[string]string, error)
}

// KubeCluster reads ToolServers and Namespaces through reader and Secrets and
// ConfigMaps through secrets (an uncached reader in the manager; may be reader).
func KubeCluster(reader, secrets client.Reader) Cluster {
	if secrets == nil {
		secrets = reader
	}
	return &kubeCluster{reader: reader, secrets: secrets}
}

type kubeCluster struct {
	reader, secrets client.Reader
}

func (k *kubeCluster) ListToolServers(ctx context.Context) ([]kubagev1alpha1.ToolServer, error) {
	list := &kubagev1alpha1.ToolServerList{}
	if err := k.reader.List(ctx, list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (k *kubeCluster) NamespaceLabels(ctx context.Context, namespace string) (map[string]string, error) {
	ns := &corev1.Namespace{}
	if err := k.reader.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return nil, err
	}
	return ns.Labels, nil
}

func (k *kubeCluster) Headers(ctx context.Context, ts *kubagev1alpha1.ToolServer) (map[string]string, error) {
	return ResolveHeaders(ctx, k.secrets, ts)
}
