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
	"strings"
	"testing"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/remote"
	"github.com/kubage/kubage/internal/runner"
)

const agentKubeconfig = `apiVersion: v1
kind: Config
current-context: b
contexts:
- {name: b, context: {cluster: b, user: u}}
- {name: other, context: {cluster: b, user: exec}}
clusters:
- {name: b, cluster: {server: "https://cluster-b.example:6443", insecure-skip-tls-verify: true}}
users:
- {name: u, user: {token: abc}}
- {name: exec, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: sh}}}
`

func TestAgentReadsTheOtherClusterFromItsEnvironment(t *testing.T) {
	ref := agent.ClusterRef{Secret: agent.SecretRef{Namespace: "shop", Name: "cluster-b"}, Key: "value"}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

	c := &envCluster{getenv: env(map[string]string{runner.EnvClusterKubeConfig: agentKubeconfig})}
	if cs, err := c.Client(context.Background(), ref); err != nil || cs == nil {
		t.Fatalf("inline token: %v", err)
	}

	c = &envCluster{getenv: env(map[string]string{runner.EnvClusterKubeConfig: agentKubeconfig, runner.EnvClusterContext: "other"})}
	_, err := c.Client(context.Background(), ref)
	if remote.ReasonOf(err) != kubagev1alpha1.KubeConfigRefusedReason || !strings.Contains(err.Error(), "exec plugin") {
		t.Errorf("the agent runs no exec plugin either: %v", err)
	}

	c = &envCluster{getenv: env(nil)}
	if _, err := c.Client(context.Background(), ref); err == nil || !strings.Contains(err.Error(), runner.EnvClusterKubeConfig) {
		t.Errorf("no kubeconfig in the Job: %v", err)
	}
}
