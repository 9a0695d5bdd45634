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

// A failing migration Job whose error names no setting, beside a healthy Deployment of the
// same image that loads a Secret the Job does not, is told the variables it lacks.
func TestSameImageSiblingHasTheMissingEnv(t *testing.T) {
	objs := func(jobLoadsSecret bool) func() []runtime.Object {
		return func() []runtime.Object {
			web := fx.Deployment(ns, "portal-web", 2, "registry.example/portal/portal:2025.11.1")
			web.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{
				{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "portal-config"}}},
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "portal-secrets"}}}}
			web.Status.ReadyReplicas = 2
			j := fx.Job(ns, "portal-migrate-142", "registry.example/portal/portal:2025.12.0")
			j.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "portal-config"}}}}
			if jobLoadsSecret {
				j.Spec.Template.Spec.Containers[0].EnvFrom = web.Spec.Template.Spec.Containers[0].EnvFrom
			}
			p := fx.FailedJobPod(j, "x1", 1)
			return []runtime.Object{web, j, p, cmWith("portal-config", "DJANGO_SETTINGS_MODULE", "portal.settings", "ALLOWED_HOSTS", "*"),
				fx.Secret(ns, "portal-secrets", "DATABASE_URL", "DJANGO_SECRET_KEY"), fx.Node("node-1")}
		}
	}
	line := "django.core.exceptions.ImproperlyConfigured: settings.DATABASES is improperly configured. Please supply the ENGINE value. Check settings documentation for more details.\n"
	runDepCases(t, []depCase{
		{name: "the hook Job does not load the Secret the web Deployment loads", problem: "the helm upgrade hook fails", objs: objs(false), logs: logBook{"portal-migrate-": line},
			rule: "config-value-missing", culprit: "Job/portal-migrate-142", affected: []string{"Secret/portal-secrets", "Deployment/portal-web"}, terms: []string{"DATABASE_URL", "portal-web"}},
	})
	e := engine(objs(true)()...)
	e.Logs = logBook{"portal-migrate-": line}.source()
	if rc := drive(t, e, sessionFor("the helm upgrade hook fails")).RootCause; rc.Rule == "config-value-missing" {
		t.Errorf("blamed missing env on a Job given the same env: %s", rc.Summary)
	}
}
