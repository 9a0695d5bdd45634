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

package session_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/session"
)

// The in-memory state behaves as the API server does for what sessions do with ConfigMaps.
func TestMemoryStateKeepsConfigMapsLikeTheAPIServer(t *testing.T) {
	ctx := context.Background()
	cms := session.NewMemoryState().CoreV1().ConfigMaps("shop")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}}, Data: map[string]string{"x": "1"}}
	created, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil || created.ResourceVersion == "" || created.Namespace != "shop" {
		t.Fatalf("create: %v %+v", err, created)
	}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v", err)
	}
	created.Data["x"] = "2"
	updated, err := cms.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.ResourceVersion == created.ResourceVersion {
		t.Fatalf("update: %v %+v", err, updated)
	}
	if _, err := cms.Update(ctx, created, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("a stale update must conflict: %v", err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "k=v"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Data["x"] != "2" {
		t.Fatalf("list by label: %v %+v", err, list)
	}
	if other, _ := session.NewMemoryState().CoreV1().ConfigMaps("shop").List(ctx, metav1.ListOptions{}); len(other.Items) != 0 {
		t.Fatalf("stores are apart")
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
}
