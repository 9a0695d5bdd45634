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

package task

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/kubernetes"

	"github.com/kubage/kubage/internal/agent"
)

// Clusters gives the client of a cluster a session investigates through a kubeconfig: the
// operator reads the Secret, a task Job gets the kubeconfig from the kubelet. Errors carry
// the condition reason of internal/remote (KubeConfigRefused, ClusterUnreachable, ...).
type Clusters interface {
	Client(ctx context.Context, ref agent.ClusterRef) (kubernetes.Interface, error)
}

// maxClusterEnvs bounds the environments kept, one per remote clientset.
const maxClusterEnvs = 64

// clusterEnvs remembers the environment of each remote clientset, so the rule engine of a
// cluster is built once and not per task.
type clusterEnvs struct {
	mu   sync.Mutex
	envs map[kubernetes.Interface]*Env
}

// For is the environment of session s: e itself for the cluster e reads, or the same
// environment (model, knowledge, ToolServers) reading the session's other cluster.
func (e *Env) For(ctx context.Context, s agent.Session) (*Env, error) {
	if s.Cluster == nil {
		return e, nil
	}
	if e.Clusters == nil {
		return nil, errors.New("this session investigates another cluster, but no kubeconfig is available where the task runs")
	}
	cs, err := e.Clusters.Client(ctx, *s.Cluster)
	if err != nil {
		return nil, fmt.Errorf("the cluster of kubeconfig %s[%s]: %w", s.Cluster.Secret, s.Cluster.Key, err)
	}
	e.remote.mu.Lock()
	defer e.remote.mu.Unlock()
	if env, ok := e.remote.envs[cs]; ok {
		return env, nil
	}
	if e.remote.envs == nil || len(e.remote.envs) >= maxClusterEnvs {
		e.remote.envs = map[kubernetes.Interface]*Env{}
	}
	env := &Env{Client: cs, Rules: agent.NewRuleEngine(cs), ModelSecret: e.ModelSecret,
		Knowledge: e.Knowledge, ToolServers: e.ToolServers, Pool: e.Pool, MCP: e.MCP}
	e.remote.envs[cs] = env
	return env, nil
}
