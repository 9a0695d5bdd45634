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
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
)

// The same cause seen from two pods of a Job is one candidate; the Job's finding follows its
// last pod, which may be the second one merged. Whichever task reports first, the cause
// explains the Job's failure (the order once decided the answer).
func TestMergedFindingStillExplainsWhatFollowsAnyOfItsPods(t *testing.T) {
	ns := "shop"
	pod := func(n string) agent.ObjectRef { return agent.ObjectRef{Kind: "Pod", Namespace: ns, Name: n} }
	cfg := agent.ObjectRef{Kind: "ConfigMap", Namespace: ns, Name: "catalog-mysql-config"}
	job := agent.ObjectRef{Kind: "Job", Namespace: ns, Name: "import"}
	dep := func(p string) agent.Finding {
		return agent.Finding{Rule: "dependency-unreachable", Confidence: 70, Object: pod(p), Culprit: cfg, Summary: "pod " + p + " depends on catalog-mysql"}
	}
	jobF := agent.Finding{Rule: "job-backoff-limit", Confidence: 85, Object: job, Culprit: job, Follow: []agent.ObjectRef{pod("import-b")}, Summary: "Job import failed"}
	orders := [][]agent.Finding{{dep("import-a"), dep("import-b"), jobF}, {dep("import-b"), dep("import-a"), jobF}, {jobF, dep("import-a"), dep("import-b")}}
	for i, fs := range orders {
		var p agent.Progress
		for j, f := range fs {
			p.Results = append(p.Results, agent.TaskResult{TaskID: string(rune('a' + j)), Findings: []agent.Finding{f}})
		}
		e := agent.NewRuleEngine(fake.NewClientset())
		c, err := e.Summarize(context.Background(), agent.Session{ID: "t", Problem: "KubeJobFailed: Job import failed", Namespace: ns}, p)
		if err != nil {
			t.Fatal(err)
		}
		if c.RootCause.Culprit.Key() != cfg.Key() {
			t.Errorf("order %d: %s on %s", i, c.RootCause.Rule, c.RootCause.Culprit)
		}
	}
}
