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

package kubectlplugin

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

func TestParseTarget(t *testing.T) {
	cases := []struct {
		arg, kind, group, resource string
		namespaced                 bool
	}{
		{"deploy/checkout", "Deployment", "apps", "deployments", true},
		{"deployment/checkout", "Deployment", "apps", "deployments", true},
		{"Deployment/checkout", "Deployment", "apps", "deployments", true},
		{"deployments.apps/checkout", "Deployment", "apps", "deployments", true},
		{"sts/db", "StatefulSet", "apps", "statefulsets", true},
		{"ds/agent", "DaemonSet", "apps", "daemonsets", true},
		{"po/web-0", "Pod", "", "pods", true},
		{"pods/web-0", "Pod", "", "pods", true},
		{"svc/web", "Service", "", "services", true},
		{"pvc/data-db-0", "PersistentVolumeClaim", "", "persistentvolumeclaims", true},
		{"job/nightly", "Job", "batch", "jobs", true},
		{"cj/nightly", "CronJob", "batch", "cronjobs", true},
		{"CronJob/nightly", "CronJob", "batch", "cronjobs", true},
		{"no/node-1", "Node", "", "nodes", false},
		{"node/node-1", "Node", "", "nodes", false},
	}
	for _, c := range cases {
		t.Run(c.arg, func(t *testing.T) {
			g := NewWithT(t)
			got, err := ParseTarget(c.arg, nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Kind).To(Equal(c.kind))
			g.Expect(got.Resource.Group).To(Equal(c.group))
			g.Expect(got.Resource.Resource).To(Equal(c.resource))
			g.Expect(got.Namespaced).To(Equal(c.namespaced))
			g.Expect(got.Spec()).To(Equal(&kubagev1alpha1.TroubleshootTarget{APIGroup: c.group, Kind: c.kind, Name: got.Name}))
			g.Expect(got.String()).To(Equal(strings.ToLower(c.kind) + "/" + got.Name))
		})
	}
}

func TestParseTargetRejects(t *testing.T) {
	for arg, msg := range map[string]string{
		"checkout":        "want <kind>/<name>",
		"deploy/":         "want <kind>/<name>",
		"/checkout":       "want <kind>/<name>",
		"deploy/a/b":      "want <kind>/<name>",
		"widget/x":        `unknown kind "widget"`,
		"deploy.batch/x":  `unknown kind "deploy.batch"`,
		"namespace/shop?": `unknown kind "namespace"`,
	} {
		_, err := ParseTarget(arg, nil)
		NewWithT(t).Expect(err).To(MatchError(ContainSubstring(msg)), arg)
	}
}

func TestParseTargetFallsBackToTheMapper(t *testing.T) {
	g := NewWithT(t)
	rollouts := schema.GroupVersion{Group: "argoproj.io", Version: "v1alpha1"}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{rollouts, {Version: "v1"}})
	mapper.Add(rollouts.WithKind("Rollout"), meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)

	got, err := ParseTarget("rollout/checkout", mapper)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Kind).To(Equal("Rollout"))
	g.Expect(got.Resource).To(Equal(rollouts.WithResource("rollouts")))
	g.Expect(got.Spec().APIGroup).To(Equal("argoproj.io"))

	_, err = ParseTarget("namespace/shop", mapper)
	g.Expect(err).To(MatchError(ContainSubstring("Namespace is cluster-scoped")))
	_, err = ParseTarget("gadget/x", mapper)
	g.Expect(err).To(MatchError(ContainSubstring(`the server does not know the kind "gadget"`)))
}

func TestNewTroubleshoot(t *testing.T) {
	g := NewWithT(t)
	target, err := ParseTarget("deploy/checkout", nil)
	g.Expect(err).NotTo(HaveOccurred())

	ts, err := NewTroubleshoot("shop", &target, DiagnoseOptions{Mode: "remediate", Runner: "inprocess"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Namespace).To(Equal("shop"))
	g.Expect(ts.GenerateName).To(Equal("checkout-"))
	g.Expect(ts.Spec.Problem).To(Equal("Deployment checkout does not work as expected"))
	g.Expect(ts.Spec.Target).To(Equal(&kubagev1alpha1.TroubleshootTarget{APIGroup: "apps", Kind: "Deployment", Name: "checkout"}))
	g.Expect(ts.Spec.Mode).To(Equal(kubagev1alpha1.ModeRemediate))
	g.Expect(ts.Spec.TaskRunner).To(Equal(kubagev1alpha1.TaskRunnerInProcess))

	ts, err = NewTroubleshoot("shop", nil, DiagnoseOptions{Problem: "checkout is slow"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.GenerateName).To(Equal("scan-"))
	g.Expect(ts.Spec.Target).To(BeNil(), "no target: the whole namespace")
	g.Expect(ts.Spec.Mode).To(BeEmpty(), "the API's default applies")

	_, err = NewTroubleshoot("shop", nil, DiagnoseOptions{})
	g.Expect(err).To(MatchError(ContainSubstring("needs --problem")))
	_, err = NewTroubleshoot("shop", &target, DiagnoseOptions{Mode: "Fix"})
	g.Expect(err).To(MatchError(ContainSubstring(`--mode "Fix"`)))
	_, err = NewTroubleshoot("shop", &target, DiagnoseOptions{Runner: "Pod"})
	g.Expect(err).To(MatchError(ContainSubstring(`--runner "Pod"`)))

	long := Target{Kind: "Pod", Name: strings.Repeat("a", 60) + "-x"}
	g.Expect(len(generateNameFor(&long))).To(BeNumerically("<=", 41))
}

func TestExitCode(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ExitCode(nil)).To(Equal(0))
	g.Expect(ExitCode(ErrCRDsMissing)).To(Equal(1))
	g.Expect(ExitCode(&ExitError{Code: ExitNoRootCause, Err: ErrCRDsMissing})).To(Equal(2))
}
