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

// initCrashing puts the pod's only init container in CrashLoopBackOff, its app waiting.
func initCrashing(p *corev1.Pod) {
	p.Status.Phase = corev1.PodPending
	fx.SetNotReady(p)
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: p.Spec.InitContainers[0].Name, RestartCount: 7,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}
	for i := range p.Status.ContainerStatuses {
		p.Status.ContainerStatuses[i].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}
	}
}

// Name-resolution failures as busybox, musl, Android/bionic and resolver libraries word
// them name the host they could not find; it is matched against the namespace's Services.
func TestNameResolutionWordings(t *testing.T) {
	withInit := func(name string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) { s.InitContainers = []corev1.Container{fx.Container(name, "busybox:1.36")} }
	}
	cases := []depCase{
		{name: "busybox nc in an init container", problem: "orders-7d9f8b6c5-x2k4q is stuck in Init:CrashLoopBackOff",
			objs: func() []runtime.Object {
				return append(app("orders", 1, withInit("wait-for-db"), initCrashing), fx.Node("node-1"))
			},
			logs: logBook{"orders-": "waiting for database\nnc: bad address 'postgres-main'\n"},
			rule: "dependency-host-unknown", culprit: "Deployment/orders", affected: []string{"Service/postgres-main"}, terms: []string{"postgres-main", "bad address"}},
		{name: "busybox nslookup", problem: "checkout never starts",
			objs: func() []runtime.Object {
				return append(app("checkout", 1, withInit("wait-for-cache"), initCrashing), svcAt("redis", "10.96.4.4", map[string]string{"app": "redis"}, 6379), fx.Node("node-1"))
			},
			logs: logBook{"checkout-": "Server:    10.96.0.10\nAddress 1: 10.96.0.10\nnslookup: can't resolve 'redis-master'\n"},
			rule: "dependency-host-unknown", culprit: "Deployment/checkout", affected: []string{"Service/redis"}, terms: []string{"redis-master", "did you mean redis"}},
		{name: "musl: Name does not resolve", problem: "the mailer keeps crashing",
			objs: func() []runtime.Object { return append(app("mailer", 1, nil, crashing), fx.Node("node-1")) },
			logs: logBook{"mailer-": "Traceback (most recent call last):\nsocket.gaierror: [Errno -2] Name does not resolve: unable to resolve smtp-relay\n"},
			rule: "dependency-host-unknown", culprit: "Deployment/mailer", affected: []string{"Service/smtp-relay"}, terms: []string{"smtp-relay"}},
	}
	runDepCases(t, cases)
}
