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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A subdomain that a Service is named for is no fault, whatever the workers log; one that
// names no Service is, with the Service that selects the pods named.
func TestSubdomainNeedsItsService(t *testing.T) {
	for svcName, want := range map[string]bool{"train-workers": false, "train": true} {
		j := fx.Job(ns, "train", "pytorch/pytorch:2.4.0")
		j.Spec.Template.Spec.Subdomain = "train-workers"
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes", Message: "Job has failed indexes"}}
		svc := fx.Service(ns, svcName, map[string]string{"job-name": "train"}, intstr.FromInt32(29500))
		svc.Spec.ClusterIP = corev1.ClusterIPNone
		e := engine(j, fx.FailedJobPod(j, "0-abcde", 1), svc, fx.Node("node-1"))
		e.Logs = logBook{}.source()
		s := sessionFor("the training job failed")
		s.Target = &agent.Target{Kind: "Job", Name: "train"}
		rc := drive(t, e, s).RootCause
		if got := rc.Rule == "pod-subdomain-service-missing"; got != want {
			t.Errorf("Service %s: got %s on %s: %s", svcName, rc.Rule, rc.Culprit, rc.Summary)
		}
		if want && !hasRef(rc.AffectedObjects, "Service", "train") {
			t.Errorf("the Service that selects the pods is not named: %v", rc.AffectedObjects)
		}
	}
}
