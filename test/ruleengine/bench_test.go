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
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// BenchmarkScenarios reports engine time and API requests per session for each fake-cluster
// scenario (the local-cluster figures come from the e2e suite).
func BenchmarkScenarios(b *testing.B) {
	for _, sc := range scenarios() {
		objs := sc.objs()
		b.Run(sc.name, func(b *testing.B) {
			var reqs int64
			for i := 0; i < b.N; i++ {
				e := engine(objs...)
				_, tr, err := runSession(context.Background(), e, agent.Session{Namespace: ns, Target: sc.target}, agent.Budget{})
				if err != nil {
					b.Fatal(err)
				}
				reqs = tr.APIRequests
			}
			b.ReportMetric(float64(reqs), "apireq/session")
		})
	}
}

// BenchmarkNamespace2000Pods is a whole-namespace session over 2,000 pods.
func BenchmarkNamespace2000Pods(b *testing.B) {
	_, _, objs := webApp(3, func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 9) })
	d := fx.Deployment(ns, "fleet", 2000, "registry.example/fleet:1")
	rs := fx.ReplicaSet(d, 1, 2000, "registry.example/fleet:1")
	objs = append(objs, d, rs)
	for i := 0; i < 2000; i++ {
		objs = append(objs, runtime.Object(fx.PodFor(rs, fmt.Sprintf("f%05d", i))))
	}
	b.ResetTimer()
	var reqs int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := engine(objs...)
		b.StartTimer()
		c, tr, err := runSession(context.Background(), e, agent.Session{Namespace: ns}, agent.Budget{})
		if err != nil || c.RootCause.Rule != "crash-loop" {
			b.Fatalf("%v %s", err, c.RootCause.Rule)
		}
		reqs = tr.APIRequests
	}
	b.ReportMetric(float64(reqs), "apireq/session")
}
