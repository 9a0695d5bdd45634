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

package ruleengine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A run-once process deployed as a Deployment exits 0 and is restarted because restartPolicy
// is Always. Between two restarts its container is Running, or Terminated with Completed, and
// looks healthy: the restarts after code 0 are the finding whatever moment the engine looks.
func TestProcessThatKeepsCompletingIsFoundBetweenRestarts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state func(cs *corev1.ContainerStatus)
	}{
		{name: "in CrashLoopBackOff", state: func(*corev1.ContainerStatus) {}},
		{name: "running again", state: func(cs *corev1.ContainerStatus) {
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(5 * time.Second)}}
			cs.Ready, cs.Started = true, fx.Ptr(true)
		}},
		{name: "just completed", state: func(cs *corev1.ContainerStatus) {
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
				StartedAt: fx.Ago(20 * time.Second), FinishedAt: fx.Ago(time.Second)}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, objs := webApp(1, func(p *corev1.Pod) {
				fx.CrashLoop(p, 0, "Completed", 3)
				tc.state(&p.Status.ContainerStatuses[0])
			})
			for _, target := range []*agent.Target{nil, deploy("web")} {
				s := agent.Session{ID: "t", Problem: "web keeps restarting even though it says it succeeded", Namespace: ns, Target: target}
				c, _, err := runSession(context.Background(), engine(objs...), s, agent.Budget{})
				if err != nil {
					t.Fatalf("session: %v", err)
				}
				rc := c.RootCause
				if rc.Rule != "crash-loop" || rc.Culprit.Kind != "Deployment" || !strings.Contains(rc.Summary, "Completed") {
					t.Errorf("target %v: got %s on %s: %s", target, rc.Rule, rc.Culprit, rc.Summary)
				}
			}
		})
	}
}
