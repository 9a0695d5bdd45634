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
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file answers "may this subject do that?" for the session namespace: the
// authorizer's verdict (a SubjectAccessReview) and the RBAC objects that explain it.

// AccessQuestion is one permission asked about a subject.
type AccessQuestion struct {
	User     string
	Groups   []string
	Verb     string
	Group    string // API group of the resource ("" for core)
	Resource string // plural, lower case; "pods/log" names a subresource
	Name     string // optional object name
	// ClusterScoped asks about a resource outside namespaces (nodes, persistentvolumes):
	// the review carries no namespace, so a RoleBinding cannot grant it.
	ClusterScoped bool
}

// AccessAnswer is the authorizer's verdict.
type AccessAnswer struct {
	Allowed bool
	Denied  bool
	Reason  string
}

// ServiceAccountUser is the user name Kubernetes gives a service account.
func ServiceAccountUser(ns, name string) (string, []string) {
	return "system:serviceaccount:" + ns + ":" + name, []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
}

// Review asks the API server's authorizer, in the session namespace.
func (c *Client) Review(ctx context.Context, q AccessQuestion) (AccessAnswer, error) {
	if err := c.CheckNamespace(""); err != nil {
		return AccessAnswer{}, err
	}
	c.count()
	res, sub, _ := strings.Cut(q.Resource, "/")
	ns := c.scope.Namespace
	if q.ClusterScoped {
		ns = ""
	}
	r, err := c.cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: q.User, Groups: q.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: q.Verb, Group: q.Group, Resource: res, Subresource: sub, Name: q.Name},
	}}, metav1.CreateOptions{})
	if err != nil {
		return AccessAnswer{}, fmt.Errorf("subject access review: %w", err)
	}
	return AccessAnswer{Allowed: r.Status.Allowed, Denied: r.Status.Denied, Reason: Sanitize(r.Status.Reason+" "+r.Status.EvaluationError, 300, true)}, nil
}

// RBACView is the RBAC that can apply in the session namespace.
type RBACView struct {
	Roles               []rbacv1.Role
	RoleBindings        []rbacv1.RoleBinding
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	// ClusterRoles holds the ClusterRoles the bindings refer to (missing ones are absent).
	ClusterRoles map[string]*rbacv1.ClusterRole
}

// maxRBACObjects bounds each list of RBAC objects read.
const maxRBACObjects = 500

// RBAC reads the namespace's Roles and RoleBindings, the ClusterRoleBindings, and the
// ClusterRoles those bindings use.
func (c *Client) RBAC(ctx context.Context) (RBACView, error) {
	v := RBACView{ClusterRoles: map[string]*rbacv1.ClusterRole{}}
	if err := c.CheckNamespace(""); err != nil {
		return v, err
	}
	lim := metav1.ListOptions{Limit: maxRBACObjects}
	c.count()
	roles, err := c.cs.RbacV1().Roles(c.scope.Namespace).List(ctx, lim)
	if err != nil {
		return v, fmt.Errorf("list roles: %w", err)
	}
	c.count()
	rbs, err := c.cs.RbacV1().RoleBindings(c.scope.Namespace).List(ctx, lim)
	if err != nil {
		return v, fmt.Errorf("list rolebindings: %w", err)
	}
	c.count()
	crbs, err := c.cs.RbacV1().ClusterRoleBindings().List(ctx, lim)
	if err != nil {
		return v, fmt.Errorf("list clusterrolebindings: %w", err)
	}
	v.Roles, v.RoleBindings, v.ClusterRoleBindings = capSlice(roles.Items), capSlice(rbs.Items), capSlice(crbs.Items)
	want := map[string]bool{}
	for _, b := range v.RoleBindings {
		if b.RoleRef.Kind == "ClusterRole" {
			want[b.RoleRef.Name] = true
		}
	}
	for _, b := range v.ClusterRoleBindings {
		want[b.RoleRef.Name] = true
	}
	if len(want) > 0 {
		c.count()
		crs, err := c.cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{Limit: 2 * maxRBACObjects})
		if err != nil {
			return v, fmt.Errorf("list clusterroles: %w", err)
		}
		for i := range crs.Items {
			if want[crs.Items[i].Name] {
				v.ClusterRoles[crs.Items[i].Name] = &crs.Items[i]
			}
		}
	}
	return v, nil
}

func capSlice[T any](l []T) []T {
	if len(l) > maxRBACObjects {
		return l[:maxRBACObjects]
	}
	return l
}
