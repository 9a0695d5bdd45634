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
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// policyJob is a Job ended by its podFailurePolicy: its container (named container) exited
// exit, and the Job's Failed condition carries reason and message as the Job controller writes them.
func policyJob(name, container string, exit int32, reason, msg string, rules ...batchv1.PodFailurePolicyRule) func() []runtime.Object {
	return func() []runtime.Object {
		j := fx.Job(ns, name, "registry.example/"+name+":2")
		j.Spec.Template.Spec.Containers[0].Name = container
		j.Spec.BackoffLimit = fx.Ptr(int32(4))
		j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: rules}
		j.Status.Failed = 1
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: msg}}
		p := fx.FailedJobPod(j, "q7x2k", exit)
		p.Status.ContainerStatuses[0].Name = container
		return []runtime.Object{j, p, fx.Node("node-1")}
	}
}

func onExit(action batchv1.PodFailurePolicyAction, container string, op batchv1.PodFailurePolicyOnExitCodesOperator, codes ...int32) batchv1.PodFailurePolicyRule {
	r := batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: codes}}
	if container != "" {
		r.OnExitCodes.ContainerName = fx.Ptr(container)
	}
	return r
}

func onCondition(action batchv1.PodFailurePolicyAction, typ corev1.PodConditionType) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{Action: action, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: typ, Status: corev1.ConditionTrue}}}
}

// A Job that failed at its first pod although its backoffLimit allows retries is explained by
// the podFailurePolicy rule that matched, target-less, whatever the container, the exit code,
// the operator or the rule's position, and over the failed pod's own error line.
func TestJobEndedByPodFailurePolicy(t *testing.T) {
	ignoreDisruption := onCondition(batchv1.PodFailurePolicyActionIgnore, corev1.DisruptionTarget)
	cases := []depCase{
		{name: "FailJob on exit code 1 of a named container, a transient S3 error", problem: "last night's export failed and was never retried",
			objs: policyJob("statement-export", "export", 1, "PodFailurePolicy", "Container export for pod payments/statement-export-q7x2k failed with exit code 1 matching FailJob rule at index 0",
				onExit(batchv1.PodFailurePolicyActionFailJob, "export", batchv1.PodFailurePolicyOnExitCodesOpIn, 1), ignoreDisruption),
			logs: logBook{"statement-export-": "INFO exporting 41233 statements\nERROR upload part 17: SlowDown: Please reduce your request rate. status code: 503\n"},
			rule: "job-pod-failure-policy", culprit: "Job/statement-export", terms: []string{"podFailurePolicy", "PodFailurePolicy", "FailJob", "exited with code 1", "backoffLimit of 4", "SlowDown"}},
		{name: "FailJob on every exit code but 0 and 42, in a Python worker, second rule", problem: "the reindex job gave up immediately",
			objs: policyJob("reindex", "worker", 3, "PodFailurePolicy", "Container worker for pod payments/reindex-q7x2k failed with exit code 3 matching FailJob rule at index 1",
				ignoreDisruption, onExit(batchv1.PodFailurePolicyActionFailJob, "", batchv1.PodFailurePolicyOnExitCodesOpNotIn, 0, 42)),
			logs: logBook{"reindex-": "Traceback (most recent call last):\n  File \"/app/reindex.py\", line 12, in <module>\nConnectionResetError: [Errno 104] Connection reset by peer\n"},
			rule: "job-pod-failure-policy", culprit: "Job/reindex", terms: []string{"podFailurePolicy rule 1", "NotIn", "exited with code 3"}},
		{name: "the message alone names the rule when the pod is gone", problem: "nightly-report failed",
			objs: func() []runtime.Object {
				o := policyJob("nightly-report", "report", 2, "PodFailurePolicy", "Container report for pod payments/nightly-report-zz9 failed with exit code 2 matching FailJob rule at index 0",
					onExit(batchv1.PodFailurePolicyActionFailJob, "report", batchv1.PodFailurePolicyOnExitCodesOpIn, 2, 3))()
				return []runtime.Object{o[0], o[2]}
			},
			rule: "job-pod-failure-policy", culprit: "Job/nightly-report", terms: []string{"podFailurePolicy", "FailJob on exit codes In [2,3]"}},
		{name: "FailJob on DisruptionTarget: a preempted pod ends the training run", problem: "the training job died overnight",
			objs: func() []runtime.Object {
				o := policyJob("train-resnet", "trainer", 137, "PodFailurePolicy", "Pod payments/train-resnet-q7x2k has condition DisruptionTarget matching FailJob rule at index 0",
					onCondition(batchv1.PodFailurePolicyActionFailJob, corev1.DisruptionTarget), onExit(batchv1.PodFailurePolicyActionCount, "", batchv1.PodFailurePolicyOnExitCodesOpIn, 137))()
				p := o[1].(*corev1.Pod)
				p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler"})
				return o
			},
			rule: "job-pod-failure-policy", culprit: "Job/train-resnet", terms: []string{"podFailurePolicy rule 0", "DisruptionTarget=True"}},
	}
	runDepCases(t, cases)
}

// A Job that reached its backoffLimit is not blamed on a policy whose rules never ended it.
func TestBackoffLimitIsNotAPolicyFailure(t *testing.T) {
	cases := []depCase{
		{name: "BackoffLimitExceeded with an Ignore rule on disruptions", problem: "the import job failed",
			objs: policyJob("import", "main", 1, "BackoffLimitExceeded", "Job has reached the specified backoff limit",
				onCondition(batchv1.PodFailurePolicyActionIgnore, corev1.DisruptionTarget), onExit(batchv1.PodFailurePolicyActionFailJob, "", batchv1.PodFailurePolicyOnExitCodesOpIn, 42)),
			logs: logBook{"import-": "ERROR invalid row 17: unexpected EOF\n"},
			rule: "job-backoff-limit", culprit: "Job/import", terms: []string{"BackoffLimitExceeded"}},
	}
	runDepCases(t, cases)
}
