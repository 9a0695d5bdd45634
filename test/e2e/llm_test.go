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
	"encoding/json"
	"net"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/test/fakes/llmtest"
	"github.com/kubage/kubage/test/testcluster"
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

	It("speaks Azure OpenAI: the deployment path, the api-version query and the api-key header", func(ctx SpecContext) {
		srv := llmtest.NewServer()
		DeferCleanup(srv.Close)
		srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
		srv.SetDialect(llmtest.Dialect{AzureDeployment: "kubage-diag", AzureAPIVersion: llm.DefaultAzureAPIVersion})
		srv.RequireKey(apiKey)

		ns := newNamespace(ctx)
		crashingApp(ctx, ns)
		ts := session(ctx, ns, map[string]string{"provider": "AzureOpenAI", "baseURL": srv.AzureBaseURL(),
			"model": "gpt-4o", "deployment": "kubage-diag", "apiKey": apiKey})
		ts = waitForTerminal(ctx, ts)

		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
		Expect(ts.Status.RootCause.Summary).To(HavePrefix("Model assessment: "))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())
		Expect(srv.Requests()).NotTo(BeEmpty())
		for _, r := range srv.Requests() {
			Expect(r.Path).To(Equal("/openai/deployments/kubage-diag/chat/completions"))
			Expect(r.Query.Get("api-version")).To(Equal(llm.DefaultAzureAPIVersion))
			Expect(r.Header.Get("api-key")).To(Equal(apiKey))
			Expect(r.Header.Get("Authorization")).To(BeEmpty())
		}
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

// The acceptance of the one task path: a session with a model and taskRunner Job. The model
// plans an Investigate and a Knowledge task; each runs as a Job whose agent builds the
// session's brain from its request — the model Secret handed over by the kubelet, knowledge
// searched through the operator's endpoint with the agent's ServiceAccount token — and
// returns its usage in its result, which the session counts in status.usage.
var _ = Describe("Troubleshoot sessions with a model and task Jobs", Ordered, func() {
	const apiKey = "sk-kubage-e2e-jobs-0b3f61"
	var kubelet *testcluster.Kubelet

	BeforeAll(func(ctx SpecContext) {
		setupKubage(ctx)
		kubelet = startKubelet(ctx)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := ln.Addr().String()
		Expect(ln.Close()).To(Succeed())
		startManager("--agent-image="+agentImage, "--agent-start-timeout=10s",
			"--agent-api-bind-address="+addr, "--agent-api-url=http://"+addr)
	})

	It("runs the model's Investigate and Knowledge tasks as Jobs and counts each task's tokens", func(ctx SpecContext) {
		srv := llmtest.NewServer()
		DeferCleanup(srv.Close)
		srv.SetAuto(tokenCountingModel())
		srv.RequireKey(apiKey)

		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "crasher", "example/api:2.1", 1, map[string]string{
			annBehavior: "crashloop", annExitCode: "3", annMessage: "cannot connect to database",
		})
		By("indexing the team's runbook from an inline KnowledgeSource")
		ks := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "runbooks"},
			Spec: kubagev1alpha1.KnowledgeSourceSpec{TrustLevel: 4, Inline: []kubagev1alpha1.InlineDocument{{
				Name: "oncall/database.md",
				Content: "# Database connection failures\n\n## Pod crash loops with cannot connect to database\n\n" +
					"When a pod keeps restarting and its log says cannot connect to database, check that the " +
					"database Service has endpoints and that DATABASE_URL points at it, then restart the Deployment.\n",
			}}},
		}
		Expect(kube.Create(ctx, ks)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ks), ks)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(ks.Status.Conditions, kubagev1alpha1.ReadyCondition)).To(BeTrue(), "conditions: %v", ks.Status.Conditions)
		}).WithContext(ctx).Should(Succeed())

		_, err := clients.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "model"},
			StringData: map[string]string{"baseURL": srv.BaseURL(), "model": "demo", "apiKey": apiKey}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		jobs := watchTaskJobs(ctx, ns)
		ts := createTroubleshoot(ctx, ns, "crasher", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Problem = "Deployment crasher keeps restarting"
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "crasher"}
			ts.Spec.Model = &kubagev1alpha1.LocalSecretReference{Name: "model"}
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
		})
		ts = waitForTerminal(ctx, ts)

		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
		Expect(ts.Status.RootCause.Summary).To(HavePrefix("Model assessment: "))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())

		By("running every task, the model's included, as a Job the harness completed")
		owner := runner.Owner{Namespace: ns, Name: ts.Name, UID: ts.UID}
		results, err := runner.ReadResults(ctx, clients, owner)
		Expect(err).NotTo(HaveOccurred())
		requests := requestsOf(jobs)
		modelTasks := map[agent.TaskType]agent.TaskResult{}
		for id, req := range requests {
			res, ok := results[id]
			Expect(ok).To(BeTrue(), "task %s of a Job has a result", id)
			Expect(res.Error).To(BeEmpty(), "task %s: %s", id, res.Summary)
			if req.Task.Type == agent.TaskInvestigate || req.Task.Type == agent.TaskKnowledge {
				Expect(req.Session.Brain).NotTo(BeNil())
				Expect(req.Session.Brain.Model).To(Equal(&agent.SecretRef{Namespace: ns, Name: "model"}))
				modelTasks[req.Task.Type] = res
			}
		}
		Expect(requests).To(HaveLen(len(results)), "every task ran as a Job")
		Expect(modelTasks).To(HaveKey(agent.TaskInvestigate))
		Expect(modelTasks).To(HaveKey(agent.TaskKnowledge))
		for _, t := range ts.Status.Plan.Tasks {
			Expect(t.JobName).NotTo(BeEmpty(), "task %s names its Job", t.ID)
		}
		ran := 0
		for _, run := range kubelet.Runs() {
			if run.Namespace == ns {
				ran++
				Expect(run.Reason).To(Equal("Completed"), "pod %s output:\n%s", run.Name, run.Output)
			}
		}
		Expect(ran).To(Equal(len(requests)), "the harness ran each task's pod once")

		By("the Knowledge task found the runbook through the operator's endpoint")
		know := modelTasks[agent.TaskKnowledge]
		Expect(know.Evidence).To(ContainElement(And(
			HaveField("Source.Kind", agent.SourceKnowledge),
			HaveField("Source.Query", ContainSubstring("runbooks:oncall/database.md")),
		)), "summary: %s", know.Summary)

		By("the Investigate task asked the model from its Job and reported the tokens in its result")
		inv := modelTasks[agent.TaskInvestigate]
		Expect(inv.Usage).NotTo(BeNil())
		Expect(inv.Usage.LLMCalls).To(BeNumerically(">", 0))
		Expect(inv.Usage.PromptTokens).To(Equal(inv.Usage.LLMCalls * int64(investigatorTokens.PromptTokens)))
		Expect(inv.Usage.CompletionTokens).To(Equal(inv.Usage.LLMCalls * int64(investigatorTokens.CompletionTokens)))
		Expect(inv.ToolCalls).NotTo(BeEmpty(), "the investigator called a tool against the cluster")

		By("status.usage counts every model call: the operator's steps and each task's")
		var calls, prompt, completion, investigatorCalls int64
		for _, r := range srv.Requests() {
			Expect(r.Text()).NotTo(ContainSubstring(apiKey))
			u := tokensFor(r)
			calls++
			prompt += int64(u.PromptTokens)
			completion += int64(u.CompletionTokens)
			if r.SchemaName() == "" {
				investigatorCalls++
			}
		}
		Expect(investigatorCalls).To(Equal(inv.Usage.LLMCalls), "the Investigate task made the investigator's calls")
		Expect(ts.Status.Usage.LLMCalls).To(Equal(calls))
		Expect(ts.Status.Usage.PromptTokens).To(Equal(prompt))
		Expect(ts.Status.Usage.CompletionTokens).To(Equal(completion))
		GinkgoWriter.Printf("model session with task Jobs: %d LLM calls (%d by the Investigate Job), %d prompt + %d completion tokens (%d + %d by the Investigate Job), %d tool calls\n",
			ts.Status.Usage.LLMCalls, inv.Usage.LLMCalls, ts.Status.Usage.PromptTokens, ts.Status.Usage.CompletionTokens,
			inv.Usage.PromptTokens, inv.Usage.CompletionTokens, ts.Status.Usage.ToolCalls)
	})
})

// Token counts the scripted model reports, one per kind of call, so that a total tells
// whose calls it holds.
var (
	stepTokens         = llmtest.Usage{PromptTokens: 1000, CompletionTokens: 100}
	investigatorTokens = llmtest.Usage{PromptTokens: 7, CompletionTokens: 3}
)

// tokensFor is what the scripted model reports for r: structured steps (plan, verdict,
// conclusion) are the operator's, unstructured calls an investigator's.
func tokensFor(r llmtest.Request) llmtest.Usage {
	if r.SchemaName() == "" {
		return investigatorTokens
	}
	return stepTokens
}

// tokenCountingModel is the demo model with fixed token counts; its first plan adds a
// Knowledge task about the symptom to the demo's Investigate task.
func tokenCountingModel() llmtest.Responder {
	demo := llmtest.DemoResponder(llmtest.DemoOptions{PlanInvestigation: true})
	return func(req llmtest.Request) llmtest.Reply {
		reply := demo(req)
		if req.SchemaName() == llm.SchemaPlan && strings.Contains(req.LastUser(), "Iteration: 1\n") {
			var plan map[string]any
			Expect(json.Unmarshal([]byte(reply.Content), &plan)).To(Succeed())
			plan["tasks"] = append(plan["tasks"].([]any), map[string]any{
				"id": "runbook", "type": "Knowledge", "description": "pod crash loops with cannot connect to database",
				"tool": "", "args": []any{}, "dependsOn": []string{},
			})
			raw, err := json.Marshal(plan)
			Expect(err).NotTo(HaveOccurred())
			reply.Content = string(raw)
		}
		u := tokensFor(req)
		reply.Usage = &u
		return reply
	}
}

// taskJobWatch keeps the task Jobs created in a namespace, for the requests they carry.
type taskJobWatch struct {
	mu   sync.Mutex
	jobs map[string]*batchv1.Job // by task id
}

func watchTaskJobs(ctx context.Context, ns string) *taskJobWatch {
	GinkgoHelper()
	w, err := clients.BatchV1().Jobs(ns).Watch(ctx, metav1.ListOptions{
		LabelSelector: labels.Set{runner.LabelAgent: runner.ComponentAgent}.String(),
	})
	Expect(err).NotTo(HaveOccurred())
	tw := &taskJobWatch{jobs: map[string]*batchv1.Job{}}
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		for ev := range w.ResultChan() {
			if job, ok := ev.Object.(*batchv1.Job); ok && ev.Type == watch.Added {
				tw.mu.Lock()
				Expect(tw.jobs).NotTo(HaveKey(job.Labels[runner.LabelTaskID]), "one Job per task")
				tw.jobs[job.Labels[runner.LabelTaskID]] = job
				tw.mu.Unlock()
			}
		}
	}()
	DeferCleanup(func() {
		w.Stop()
		<-done
	})
	return tw
}

// requestsOf decodes the task request of every Job seen, by task id. No literal value of a
// Job's environment holds the model's API key: the kubelet reads it from the Secret.
func requestsOf(tw *taskJobWatch) map[string]agent.TaskRequest {
	GinkgoHelper()
	tw.mu.Lock()
	defer tw.mu.Unlock()
	out := map[string]agent.TaskRequest{}
	for id, job := range tw.jobs {
		c := job.Spec.Template.Spec.Containers[0]
		var req agent.TaskRequest
		for _, e := range c.Env {
			Expect(e.Value).NotTo(ContainSubstring("sk-kubage-e2e"), "env %s of Job %s", e.Name, job.Name)
			if e.Name == runner.EnvTaskRequest {
				Expect(json.Unmarshal([]byte(e.Value), &req)).To(Succeed())
			}
		}
		Expect(req.Task.ID).To(Equal(id))
		out[id] = req
	}
	return out
}
