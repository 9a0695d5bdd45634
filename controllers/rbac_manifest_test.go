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

package controllers_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestManagerRoleCannotListOrWatchSecrets reads the generated ClusterRole: the operator
// reads Secrets by the names objects give, one by one; it must not enumerate them.
func TestManagerRoleCannotListOrWatchSecrets(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(raw, &role); err != nil {
		t.Fatal(err)
	}
	if len(role.Rules) == 0 {
		t.Fatal("the generated role has no rules")
	}
	for _, rule := range role.Rules {
		core := slices.Contains(rule.APIGroups, "") || slices.Contains(rule.APIGroups, "*")
		secrets := slices.Contains(rule.Resources, "secrets") || slices.Contains(rule.Resources, "*")
		if !core || !secrets {
			continue
		}
		for _, verb := range rule.Verbs {
			if verb == "list" || verb == "watch" || verb == "*" {
				t.Errorf("the manager role grants %q on secrets cluster-wide: %+v", verb, rule)
			}
		}
	}
}

// clusterScoped are the cluster-scoped resources an RBAC rule might name; a rule bound by a
// RoleBinding grants none of them, so listing one in a namespace role only misleads.
var clusterScoped = []string{"nodes", "persistentvolumes", "namespaces", "storageclasses", "csidrivers", "csinodes",
	"clusterroles", "clusterrolebindings", "subjectaccessreviews", "priorityclasses", "ingressclasses", "runtimeclasses",
	"customresourcedefinitions", "validatingwebhookconfigurations", "mutatingwebhookconfigurations", "*"}

// TestAgentRolesReadClusterScopedOnlyWhereNeeded reads the agent's roles: the role bound in
// each session's namespace names namespaced kinds only, read-only and without Secrets; the
// role bound cluster-wide reads Nodes, PersistentVolumes, StorageClasses and CSIDrivers (the
// tools), IngressClasses and admission webhook configurations (the rules that follow an
// Ingress's class and a "failed calling webhook" event) only: never Namespaces, ClusterRoles
// or ClusterRoleBindings.
func TestAgentRolesReadClusterScopedOnlyWhereNeeded(t *testing.T) {
	read := func(name string) rbacv1.ClusterRole {
		raw, err := os.ReadFile(filepath.Join("..", "config", "rbac", name))
		if err != nil {
			t.Fatal(err)
		}
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(raw, &role); err != nil {
			t.Fatal(err)
		}
		if len(role.Rules) == 0 {
			t.Fatalf("%s has no rules", name)
		}
		return role
	}
	readOnly := func(role rbacv1.ClusterRole, rule rbacv1.PolicyRule) {
		for _, v := range rule.Verbs {
			if v != "get" && v != "list" && v != "watch" {
				t.Errorf("%s grants %q: %+v", role.Name, v, rule)
			}
		}
	}
	ns := read("agent_role.yaml")
	for _, rule := range ns.Rules {
		readOnly(ns, rule)
		for _, r := range rule.Resources {
			if slices.Contains(clusterScoped, r) || r == "secrets" {
				t.Errorf("the namespaced agent role names %q", r)
			}
		}
	}
	cluster := read("agent_result_cluster_role.yaml")
	needed := []string{"nodes", "persistentvolumes", "storageclasses", "csidrivers",
		"ingressclasses", "validatingwebhookconfigurations", "mutatingwebhookconfigurations"}
	granted := map[string]bool{}
	for _, rule := range cluster.Rules {
		readOnly(cluster, rule)
		for _, r := range rule.Resources {
			if !slices.Contains(needed, r) {
				t.Errorf("the cluster-wide agent role reads %q, which no tool needs", r)
			}
			granted[r] = true
		}
	}
	// A kind the engine reads but the task Job may not: its check silently finds nothing
	// when sessions run as Jobs.
	for _, r := range needed {
		if !granted[r] {
			t.Errorf("the cluster-wide agent role does not read %q, which the rule engine reads", r)
		}
	}
}
