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

package runner

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/agent"
)

// A session with spec.cluster investigates another cluster. Its task Jobs still run in the
// operator's cluster, next to the Troubleshoot (they write their results there with the
// agent's own account), and get the other cluster's kubeconfig from the kubelet, which reads
// it from the session's Secret into the agent's environment. No copy of the Secret is made:
// the Secret is in the Job's own namespace, the operator has checked it (read as every Secret
// a session names, then refused exec plugins and file references) before it starts a task,
// the agent checks it again with the same rules, and the operator needs no right to write
// Secrets. The kubeconfig never appears in the Job's spec.
const (
	// EnvClusterKubeConfig carries the other cluster's kubeconfig into a task Job.
	EnvClusterKubeConfig = "KUBAGE_CLUSTER_KUBECONFIG"
	// EnvClusterContext names the kubeconfig context to use (its current-context when unset).
	EnvClusterContext = "KUBAGE_CLUSTER_CONTEXT"
)

// clusterEnv is the environment that hands a task Job its session's other cluster; none
// when the session investigates the Job's own cluster. A pod reads Secrets of its own
// namespace only, which a session's kubeconfig Secret always is.
func clusterEnv(owner Owner, req agent.TaskRequest) []corev1.EnvVar {
	c := req.Session.Cluster
	if c == nil || c.Secret.Namespace != owner.Namespace {
		return nil
	}
	env := []corev1.EnvVar{{Name: EnvClusterKubeConfig, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: c.Secret.Name}, Key: c.Key,
	}}}}
	if c.Context != "" {
		env = append(env, corev1.EnvVar{Name: EnvClusterContext, Value: c.Context})
	}
	return env
}
