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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A pod Pending on insufficient memory or cpu that would fit an empty node of its pool names
// the workload whose requests hold most of the pool; a pod too big for any node, or a pool
// shared by many small workloads, stays its own workload's finding.
func TestPendingPodNamesThePoolHolder(t *testing.T) {
	type sp struct {
		pending, holder, poolKey, pool, res string
		alloc, holderReq, pendingReq        string
	}
	for _, c := range []sp{
		{"recommender", "session-cache", "pool", "shared", "memory", "15Gi", "13Gi", "3Gi"},
		{"indexer", "warm-cache", "nodegroup.example/name", "batch", "memory", "32Gi", "24Gi", "12Gi"},
		{"renderer", "transcoder", "agentpool", "gpuless", "cpu", "8", "6", "3"},
	} {
		res := corev1.ResourceName(c.res)
		pin := func(s *corev1.PodSpec, req string) {
			s.NodeSelector = map[string]string{c.poolKey: c.pool}
			s.Containers[0].Resources.Requests = corev1.ResourceList{res: resource.MustParse(req)}
		}
		build := func(pendingReq string, holders int) []runtime.Object {
			var objs []runtime.Object
			for i := 0; i < 2; i++ {
				n := fx.Node(fmt.Sprintf("%s-%d", c.pool, i))
				n.Labels[c.poolKey] = c.pool
				n.Status.Allocatable[res] = resource.MustParse(c.alloc)
				objs = append(objs, n)
			}
			for h := 0; h < holders; h++ {
				name := c.holder
				req := c.holderReq
				if holders > 1 {
					// Many small workloads share the pool: none holds most of it.
					name, req = fmt.Sprintf("%s-%d", c.holder, h), "1"
					if c.res == "memory" {
						req = "1Gi"
					}
				}
				objs = append(objs, labelledApp(name, "app", 2, func(s *corev1.PodSpec) { pin(s, req) }, func(p *corev1.Pod) {
					p.Spec.NodeName = fmt.Sprintf("%s-%s", c.pool, p.Name[len(p.Name)-1:])
				})...)
			}
			objs = append(objs, labelledApp(c.pending, "app", 1, func(s *corev1.PodSpec) { pin(s, pendingReq) }, func(p *corev1.Pod) {
				fx.Unschedulable(p, fmt.Sprintf("0/2 nodes are available: 2 Insufficient %s. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.", c.res))
			})...)
			return objs
		}
		for _, target := range []*agent.Target{nil, {Kind: "Deployment", Name: c.pending}} {
			s := agent.Session{ID: "t", Problem: c.pending + " pods are stuck in Pending", Namespace: ns, Target: target}
			t.Run(fmt.Sprintf("%s/targeted=%t", c.pending, target != nil), func(t *testing.T) {
				cl := rootUnderShuffles(t, build(c.pendingReq, 1), logBook{}, s, "unschedulable-insufficient-resources on Deployment/"+c.holder)
				if sum := cl.RootCause.Summary; !strings.Contains(sum, c.holderReq) || !strings.Contains(sum, c.holder) {
					t.Errorf("summary lacks the holder's request: %s", sum)
				}
			})
			t.Run(fmt.Sprintf("%s/too big for any node/targeted=%t", c.pending, target != nil), func(t *testing.T) {
				big := "64Gi"
				if c.res == "cpu" {
					big = "64"
				}
				rootUnderShuffles(t, build(big, 1), logBook{}, s, "unschedulable-insufficient-resources on Deployment/"+c.pending)
			})
			t.Run(fmt.Sprintf("%s/many small holders/targeted=%t", c.pending, target != nil), func(t *testing.T) {
				rootUnderShuffles(t, build(c.pendingReq, 3), logBook{}, s, "unschedulable-insufficient-resources on Deployment/"+c.pending)
			})
		}
	}
}
