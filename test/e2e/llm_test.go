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

package e2e

import (
	"context"
	"net"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

// Sessions with a model: the operator binary with the LLM brain against the scripted
// OpenAI-compatible server (the demo responder of internal/agent/llm, served from the
// suite's process), and with that server gone.
var _ = Describe("Troubleshoot sessions with a model", Ordered, func() {
	const apiKey = "sk-kubage-e2e-7c1d93ab55"
	// category is what the model concluded in the first spec; the rule engine must agree.
	var category string

	BeforeAll(func(ctx SpecContext) {
		setupKubage(ctx)
		startManager()
	})

	crashingApp := func(ctx context.Context, ns string) {
		GinkgoHelper()
		createDeployment(ctx, ns, "crasher", "example/api:2.1", 1, map[string]string{
			annBehavior: "crashloop", annExitCode: "3", annMessage: "cannot connect to database",
		})
		Eventually(func(g Gomega) {
			cs := containerStatus(g, &podsOf(ctx, g, ns, "crasher")[0])
			g.Expect(cs.State.Waiting).NotTo(BeNil())
			g.Expect(cs.State.Waiting.Reason).To(Equal("CrashLoopBackOff"))
		}).WithContext(ctx).Should(Succeed())
	}
	session := func(ctx context.Context, ns string, secret map[string]string) *kubagev1alpha1.Troubleshoot {
		GinkgoHelper()
		_, err := clients.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "model"}, StringData: secret}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		return createTroubleshoot(ctx, ns, "crasher", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Problem = "Deployment crasher keeps restarting"
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "crasher"}
			ts.Spec.Model = &kubagev1alpha1.LocalSecretReference{Name: "model"}
		})
	}

	It("completes with the root cause the model wrote", func(ctx SpecContext) {
		srv := llmtest.NewServer()
		DeferCleanup(srv.Close)
		srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
		srv.RequireKey(apiKey)

		ns := newNamespace(ctx)
		crashingApp(ctx, ns)
		ts := session(ctx, ns, map[string]string{"baseURL": srv.BaseURL(), "model": "demo", "apiKey": apiKey})
		ts = waitForTerminal(ctx, ts)

		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Summary).To(HavePrefix("Model assessment: "))
		Expect(ts.Status.RootCause.Category).NotTo(BeElementOf("", kubagev1alpha1.CategoryUnknown))
		category = ts.Status.RootCause.Category
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())
		Expect(ts.Status.Usage.LLMCalls).To(BeNumerically(">", 0))
		Expect(ts.Status.Usage.PromptTokens).To(BeNumerically(">", 0))
		Expect(srv.Requests()).NotTo(BeEmpty())
		for _, r := range srv.Requests() {
			Expect(r.Text()).NotTo(ContainSubstring(apiKey))
		}
		GinkgoWriter.Printf("model session: %d LLM calls, %d prompt + %d completion tokens: %s\n",
			ts.Status.Usage.LLMCalls, ts.Status.Usage.PromptTokens, ts.Status.Usage.CompletionTokens, ts.Status.RootCause.Summary)
	})

	It("runs the Investigate task the model plans in the operator, with the model's tools", func(ctx SpecContext) {
		srv := llmtest.NewServer()
		DeferCleanup(srv.Close)
		srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{PlanInvestigation: true}))

		ns := newNamespace(ctx)
		crashingApp(ctx, ns)
		ts := session(ctx, ns, map[string]string{"baseURL": srv.BaseURL(), "model": "demo", "apiKey": apiKey})
		ts = waitForTerminal(ctx, ts)

		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
		Expect(ts.Status.RootCause.Summary).To(HavePrefix("Model assessment: "))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())
		investigator, toolResults := 0, 0
		for _, r := range srv.Requests() {
			if len(r.Chat.Messages) > 0 && strings.Contains(r.Chat.Messages[0].Content, "investigator of one task") {
				investigator++
				toolResults += r.ToolResults()
			}
		}
		Expect(investigator).To(BeNumerically(">", 0), "the Investigate task asked the model")
		Expect(toolResults).To(BeNumerically(">", 0), "the investigator called a tool against the cluster")
		Expect(ts.Status.Usage.LLMCalls).To(BeEquivalentTo(len(srv.Requests())), "every model call is accounted")
	})

	It("completes through the rule engine, Degraded, when the model server is down", func(ctx SpecContext) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		down := "http://" + ln.Addr().String() + "/v1"
		Expect(ln.Close()).To(Succeed())

		ns := newNamespace(ctx)
		crashingApp(ctx, ns)
		ts := session(ctx, ns, map[string]string{"baseURL": down, "model": "demo", "apiKey": apiKey, "maxRetries": "1", "timeout": "2s"})
		ts = waitForTerminal(ctx, ts)

		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Summary).NotTo(HavePrefix("Model assessment"))
		if category != "" {
			Expect(ts.Status.RootCause.Category).To(Equal(category), "the rule engine names what the model named")
		}
		c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)
		Expect(c).NotTo(BeNil())
		Expect(c.Status).To(Equal(metav1.ConditionTrue))
		Expect(c.Reason).To(BeElementOf(llm.ReasonModelUnreachable, llm.ReasonCircuitOpen))
		Expect(c.Message).NotTo(ContainSubstring(apiKey))
	})
})
