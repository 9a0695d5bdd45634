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

package report

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sample() Report {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return Report{
		Name: "web-restarts", Namespace: "payments",
		Problem: "Pods of web keep restarting since the last rollout",
		Target:  "Deployment/web", Mode: "Remediate", Phase: "Completed", Outcome: "Succeeded",
		StartTime: t0, EndTime: t0.Add(9 * time.Second),
		Timeline: []Mark{
			{Phase: "Pending", At: t0},
			{Phase: "Planning", Iteration: 1, At: t0.Add(time.Second)},
			{Phase: "Investigating", Iteration: 1, At: t0.Add(2 * time.Second), Note: "1 task(s) planned"},
			{Phase: "Regulating", Iteration: 1, At: t0.Add(5 * time.Second)},
			{Phase: "Summarizing", Iteration: 1, At: t0.Add(6 * time.Second), Note: "Conclude: 1 finding(s), no unexamined lead left"},
			{Phase: "Completed", Iteration: 1, At: t0.Add(9 * time.Second)},
		},
		Iterations: []Iteration{{Number: 1, Verdict: "Conclude: 1 finding(s), no unexamined lead left", Tasks: []Task{
			{ID: "i1-t1", Description: "analyze Deployment/web (session target)", State: "Succeeded", Summary: "Deployment/web: crash-loop on Deployment/web", ToolCalls: 7},
		}}},
		RootCause: &RootCause{
			Summary:  "Container app of Deployment web exits with code 1 and restarts in a loop (CrashLoopBackOff).",
			Category: "CrashLoop", Confidence: 85, Culprit: "Deployment/payments/web",
			Affected: []string{"Deployment/payments/web", "Pod/payments/web-5d9c-p0000"},
			Chain:    []string{"Deployment/web: container crash loop"},
			Evidence: []string{"i1-t1-e1", "i1-t1-e2"},
		},
		Alternatives: []RootCause{{Summary: "Readiness probe fails", Category: "Probe", Confidence: 40}},
		Evidence: []Evidence{
			{ID: "i1-t1-e1", Summary: "Pod web-5d9c-p0000 container app restarted 12 times, last exit code 1", Source: "Object Pod/payments/web-5d9c-p0000 via k8s_get", TaskID: "i1-t1"},
			// Hostile log text must neither close its fence nor inject markup.
			{ID: "i1-t1-e2", Summary: "Logs: panic: <script>alert(1)</script> [click](http://evil)", Source: "Log Pod/payments/web-5d9c-p0000 via k8s_logs", TaskID: "i1-t1",
				Data: "panic: config missing\n```\n# injected heading\n"},
		},
		Actions: []Action{
			{ID: "a1-3f2a9c", Description: "Read the crashed instance's logs", Command: "kubectl -n payments logs web-5d9c-p0000 -c app --previous --tail=100", Risk: "Low", Approval: "Rejected"},
			{ID: "a2-77b1d0", Description: "Restart the rollout", Command: "kubectl -n payments rollout restart deployment/web", Risk: "Low", Approval: "Executed", Result: "restarted Deployment/web"},
		},
		Validation: []string{"kubectl -n payments get pod -l app=web  # RESTARTS stops increasing"},
		Usage:      Usage{ToolCalls: 7},
	}
}

func TestMarkdownGolden(t *testing.T) {
	g := NewWithT(t)
	got := Markdown(sample())
	path := filepath.Join("testdata", "report.md")
	if *update {
		g.Expect(os.WriteFile(path, []byte(got), 0o644)).To(Succeed())
	}
	want, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred(), "run go test ./internal/report -update to create the golden file")
	g.Expect(got).To(Equal(string(want)))
}

func TestMarkdownEscapesUntrustedText(t *testing.T) {
	g := NewWithT(t)
	md := Markdown(sample())
	g.Expect(md).NotTo(ContainSubstring("<script>"))
	g.Expect(md).NotTo(ContainSubstring("[click](http"))
	g.Expect(md).To(ContainSubstring("````text"), "the fence outgrows the backticks inside the data")
	g.Expect(md).NotTo(ContainSubstring("\n# injected"), "no heading escapes the fence")
}

func TestMarkdownWithoutRootCause(t *testing.T) {
	g := NewWithT(t)
	r := sample()
	r.RootCause, r.Actions, r.Evidence, r.Phase, r.Outcome = nil, nil, nil, "Failed", "TargetNotFound"
	md := Markdown(r)
	g.Expect(md).To(ContainSubstring("No root cause was named."))
	g.Expect(md).To(ContainSubstring("**Phase:** Failed (TargetNotFound)"))
}

func TestSizesAreBounded(t *testing.T) {
	g := NewWithT(t)
	r := sample()
	for i := 0; i < 2000; i++ {
		r.Evidence = append(r.Evidence, Evidence{ID: "e", Summary: strings.Repeat("s", 500), Data: strings.Repeat("d", 2000)})
	}
	g.Expect(len(Markdown(r))).To(BeNumerically("<=", MaxBytes))
	raw, err := JSON(r)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(len(raw)).To(BeNumerically("<=", MaxBytes))
	var back Report
	g.Expect(json.Unmarshal(raw, &back)).To(Succeed())
	g.Expect(back.RootCause.Category).To(Equal("CrashLoop"))
}
