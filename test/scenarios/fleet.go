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

package scenarios

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podsPerFleetNode is the pod capacity of a fleet node (the kubelet's default maxPods).
const podsPerFleetNode = 110

// Fleet is a large namespace: a healthy Deployment of n replicas on dedicated kwok nodes (110
// pods each, as many as needed) next to one crash-looping Deployment, investigated without a
// target. It is not part of All: it costs minutes of control-plane work, so only the benchmark
// deploys it.
func Fleet(n int) *Scenario {
	nodes := (n + podsPerFleetNode - 11) / (podsPerFleetNode - 10)
	return &Scenario{
		Name: fmt.Sprintf("fleet-%d", n), Covers: fmt.Sprintf("a namespace of %d healthy pods and one crash-looping Deployment, no target", n),
		Problem: "the api pods keep crashing",
		// The crash says which setting is missing, and the pod sets no DATABASE_URL: the
		// catalogue's specific rule for that (config-value-missing, added after this scenario)
		// is the right answer, on the same Deployment, naming the setting.
		Want: Want{Rule: "config-value-missing", Culprit: Ref{Kind: "Deployment", Name: "api"}, Terms: []string{"DATABASE_URL"}},
		Setup: func(ctx context.Context, e *Env) error {
			for i := 0; i < nodes; i++ {
				if _, err := e.createNode(ctx, nodeSpec{name: fmt.Sprintf("fleet-%d", i), kwok: true, pods: podsPerFleetNode}); err != nil {
					return err
				}
			}
			fleet := deployment("fleet", "example/fleet:1.0", int32(n), nil)
			e.pin(&fleet.Spec.Template)
			if err := e.createDeployment(ctx, fleet); err != nil {
				return err
			}
			api := deployment("api", "example/api:2.1", 1, sim("crashloop", annExitCode, "1", annMessage, "config: missing DATABASE_URL"))
			e.pin(&api.Spec.Template)
			return e.createDeployment(ctx, api)
		},
		Wait: all(anyPod("api", crashLooping(3)), func(ctx context.Context, e *Env) error {
			d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "fleet", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if d.Status.AvailableReplicas < int32(n) {
				return fmt.Errorf("fleet has %d of %d pods available", d.Status.AvailableReplicas, n)
			}
			return nil
		}),
	}
}
