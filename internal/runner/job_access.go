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

package runner

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Cleanup implements Runner: it deletes the owner's task Jobs (their pods follow in the
// background). An owner without UID stands for every Troubleshoot of that name.
func (r *Job) Cleanup(ctx context.Context, owner Owner) error {
	own, _ := labels.NewRequirement(LabelTroubleshoot, selection.Equals, []string{LabelValue(owner.Name)})
	comp, _ := labels.NewRequirement(LabelComponent, selection.Equals, []string{ComponentTask})
	jobs := r.client.BatchV1().Jobs(owner.Namespace)
	list, err := jobs.List(ctx, metav1.ListOptions{LabelSelector: labels.NewSelector().Add(*own, *comp).String(), Limit: maxListedJobs})
	if err != nil {
		return fmt.Errorf("listing Jobs of %s: %w", owner, err)
	}
	var errs []error
	for i := range list.Items {
		j := &list.Items[i]
		if owner.UID != "" && !owner.Owns(j.OwnerReferences) {
			continue
		}
		if owner.UID == "" && !ownedByName(j.OwnerReferences, owner.Name) {
			continue
		}
		if j.DeletionTimestamp != nil {
			continue
		}
		if err := r.deleteJob(ctx, j); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func ownedByName(refs []metav1.OwnerReference, name string) bool {
	for _, r := range refs {
		if r.Kind == "Troubleshoot" && r.Name == name {
			return true
		}
	}
	return false
}

// ensureAccess creates, when missing, the agent's ServiceAccount in ns, RoleBindings to the
// read and result roles there, and a ClusterRoleBinding to the cluster read role that the
// Namespace owns (so it goes away with the namespace). An existing binding of the same name
// must bind exactly the agent's ServiceAccount to the expected role: one that grants
// something else (cluster-admin, another subject) is refused with ErrAccessConflict rather
// than trusted; an administrator who tailors the agent's access turns ManageAccess off.
func (r *Job) ensureAccess(ctx context.Context, ns string) error {
	r.mu.Lock()
	at, ok := r.access[ns]
	r.mu.Unlock()
	if ok && r.now().Sub(at) < accessRecheck {
		return nil
	}
	meta := func(name, namespace string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
			LabelManagedBy: "kubage", LabelAgent: ComponentAgent,
		}}
	}
	sa := r.opts.ServiceAccount
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}}
	if _, err := r.client.CoreV1().ServiceAccounts(ns).Get(ctx, sa, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		_, err = r.client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta(sa, ns)}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ServiceAccount %s/%s for task Jobs: %w", ns, sa, err)
		}
	} else if err != nil {
		return fmt.Errorf("reading ServiceAccount %s/%s: %w", ns, sa, err)
	}
	for _, role := range []string{r.opts.ReadRole, r.opts.ResultRole} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: meta(role, ns),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   subject,
		}
		_, err := r.client.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var old *rbacv1.RoleBinding
			if old, err = r.client.RbacV1().RoleBindings(ns).Get(ctx, rb.Name, metav1.GetOptions{}); err == nil {
				err = checkBinding("RoleBinding "+ns+"/"+rb.Name, old.RoleRef, old.Subjects, rb.RoleRef, subject)
			}
		}
		if err != nil {
			return fmt.Errorf("binding ClusterRole %s to %s/%s: %w", role, ns, sa, err)
		}
	}
	nsObj, err := r.client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading Namespace %s: %w", ns, err)
	}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: meta(ObjectName(r.opts.ClusterReadRole, ns), ""),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: r.opts.ClusterReadRole},
		Subjects:   subject,
	}
	crb.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: ns, UID: nsObj.UID}}
	_, err = r.client.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var old *rbacv1.ClusterRoleBinding
		if old, err = r.client.RbacV1().ClusterRoleBindings().Get(ctx, crb.Name, metav1.GetOptions{}); err == nil {
			err = checkBinding("ClusterRoleBinding "+crb.Name, old.RoleRef, old.Subjects, crb.RoleRef, subject)
		}
	}
	if err != nil {
		return fmt.Errorf("binding ClusterRole %s to %s/%s: %w", r.opts.ClusterReadRole, ns, sa, err)
	}
	r.mu.Lock()
	if len(r.access) >= maxAccessCache {
		clear(r.access)
	}
	r.access[ns] = r.now()
	r.mu.Unlock()
	return nil
}

// ErrAccessConflict: a binding the Job runner manages exists with other contents.
var ErrAccessConflict = errors.New("agent binding has unexpected contents")

// checkBinding accepts an existing binding only when it grants what the runner would.
func checkBinding(what string, ref rbacv1.RoleRef, subjects []rbacv1.Subject, wantRef rbacv1.RoleRef, want []rbacv1.Subject) error {
	if ref != wantRef {
		return fmt.Errorf("%w: %s binds %s %s, not %s %s", ErrAccessConflict, what, ref.Kind, ref.Name, wantRef.Kind, wantRef.Name)
	}
	if len(subjects) != len(want) {
		return fmt.Errorf("%w: %s binds %d subjects, not only the agent's ServiceAccount", ErrAccessConflict, what, len(subjects))
	}
	for i := range subjects {
		if subjects[i] != want[i] {
			return fmt.Errorf("%w: %s binds %s %s/%s, not the agent's ServiceAccount", ErrAccessConflict, what,
				subjects[i].Kind, subjects[i].Namespace, subjects[i].Name)
		}
	}
	return nil
}
