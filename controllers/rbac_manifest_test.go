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
