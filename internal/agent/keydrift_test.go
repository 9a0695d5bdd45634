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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A server that rejects a user no setting gives (Laravel's default 'forge') is told a default:
// the client sets DB_USER where the framework reads DB_USERNAME, which a working sibling on the
// same database sets. When the rejected user is the configured one, the Secret is still blamed.
func TestRejectedDefaultUserNamesTheKeyASiblingSets(t *testing.T) {
	withSecretPassword := func(s *corev1.PodSpec) {
		envFrom("storefront-env")(s)
		s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "shop-db"}, Key: "password"}}})
	}
	objs := func() []runtime.Object {
		o := app("storefront", 1, withSecretPassword, crashing)
		o = append(o, app("backoffice", 1, envFrom("backoffice-env"), nil)...)
		o = append(o, app("shop-mysql", 1, nil, nil)...)
		return append(o,
			cmWith("storefront-env", "DB_CONNECTION", "mysql", "DB_HOST", "shop-mysql", "DB_PORT", "3306", "DB_DATABASE", "shop", "DB_USER", "shop", "APP_ENV", "production"),
			cmWith("backoffice-env", "DB_CONNECTION", "mysql", "DB_HOST", "shop-mysql", "DB_PORT", "3306", "DB_DATABASE", "shop", "DB_USERNAME", "shop", "APP_ENV", "production"),
			fx.Secret(ns, "shop-db", "password"),
			svcAt("shop-mysql", "10.96.3.3", map[string]string{"app": "shop-mysql"}, 3306), fx.Node("node-1"))
	}
	denied := func(user string) logBook {
		return logBook{"storefront-": "[2026-11-28 09:12:01] production.INFO: booting\n" + strings.Repeat("[2026-11-28 09:12:02] production.ERROR: SQLSTATE[HY000] [1045] Access denied for user '"+user+"'@'10.244.1.23' (using password: YES) (Connection: mysql, SQL: select * from `sessions`)\n", 3)}
	}
	runDepCases(t, []depCase{
		{name: "the default user forge", problem: "the shop is down", objs: objs, logs: denied("forge"),
			rule: "dependency-auth-failed", culprit: "ConfigMap/storefront-env", affected: []string{"Deployment/backoffice"}, terms: []string{"DB_USERNAME", "DB_USER", "forge"}},
		{name: "the configured user", problem: "the shop is down", objs: objs, logs: denied("shop"),
			rule: "dependency-auth-failed", culprit: "Secret/shop-db"},
	})
}
