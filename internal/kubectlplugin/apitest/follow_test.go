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

package apitest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/kubectlplugin"
)

// testFollow runs `diagnose --follow` twice on a namespace scan while a goroutine plays the
// operator: once concluding with a root cause (exit 0), once finding nothing (exit 2).
func testFollow(ctx context.Context, t *testing.T, env *kubectlplugin.Env, out *bytes.Buffer, kube client.Client) {
	g := NewWithT(t)
	for _, found := range []bool{true, false} {
		operated := make(chan struct{})
		go func() {
			defer close(operated)
			playOperator(ctx, g, kube, found)
		}()
		out.Reset()
		ts, err := env.Diagnose(ctx, kubectlplugin.DiagnoseOptions{Problem: "checkout is slow", Follow: true, Timeout: time.Minute})
		<-operated
		g.Expect(ts).NotTo(BeNil())
		g.Expect(ts.Name).To(HavePrefix("scan-"))
		text := out.String()
		g.Expect(text).To(ContainSubstring("troubleshoot.kubage.io/" + ts.Name + " created: diagnosing namespace shop in namespace shop"))
		// The watch may start after the first writes: only the last state is sure to be seen.
		g.Expect(text).To(ContainSubstring("phase Completed (iteration 1)\n"))
		g.Expect(text).To(ContainSubstring("task i1-t1 Succeeded: analyze the namespace\n"))
		g.Expect(text).To(ContainSubstring("evidence i1-t1-e1: Pod checkout-1 waits on a missing ConfigMap\n"))
		if found {
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(text).To(And(ContainSubstring("Root cause: ConfigMap checkout-flags does not exist"), ContainSubstring("Confidence: 90%")))
		} else {
			g.Expect(err).To(MatchError("no problem found on namespace shop: Nothing in shop looks broken"))
			g.Expect(kubectlplugin.ExitCode(err)).To(Equal(kubectlplugin.ExitNoRootCause))
		}
		g.Expect(kube.Delete(ctx, ts)).To(Succeed())
	}
}

// playOperator waits for a fresh namespace scan and walks its status to an outcome.
func playOperator(ctx context.Context, g Gomega, kube client.Client, found bool) {
	var ts *kubagev1alpha1.Troubleshoot
	g.Eventually(func(g Gomega) {
		list := &kubagev1alpha1.TroubleshootList{}
		g.Expect(kube.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		for i := range list.Items {
			if strings.HasPrefix(list.Items[i].Name, "scan-") && list.Items[i].Status.Phase == "" {
				ts = &list.Items[i]
			}
		}
		g.Expect(ts).NotTo(BeNil())
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	now := metav1.Now()
	steps := []func(st *kubagev1alpha1.TroubleshootStatus){
		func(st *kubagev1alpha1.TroubleshootStatus) { st.Phase = kubagev1alpha1.PhasePending },
		func(st *kubagev1alpha1.TroubleshootStatus) { st.Phase, st.Iteration = kubagev1alpha1.PhasePlanning, 1 },
		func(st *kubagev1alpha1.TroubleshootStatus) {
			st.Phase = kubagev1alpha1.PhaseInvestigating
			st.Plan = &kubagev1alpha1.Plan{Tasks: []kubagev1alpha1.PlanTask{{ID: "i1-t1", Type: kubagev1alpha1.TaskTypeAnalyze,
				Description: "analyze the namespace", State: kubagev1alpha1.TaskRunning}}}
		},
		func(st *kubagev1alpha1.TroubleshootStatus) {
			st.Plan.Tasks[0].State = kubagev1alpha1.TaskSucceeded
			st.Evidence = []kubagev1alpha1.Evidence{{ID: "i1-t1-e1", Summary: "Pod checkout-1 waits on a missing ConfigMap",
				Source: kubagev1alpha1.EvidenceSource{Kind: kubagev1alpha1.EvidenceFromQuery}}}
		},
		func(st *kubagev1alpha1.TroubleshootStatus) {
			st.Phase = kubagev1alpha1.PhaseCompleted
			cond := metav1.Condition{Type: kubagev1alpha1.RootCauseFoundCondition, LastTransitionTime: now}
			if found {
				st.RootCause = &kubagev1alpha1.RootCause{Summary: "ConfigMap checkout-flags does not exist", Category: "ConfigMapMissing",
					Confidence: 90, EvidenceIDs: []string{"i1-t1-e1"}}
				cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, "ConfigMapMissing", st.RootCause.Summary
			} else {
				st.RootCause = &kubagev1alpha1.RootCause{Summary: "Nothing in shop looks broken", Category: "NoProblemFound"}
				cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, kubagev1alpha1.NoRootCauseReason, st.RootCause.Summary
			}
			st.Conditions = []metav1.Condition{cond}
		},
	}
	for _, step := range steps {
		setStatus(ctx, g, kube, ts, step)
	}
}
