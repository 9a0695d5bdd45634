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

package tools_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubage/kubage/internal/tools"
)

// A pod's requests as the scheduler counts them: sidecars (init containers that restart
// always) run beside the app containers and the init containers that follow them; a
// regular init container runs alone, beside the sidecars started before it.
func TestPodRequestsCountsSidecars(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	c := func(name, cpu, mem string, sidecar bool) corev1.Container {
		r := corev1.ResourceList{}
		if cpu != "" {
			r[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			r[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		out := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: r}}
		if sidecar {
			out.RestartPolicy = &always
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		spec     corev1.PodSpec
		cpu, mem string
	}{
		{"app containers only", corev1.PodSpec{Containers: []corev1.Container{c("web", "250m", "256Mi", false), c("metrics", "50m", "64Mi", false)}}, "300m", "320Mi"},
		{"a regular init container larger than the app counts alone",
			corev1.PodSpec{InitContainers: []corev1.Container{c("migrate", "1", "128Mi", false)}, Containers: []corev1.Container{c("web", "250m", "256Mi", false)}}, "1", "256Mi"},
		{"a sidecar adds to the app containers",
			corev1.PodSpec{InitContainers: []corev1.Container{c("mesh-proxy", "500m", "128Mi", true)}, Containers: []corev1.Container{c("web", "250m", "256Mi", false)}}, "750m", "384Mi"},
		{"an init container after a sidecar runs beside it",
			corev1.PodSpec{InitContainers: []corev1.Container{c("log-shipper", "200m", "", true), c("seed", "900m", "", false)}, Containers: []corev1.Container{c("web", "100m", "", false)}}, "1100m", ""},
		{"an init container before a sidecar runs without it",
			corev1.PodSpec{InitContainers: []corev1.Container{c("seed", "900m", "", false), c("log-shipper", "200m", "", true)}, Containers: []corev1.Container{c("web", "100m", "", false)}}, "900m", ""},
		{"overhead comes on top", corev1.PodSpec{Containers: []corev1.Container{c("web", "100m", "", false)}, Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}, "350m", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tools.PodRequests(&tc.spec)
			for r, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: tc.cpu, corev1.ResourceMemory: tc.mem} {
				q, ok := got[r]
				if want == "" {
					if ok {
						t.Errorf("%s = %s, want none", r, q.String())
					}
					continue
				}
				if w := resource.MustParse(want); !ok || q.Cmp(w) != 0 {
					t.Errorf("%s = %s, want %s", r, q.String(), want)
				}
			}
		})
	}
}
