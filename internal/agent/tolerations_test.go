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

// Pods that tolerate their node's NoExecute taint for 25 s are evicted and replaced every 25 s;
// the same toleration without tolerationSeconds keeps them, and is no finding.
func TestTolerationSecondsEvictsHealthyPods(t *testing.T) {
	objs := func(secs *int64) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("ingest-worker", 1, func(s *corev1.PodSpec) {
				s.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "ingest", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs},
					{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: fx.Ptr(int64(300))}}
			}, nil)
			n := fx.Node("node-1")
			n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "ingest", Effect: corev1.TaintEffectNoExecute}}
			return append(o, n)
		}
	}
	runDepCases(t, []depCase{
		{name: "tolerationSeconds 25", problem: "ingest workers keep getting replaced", objs: objs(fx.Ptr(int64(25))),
			rule: "toleration-seconds-evicts", culprit: "Deployment/ingest-worker", affected: []string{"Node/node-1"},
			terms: []string{"tolerationSeconds 25", "dedicated=ingest:NoExecute"}},
	})
	e := engine(objs(nil)()...)
	if rc := drive(t, e, sessionFor("ingest workers keep getting replaced")).RootCause; rc.Rule == "toleration-seconds-evicts" {
		t.Errorf("a toleration without tolerationSeconds was blamed: %s", rc.Summary)
	}
}
