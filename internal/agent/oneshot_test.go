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
	"context"
	"io"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"

	fx "github.com/kubage/kubage/test/fixtures"
)

// failedJob is a Job that ran out of retries, with its last pod.
func failedJob(name string) []runtime.Object {
	j := fx.Job(ns, name, "registry.example/"+name+":1")
	j.Status.Failed = 7
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}
	return []runtime.Object{j, fx.FailedJobPod(j, "abcde", 2)}
}

// A failed one-shot Job is a confident finding of its own, but the scan still reads the
// Running, Ready workloads beside it: their errors are what users see, and the Job explains them.
func TestFailedJobExplainsReadyConsumersErrors(t *testing.T) {
	refund := "I, Started POST \"/refunds\" for 10.0.0.7\nE, ActiveRecord::StatementInvalid (PG::UndefinedTable: ERROR:  relation \"refunds\" does not exist\nLINE 1: SELECT \"refunds\".* FROM \"refunds\"):\n"
	relation := strings.Repeat(refund, 3)
	cases := []depCase{
		{name: "a failed migration Job explains the web pods' missing table", problem: "refunds fail with a server error",
			objs: func() []runtime.Object {
				return append(append(failedJob("db-migrate"), app("web", 2, nil, nil)...), fx.Node("node-1"))
			},
			logs:    logBook{"web-": relation, "db-migrate-": "CommandError: Conflicting migrations detected\n"},
			rule:    "job-backoff-limit",
			culprit: "Job/db-migrate", affected: []string{"Deployment/web"}, terms: []string{`relation "refunds" does not exist`, "Path: Pod/web-"}},
		{name: "a migration Job failing on the schema itself is its own failure", problem: "the release failed at the migration step",
			objs: func() []runtime.Object { return append(failedJob("db-migrate"), fx.Node("node-1")) },
			logs: logBook{"db-migrate-": relation},
			rule: "job-backoff-limit", culprit: "Job/db-migrate", terms: []string{`relation "refunds" does not exist`}},
		{name: "Ready pods with clean logs leave the failed Job alone", problem: "the nightly export did not run",
			objs: func() []runtime.Object {
				return append(append(failedJob("export"), app("web", 1, nil, nil)...), fx.Node("node-1"))
			},
			logs: logBook{"export-": "ERROR upload failed: bucket not found\n"},
			rule: "job-backoff-limit", culprit: "Job/export"},
	}
	runDepCases(t, cases)
}

// The extra reads are bounded: however many Ready workloads stand beside a failed Job, only
// a few of their pods are read.
func TestFailedJobConsumerReadsAreBounded(t *testing.T) {
	objs := append(failedJob("migrate"), fx.Node("node-1"))
	for i := 0; i < 12; i++ {
		objs = append(objs, app("svc"+strings.Repeat("x", i+1), 1, nil, nil)...)
	}
	read := map[string]bool{}
	e := engine(objs...)
	src := logBook{}.source()
	e.Logs = func(ctx context.Context, n, pod string, o *corev1.PodLogOptions) (io.ReadCloser, error) {
		read[pod] = true
		return src(ctx, n, pod, o)
	}
	drive(t, e, agent.Session{ID: "t", Problem: "the migration failed", Namespace: ns})
	n := 0
	for p := range read {
		if strings.HasPrefix(p, "svc") {
			n++
		}
	}
	if n == 0 || n > 4 {
		t.Fatalf("read the logs of %d Ready pods beside the failed Job, want 1..4: %v", n, read)
	}
}
