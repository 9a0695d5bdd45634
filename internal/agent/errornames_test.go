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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A Ready application that logs the API server refusing what it creates ("exceeded quota:
// ci-builds") is explained by the ResourceQuota its line names, which a namespace scan finds
// fully used on its own: the quota is the cause, the application's error its symptom.
func TestErrorLineNamingAQuotaIsExplainedByIt(t *testing.T) {
	objs := app("runner", 1, nil, nil)
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "ci-builds", Namespace: ns},
		Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}},
		Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}}}
	objs = append(objs, q, fx.Node("node-1"))
	line := `WARNING: Job failed: prepare environment: setting up build pod: pods "runner-x7-project-42-0" is forbidden: exceeded quota: ci-builds, requested: pods=1, used: pods=6, limited: pods=6`
	book := logBook{"runner-": strings.Repeat("Checking for jobs... received job=4211\n"+line+"\n", 5)}
	// Without a target the scan finds the quota itself; pointed at the runner, the session
	// follows the quota its error names.
	for _, target := range []*agent.Target{nil, {Kind: "Deployment", Name: "runner"}} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = book.source()
		c := drive(t, e, agent.Session{ID: "t", Problem: "every CI job of the runner fails at once with a system failure", Namespace: ns, Target: target})
		rc := c.RootCause
		t.Logf("%s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
		if rc.Culprit.Kind != "ResourceQuota" || rc.Culprit.Name != "ci-builds" {
			t.Fatalf("target %v: culprit %s (%s): %s", target, rc.Culprit, rc.Rule, rc.Summary)
		}
	}
}
