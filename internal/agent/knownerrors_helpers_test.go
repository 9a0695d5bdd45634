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
	"fmt"
	"hash/fnv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// Helpers of the catalogue's table tests: a workload running a given image, a server behind
// a Service, and cases where an entry must stay silent.

// imaged is app with image set on the Deployment, its ReplicaSet and its pods.
func imaged(name, image string, n int, spec func(*corev1.PodSpec), pod func(*corev1.Pod)) []runtime.Object {
	o := app(name, n, spec, pod)
	for _, x := range o {
		switch v := x.(type) {
		case *appsv1.Deployment:
			v.Spec.Template.Spec.Containers[0].Image = image
		case *appsv1.ReplicaSet:
			v.Spec.Template.Spec.Containers[0].Image = image
		case *corev1.Pod:
			v.Spec.Containers[0].Image = image
			for i := range v.Status.ContainerStatuses {
				v.Status.ContainerStatuses[i].Image = image
			}
		}
	}
	return o
}

// serverOf is a one-replica server running image behind Service name on port, with its endpoints.
func serverOf(name, image string, port int32, spec func(*corev1.PodSpec), extra ...runtime.Object) []runtime.Object {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	ip := fmt.Sprintf("10.96.%d.%d", 10+h.Sum32()%200, 2+h.Sum32()/200%200)
	o := withEndpoints(imaged(name, image, 1, spec, nil), svcAt(name, ip, map[string]string{"app": name}, port), name+"-")
	return append(o, extra...)
}

func noop(*corev1.PodSpec) {}

// withShm mounts an emptyDir at /dev/shm.
func withShm(s *corev1.PodSpec) {
	s.Volumes = append(s.Volumes, corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}})
	s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "dshm", MountPath: "/dev/shm"})
}

// silentCase is a cluster where the entry's class must not conclude.
type silentCase struct {
	name, problem, not string
	objs               func() []runtime.Object
	logs               logBook
}

func runSilentCases(t *testing.T, cases []silentCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = tc.logs.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns})
			if c.RootCause.Rule == tc.not {
				t.Fatalf("%s concluded on %s/%s: %s", tc.not, c.RootCause.Culprit.Kind, c.RootCause.Culprit.Name, c.RootCause.Summary)
			}
		})
	}
}
