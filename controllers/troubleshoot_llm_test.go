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

package controllers_test

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/metrics"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

// These specs run the default brain factory (no Options.Brains) against the scripted
// OpenAI-compatible server, on the shard of the Troubleshoot specs.
var _ = Describe("Troubleshoot sessions with a model", Ordered, func() {
	const apiKey = "sk-kubage-test-3f9a7c21d4"
	var cs kubernetes.Interface

	BeforeAll(func(ctx SpecContext) {
		var err error
		cs, err = kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
	})

	modelSecret := func(ctx SpecContext, ns, name string, data map[string]string) {
		GinkgoHelper()
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data})).To(Succeed())
	}
	withModel := func(name string) func(*kubagev1alpha1.Troubleshoot) {
		return func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
			ts.Spec.Model = &kubagev1alpha1.LocalSecretReference{Name: name}
			// The key in the problem text must be redacted before it reaches the model.
			ts.Spec.Problem = "Pods of web keep restarting since the deploy with token " + apiKey
		}
	}

	It("completes with the model's root cause, accounting its tokens, and sends no Secret value", func(ctx SpecContext) {
		srv := llmtest.NewServer()
		DeferCleanup(srv.Close)
		srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
		srv.RequireKey(apiKey)

		ns := newNamespace(ctx, "llm-up")
		createCrashLoopApp(ctx, ns)
		modelSecret(ctx, ns, "model", map[string]string{"baseURL": srv.BaseURL(), "model": "demo", "apiKey": apiKey})
		ts := newSession(ns, "web-llm", withModel("model"))
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)

		By("naming the crash loop in the model's words")
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Summary).To(HavePrefix("Model assessment: "))
		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())

		By("accounting the model calls in status.usage")
		Expect(ts.Status.Usage.LLMCalls).To(BeNumerically(">", 0))
		Expect(ts.Status.Usage.PromptTokens).To(BeNumerically(">", 0))
		Expect(ts.Status.Usage.CompletionTokens).To(BeNumerically(">", 0))

		By("sending the model nothing of the Secret")
		reqs := srv.Requests()
		Expect(reqs).NotTo(BeEmpty())
		Expect(int64(len(reqs))).To(BeNumerically(">=", ts.Status.Usage.LLMCalls))
		for _, r := range reqs {
			Expect(r.Text()).NotTo(ContainSubstring(apiKey))
			Expect(r.Text()).To(ContainSubstring("web"))
		}
	})

	It("runs the tasks the model plans in-process, accounting their model calls", func(ctx SpecContext) {
		srv := llmtest.NewServer()
		DeferCleanup(srv.Close)
		srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{PlanInvestigation: true}))

		ns := newNamespace(ctx, "llm-tasks")
		createCrashLoopApp(ctx, ns)
		modelSecret(ctx, ns, "model", map[string]string{"baseURL": srv.BaseURL(), "model": "demo", "apiKey": apiKey})
		ts := newSession(ns, "web-tasks", withModel("model"))
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)

		By("recording the model's Investigate task of the first round as succeeded")
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: session.CheckpointName(ts.Name)}, cm)).To(Succeed())
		var ck session.Checkpoint
		Expect(json.Unmarshal([]byte(cm.Data["session.json"]), &ck)).To(Succeed())
		Expect(ck.Rounds).NotTo(BeEmpty())
		var investigate *session.RoundTask
		for i, t := range ck.Rounds[0].Tasks {
			if strings.Contains(t.Description, "warning events") {
				investigate = &ck.Rounds[0].Tasks[i]
			}
		}
		Expect(investigate).NotTo(BeNil(), "the model planned an Investigate task: %+v", ck.Rounds[0].Tasks)
		Expect(investigate.State).To(Equal(string(kubagev1alpha1.TaskSucceeded)), investigate.Summary)
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())

		By("counting the investigator's model calls in status.usage")
		investigatorCalls := 0
		for _, r := range srv.Requests() {
			Expect(r.Text()).NotTo(ContainSubstring(apiKey))
			if len(r.Chat.Messages) > 0 && strings.Contains(r.Chat.Messages[0].Content, "investigator of one task") {
				investigatorCalls++
			}
		}
		Expect(investigatorCalls).To(BeNumerically(">", 0))
		Expect(ts.Status.Usage.LLMCalls).To(BeEquivalentTo(len(srv.Requests())))
		Expect(ts.Status.Usage.ToolCalls).To(BeNumerically(">", 0))
	})

	It("completes through the rule engine, Degraded, when the model does not answer", func(ctx SpecContext) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		closed := "http://" + ln.Addr().String() + "/v1"
		Expect(ln.Close()).To(Succeed())

		ns := newNamespace(ctx, "llm-down")
		createCrashLoopApp(ctx, ns)
		modelSecret(ctx, ns, "model", map[string]string{"baseURL": closed, "model": "demo", "apiKey": apiKey, "maxRetries": "0", "timeout": "2s"})
		ts := newSession(ns, "web-down", withModel("model"))
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)

		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
		Expect(ts.Status.RootCause.Summary).NotTo(HavePrefix("Model assessment"))
		Expect(ts.Status.Usage.CompletionTokens).To(BeZero(), "no model answered")
		c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)
		Expect(c).NotTo(BeNil())
		Expect(c.Status).To(Equal(metav1.ConditionTrue))
		Expect(c.Reason).To(BeElementOf(llm.ReasonModelUnreachable, llm.ReasonCircuitOpen))
		Expect(c.Message).To(ContainSubstring("rule engine"))
		Expect(c.Message).NotTo(ContainSubstring(apiKey))
		// What the chart's KubAgeModelDegraded alert counts.
		Expect(testutil.ToFloat64(metrics.SessionsDegradedTotal.WithLabelValues(c.Reason))).To(BeNumerically(">=", 1))
	})

	It("completes through the rule engine, Degraded with EgressDenied, when the model's address is refused", func(ctx SpecContext) {
		port, hits := metadataServer()
		ns := newNamespace(ctx, "llm-egress")
		createCrashLoopApp(ctx, ns)
		modelSecret(ctx, ns, "model", map[string]string{"baseURL": fmt.Sprintf("http://%s:%d/v1", metadataHost, port),
			"model": "demo", "apiKey": apiKey, "maxRetries": "0", "timeout": "2s"})
		ts := newSession(ns, "web-egress", withModel("model"))
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)

		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
		c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)
		Expect(c).NotTo(BeNil())
		Expect(c.Reason).To(Equal(kubagev1alpha1.EgressDeniedReason), c.Message)
		Expect(hits.Load()).To(BeZero(), "the metadata server was reached")
	})

	It("runs on the rule engine alone, Degraded, when the model Secret is missing or invalid", func(ctx SpecContext) {
		ns := newNamespace(ctx, "llm-invalid")
		createCrashLoopApp(ctx, ns)
		modelSecret(ctx, ns, "bad", map[string]string{"baseURL": "ftp://nowhere", "apiKey": apiKey})
		for name, secret := range map[string]string{"web-bad": "bad", "web-missing": "absent"} {
			ts := newSession(ns, name, withModel(secret))
			Expect(k8sClient.Create(ctx, ts)).To(Succeed())
			waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
			Expect(ts.Status.RootCause).NotTo(BeNil())
			Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
			c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)
			Expect(c).NotTo(BeNil(), name)
			Expect(c.Status).To(Equal(metav1.ConditionTrue))
			Expect(c.Reason).To(Equal(kubagev1alpha1.ModelSecretInvalidReason))
			Expect(c.Message).To(ContainSubstring(ns + "/" + secret))
			Expect(strings.Contains(c.Message, apiKey)).To(BeFalse())
		}
	})
})
