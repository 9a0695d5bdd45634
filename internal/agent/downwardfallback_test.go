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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A worker count taken from limits.cpu, with no CPU limit set, is the node's CPU count: the
// OOM kill is explained by it; with a CPU limit the same env says nothing.
func TestDownwardLimitWithoutALimit(t *testing.T) {
	objs := func(cpuLimit bool) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("catalog-api", 1, func(s *corev1.PodSpec) {
				c := &s.Containers[0]
				c.Env = []corev1.EnvVar{{Name: "WEB_CONCURRENCY", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}}}
				c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}
				if cpuLimit {
					c.Resources.Limits[corev1.ResourceCPU] = resource.MustParse("1")
				}
			}, func(p *corev1.Pod) { fx.CrashLoop(p, 137, "OOMKilled", 4) })
			n := fx.Node("node-1")
			n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("15Gi")}
			return append(o, n)
		}
	}
	runDepCases(t, []depCase{
		{name: "limits.cpu without a cpu limit", problem: "catalog-api pods are killed at boot", objs: objs(false),
			rule: "oom-killed", culprit: "Deployment/catalog-api", terms: []string{"limits.cpu", "no cpu limit", "allocatable cpu, 4"}},
	})
	e := engine(objs(true)()...)
	if rc := drive(t, e, sessionFor("catalog-api pods are killed at boot")).RootCause; strings.Contains(rc.Summary, "downward API") {
		t.Errorf("a container with a CPU limit was told it has none: %s", rc.Summary)
	}
}
