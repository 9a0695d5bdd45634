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

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// uids maps fixture UIDs to the UIDs the real API server assigned.
var uids = map[string]string{}

func fixOwners(m metav1.Object, owners []metav1.Object) {
	refs := m.GetOwnerReferences()
	for i := range refs {
		if u, ok := uids[string(refs[i].UID)]; ok {
			refs[i].UID = typesUID(u)
		}
	}
	m.SetOwnerReferences(refs)
}

func createApps(ctx context.Context, cs kubernetes.Interface, o runtime.Object, _ []metav1.Object) error {
	switch x := o.(type) {
	case *appsv1.Deployment:
		old := string(x.UID)
		y := x.DeepCopy()
		y.UID, y.ResourceVersion = "", ""
		created, err := cs.AppsV1().Deployments(y.Namespace).Create(ctx, y, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		uids[old] = string(created.UID)
		created.Status = x.Status
		_, err = cs.AppsV1().Deployments(y.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	case *appsv1.ReplicaSet:
		old := string(x.UID)
		y := x.DeepCopy()
		y.UID, y.ResourceVersion = "", ""
		fixOwners(y, nil)
		created, err := cs.AppsV1().ReplicaSets(y.Namespace).Create(ctx, y, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		uids[old] = string(created.UID)
		created.Status = x.Status
		_, err = cs.AppsV1().ReplicaSets(y.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	}
	return fmt.Errorf("no create for %T", o)
}

func typesUID(s string) types.UID { return types.UID(s) }
