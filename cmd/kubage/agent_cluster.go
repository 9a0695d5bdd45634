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

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/kubernetes"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/remote"
	"github.com/kubage/kubage/internal/runner"
)

// envCluster is the other cluster of a task Job's session: the kubelet put its kubeconfig
// in the environment (internal/runner, job_cluster.go). It is checked with the rules the
// operator applies (no exec plugin, no file) and dialed through the egress guard.
type envCluster struct {
	getenv func(string) string

	once sync.Once
	cs   kubernetes.Interface
	err  error
}

// Client implements task.Clusters; every task of a Job has the one session's cluster.
func (c *envCluster) Client(_ context.Context, ref agent.ClusterRef) (kubernetes.Interface, error) {
	c.once.Do(func() {
		raw := c.getenv(runner.EnvClusterKubeConfig)
		if raw == "" {
			c.err = errors.New("$" + runner.EnvClusterKubeConfig + " is empty: the Job carries no kubeconfig of the session's cluster")
			return
		}
		ctxName := c.getenv(runner.EnvClusterContext)
		if ctxName == "" {
			ctxName = ref.Context
		}
		cfg, err := remote.Load([]byte(raw), ctxName)
		if err != nil {
			c.err = fmt.Errorf("the kubeconfig of Secret %s[%s]: %w", ref.Secret, ref.Key, err)
			return
		}
		cfg.UserAgent = "kubage-agent"
		c.cs, c.err = remote.NewClient(cfg)
	})
	return c.cs, c.err
}
