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

// A file missing from a volume an init container fills, while that writer ran and exited 0:
// it wrote what its settings asked for, and the setting that lists its products (sharing the
// missing file's distinctive words, without its name) is where the file is added.
func TestMissingFileTheWriterWasNeverAskedFor(t *testing.T) {
	spec := func(editions string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "geoip", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "geoip", MountPath: "/usr/share/GeoIP"}}
			s.InitContainers = []corev1.Container{{Name: "geoipupdate", Image: "ghcr.io/maxmind/geoipupdate:v7.1.0",
				EnvFrom:      []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "geoipupdate-env"}}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "geoip", MountPath: "/usr/share/GeoIP"}}}}
			_ = editions
		}
	}
	crash := func(p *corev1.Pod) {
		fx.CrashLoop(p, 1, "Error", 4)
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "Error: ENOENT: no such file or directory, open '/usr/share/GeoIP/GeoLite2-City.mmdb'"
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "geoipupdate", Ready: true,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}}}
	}
	objs := func(editions string) func() []runtime.Object {
		return func() []runtime.Object {
			return append(app("geo-lookup", 1, spec(editions), crash),
				cmWith("geoipupdate-env", "GEOIPUPDATE_EDITION_IDS", editions, "GEOIPUPDATE_DB_DIR", "/usr/share/GeoIP", "GEOIPUPDATE_VERBOSE", "1"), fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "the edition list lacks the City database", problem: "geo-lookup keeps crashing",
			objs: objs("GeoLite2-ASN GeoLite2-Country"), logs: nil,
			rule: "config-file-missing", culprit: "ConfigMap/geoipupdate-env", affected: []string{"Deployment/geo-lookup"},
			terms: []string{"GEOIPUPDATE_EDITION_IDS", "GeoLite2-City", "geoipupdate"}},
	})
	// The writer was asked for the file: the setting is not blamed.
	rc := drive(t, engine(objs("GeoLite2-ASN GeoLite2-City")()...), sessionFor("geo-lookup keeps crashing")).RootCause
	if rc.Culprit.Name == "geoipupdate-env" {
		t.Errorf("a setting that lists the file was blamed: %s", rc.Summary)
	}
}
