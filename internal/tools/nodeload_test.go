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
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubage/kubage/internal/tools"
)

func loadPod(namespace, name, node, cpu, mem string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}},
		Status: corev1.PodStatus{Phase: phase},
	}
}

func TestRequestedByNodeSumsEveryNamespaceInOneList(t *testing.T) {
	cs := fake.NewClientset(
		loadPod(ns, "a", "node-1", "500m", "256Mi", corev1.PodRunning),
		loadPod("other", "b", "node-1", "1", "1Gi", corev1.PodRunning),
		loadPod("other", "c", "node-2", "250m", "128Mi", corev1.PodPending),
		loadPod("other", "done", "node-1", "4", "4Gi", corev1.PodSucceeded),
		loadPod("other", "failed", "node-2", "4", "4Gi", corev1.PodFailed),
		loadPod(ns, "unbound", "", "8", "8Gi", corev1.PodPending),
	)
	lists := 0
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		lists++
		return false, nil, nil
	})
	c := tools.Builtin(cs, tools.Scope{Namespace: ns}).Client()
	load, complete, err := c.RequestedByNode(context.Background())
	if err != nil || !complete {
		t.Fatalf("complete=%v err=%v", complete, err)
	}
	if lists != 1 {
		t.Errorf("want one list for the whole cluster, got %d", lists)
	}
	want := map[string][3]string{"node-1": {"1500m", "1280Mi", "2"}, "node-2": {"250m", "128Mi", "1"}}
	if len(load) != len(want) {
		t.Fatalf("want nodes %v, got %v", want, load)
	}
	for node, w := range want {
		l := load[node]
		if got := [3]string{l.CPU.String(), l.Memory.String(), fmt.Sprint(l.Pods)}; got != w {
			t.Errorf("%s: want %v, got %v", node, w, got)
		}
	}
}

func TestRequestedByNodeForbiddenAndPartial(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("cluster-wide list denied"))
	})
	c := tools.Builtin(cs, tools.Scope{Namespace: ns}).Client()
	if _, _, err := c.RequestedByNode(context.Background()); !apierrors.IsForbidden(errors.Unwrap(err)) {
		t.Fatalf("want the forbidden error, got %v", err)
	}

	var objs []runtime.Object
	for i := 0; i < tools.HardListMax+10; i++ {
		objs = append(objs, loadPod("other", fmt.Sprintf("p%05d", i), "node-1", "1m", "1Mi", corev1.PodRunning))
	}
	c = tools.Builtin(fake.NewClientset(objs...), tools.Scope{Namespace: ns}).Client()
	load, complete, err := c.RequestedByNode(context.Background())
	if err != nil || complete {
		t.Fatalf("a cluster beyond one bounded list must be reported partial: complete=%v err=%v", complete, err)
	}
	if load["node-1"].Pods != tools.HardListMax {
		t.Errorf("want the bounded prefix summed, got %d pods", load["node-1"].Pods)
	}
}
