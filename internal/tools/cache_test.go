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

package tools

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A session's first reads in a namespace start one informer per kind, one after another;
// each must be served as soon as its informer has synced. Waiting with
// cache.WaitForCacheSync polled every 100 ms, so a namespace scan paid ~100 ms per kind
// before its first finding (the operator's create→root-cause p50 went from ~0.6 to ~1 s).
func TestInformerCacheFirstReadsDoNotWaitForAPoll(t *testing.T) {
	cs := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}},
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := NewInformerCache(cs, time.Minute)
	go func() { _ = c.Run(ctx) }()
	kinds := []string{"Pod", "Event", "Service", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"}
	start := time.Now()
	for _, k := range kinds {
		if _, served := c.List(ctx, k, "shop", ListOptions{}); !served {
			t.Fatalf("%s not served from the cache", k)
		}
	}
	took := time.Since(start)
	t.Logf("first reads of %d kinds took %s", len(kinds), took)
	if took > 400*time.Millisecond {
		t.Errorf("first reads of %d kinds took %s: a sync wait is polling instead of waiting on the informer", len(kinds), took)
	}
	if o, ok := c.Get(ctx, "Pod", "shop", "web-1"); !ok || o == nil {
		t.Errorf("pod web-1 not served")
	}
}

// The first read in a namespace starts the informers of every cached kind, so their LISTs
// run side by side rather than one per kind as the session gets to it.
func TestInformerCacheFirstReadStartsEveryKind(t *testing.T) {
	cs := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := NewInformerCache(cs, time.Minute)
	go func() { _ = c.Run(ctx) }()
	if _, served := c.List(ctx, "Pod", "shop", ListOptions{}); !served {
		t.Fatal("pods not served from the cache")
	}
	want := map[string]bool{}
	for _, k := range cachedKinds {
		want[k.gvr.Resource] = true
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		listed := map[string]bool{}
		for _, a := range cs.Actions() {
			if a.GetVerb() == "list" && a.GetNamespace() == "shop" {
				listed[a.GetResource().Resource] = true
			}
		}
		missing := []string{}
		for r := range want {
			if !listed[r] {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after one read of pods, these kinds were never listed: %v", missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
