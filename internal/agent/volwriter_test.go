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

package agent_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// An application that waits for a file its Vault agent sidecar renders into a shared
// emptyDir is explained by the agent's own error, followed into the agent's configuration:
// the route it is refused ("auth/k8s/login") is built from the mount_path its file sets.
func TestMissingFileFollowedToTheSidecarThatWritesIt(t *testing.T) {
	agentHCL := "vault {\n  address = \"https://vault.vault.svc:8200\"\n}\nauto_auth {\n  method \"kubernetes\" {\n    mount_path = \"auth/k8s\"\n    config = {\n      role = \"payouts\"\n    }\n  }\n}\ntemplate {\n  destination = \"/vault/secrets/payouts-db.properties\"\n}\n"
	spec := func(s *corev1.PodSpec) {
		s.Volumes = []corev1.Volume{{Name: "vault-secrets", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
			{Name: "agent-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "vault-agent-payouts"}}}}}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "vault-secrets", MountPath: "/vault/secrets"}}
		s.Containers = append(s.Containers, corev1.Container{Name: "vault-agent", Image: "hashicorp/vault:1.17.2", Args: []string{"agent", "-config=/vault/config/agent.hcl"},
			VolumeMounts: []corev1.VolumeMount{{Name: "vault-secrets", MountPath: "/vault/secrets"}, {Name: "agent-config", MountPath: "/vault/config"}}})
	}
	crash := func(p *corev1.Pod) {
		fx.CrashLoop(p, 1, "Error", 4)
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "java.lang.IllegalStateException: secrets file /vault/secrets/payouts-db.properties did not appear within 30s"
	}
	agentLog := "2026-11-29T09:47:05.212Z [INFO]  agent.auth.handler: authenticating\n2026-11-29T09:47:05.231Z [ERROR] agent.auth.handler: error authenticating:\n  error=\n  | Error making API request.\n  |\n  | URL: PUT https://vault.vault.svc:8200/v1/auth/k8s/login\n  | Code: 400. Errors:\n  |\n  | * no handler for route \"auth/k8s/login\". route entry not found.\n  backoff=2.5s\n"
	runDepCases(t, []depCase{
		{name: "the Vault agent's mount_path", problem: "payouts-api crash-loops since the secrets moved to Vault",
			objs: func() []runtime.Object {
				return append(app("payouts-api", 1, spec, crash), cmWith("vault-agent-payouts", "agent.hcl", agentHCL), fx.Node("node-1"))
			},
			logs: logBook{"payouts-api-": agentLog},
			rule: "config-value-rejected", culprit: "ConfigMap/vault-agent-payouts", terms: []string{"mount_path", "vault-agent", "did not appear"}},
	})
}
