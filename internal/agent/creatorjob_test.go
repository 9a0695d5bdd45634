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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A missing Secret that a Job of the namespace is meant to write names that Job, with its
// state, its command and what its log says (a usage text: the command is unknown).
func TestMissingSecretNamesTheJobMeantToWriteIt(t *testing.T) {
	objs := func(withJob bool) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("portal", 1, func(s *corev1.PodSpec) {
				s.Containers[0].Env = []corev1.EnvVar{{Name: "SESSION_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "portal-session"}, Key: "key"}}}}
			}, func(p *corev1.Pod) { fx.Waiting(p, "CreateContainerConfigError", `secret "portal-session" not found`) })
			o = append(o, fx.Node("node-1"))
			if !withJob {
				return o
			}
			j := fx.Job(ns, "portal-session-init", "registry.example/portalctl:2.0")
			j.Spec.Template.Spec.Containers[0].Command = []string{"portalctl", "admin", "gen-session-secret"}
			j.Status.Succeeded = 1
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
			p := fx.FailedJobPod(j, "x1", 0)
			p.Status.Phase = corev1.PodSucceeded
			return append(o, j, p)
		}
	}
	usage := "Run administration commands\n\nUsage:\n  portalctl admin [flags]\n  portalctl admin [command]\n\nFlags:\n  -h, --help   help for admin\n"
	runDepCases(t, []depCase{
		{name: "the hook Job completed printing only its usage", problem: "portal never starts after the upgrade",
			objs: objs(true), logs: logBook{"portal-session-init-": usage},
			rule: "secret-missing", culprit: "Secret/portal-session", affected: []string{"Deployment/portal", "Job/portal-session-init"},
			terms: []string{"portal-session-init", "gen-session-secret", "usage"}},
		{name: "no Job meant to write it", problem: "portal never starts after the upgrade",
			objs: objs(false), rule: "secret-missing", culprit: "Secret/portal-session", affected: []string{"Deployment/portal"},
			terms: []string{"portal-session"}},
	})
}
