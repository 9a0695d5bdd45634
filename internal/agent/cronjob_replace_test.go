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
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A Replace CronJob's deleted Jobs count as killed runs only while no run finishes: the
// controller's history cleanup deletes finished Jobs with the same "Deleted job" event.
func TestCronJobReplaceNeedsNoSuccessSince(t *testing.T) {
	const ns = "batch"
	cluster := func(succeeded bool) []runtime.Object {
		cj := fx.CronJob(ns, "export", "* * * * *")
		cj.UID = fx.UID("CronJob", "export")
		cj.CreationTimestamp = fx.Ago(10 * time.Minute)
		cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
		j := fx.Job(ns, "export-103", "busybox:1.36")
		j.CreationTimestamp = fx.Ago(20 * time.Second)
		j.Status.StartTime = fx.Ptr(fx.Ago(20 * time.Second))
		j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
		cj.Status.LastScheduleTime = fx.Ptr(fx.Ago(20 * time.Second))
		if succeeded {
			j.Status.Succeeded = 1
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: fx.Ago(5 * time.Second)}}
			cj.Status.LastSuccessfulTime = fx.Ptr(fx.Ago(5 * time.Second))
		} else {
			j.Status.Active = 1
			cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "export-103", Namespace: ns}}
		}
		return []runtime.Object{cj, j, fx.Node("node-1"),
			fx.Event(ns, "CronJob", "export", "Normal", "SuccessfulDelete", "Deleted job export-100", 1, 200*time.Second),
			fx.Event(ns, "CronJob", "export", "Normal", "SuccessfulDelete", "Deleted job export-101", 1, 80*time.Second)}
	}
	for _, succeeded := range []bool{false, true} {
		e := agent.NewRuleEngine(fake.NewClientset(cluster(succeeded)...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{}.source()
		c := drive(t, e, agent.Session{ID: "t", Problem: "the export stopped delivering", Namespace: ns, Target: &agent.Target{Kind: "CronJob", Name: "export"}})
		got := c.RootCause.Rule == "cronjob-runs-replaced"
		if got == succeeded {
			t.Errorf("succeeded=%v: rule %s: %s", succeeded, c.RootCause.Rule, c.RootCause.Summary)
		}
	}
}
