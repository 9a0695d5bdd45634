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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/test/testcluster"
)

// The Job runner on the real control plane: real Job controller, scheduler, garbage collector
// and RBAC; the agent pods run as local kubage processes through the kubelet harness, with a
// token of the agent ServiceAccount the runner set up.
var _ = Describe("Task Jobs", Ordered, func() {
	var kubelet *testcluster.Kubelet

	BeforeAll(func(ctx SpecContext) {
		setupKubage(ctx)
		kubelet = startKubelet(ctx)
	})

	jobRunner := func(mutate func(*runner.JobOptions)) *runner.Job {
		o := runner.JobOptions{Image: agentImage, ManageAccess: true, StartTimeout: 6 * time.Second}
		if mutate != nil {
			mutate(&o)
		}
		return runner.NewJob(clients, o)
	}

	// session creates the owning Troubleshoot and a crash-looping Deployment it is about.
	session := func(ctx context.Context) (runner.Owner, agent.TaskRequest) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "api", "example/api:2.1", 1, map[string]string{
			annBehavior: "crashloop", annExitCode: "3", annMessage: "cannot connect to database",
		})
		ts := createTroubleshoot(ctx, ns, "api-down", nil)
		owner := runner.Owner{Namespace: ns, Name: ts.Name, UID: ts.UID}
		req := agent.TaskRequest{
			Session: agent.Session{ID: ns + "/api-down", Problem: "api is down", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "api"}},
			Task:    agent.Task{ID: "i1-t1", Type: agent.TaskAnalyze, Tool: "workload", Args: map[string]string{"kind": "Deployment", "name": "api", "hop": "0"}},
		}
		return owner, req
	}

	taskJobs := func(ctx context.Context, g Gomega, owner runner.Owner) []batchv1.Job {
		list, err := clients.BatchV1().Jobs(owner.Namespace).List(ctx, metav1.ListOptions{
			LabelSelector: labels.Set{runner.LabelTroubleshoot: owner.Name}.String(),
		})
		g.Expect(err).NotTo(HaveOccurred())
		return list.Items
	}

	It("runs a task as a Job under the read-only agent account and collects its result", func(ctx SpecContext) {
		owner, req := session(ctx)
		Eventually(func(g Gomega) {
			cs := firstContainerStatus(ctx, g, owner.Namespace, "api")
			g.Expect(cs.RestartCount).To(BeNumerically(">=", 1))
		}).WithContext(ctx).Should(Succeed())

		r := jobRunner(nil)
		start := time.Now()
		Expect(r.Start(ctx, owner, req)).To(Succeed())
		Expect(r.Start(ctx, owner, req)).To(Succeed(), "a second Start changes nothing")

		var out runner.Outcome
		Eventually(func(g Gomega) {
			var err error
			out, err = r.Check(ctx, owner, req.Task.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.State).To(Equal(runner.StateDone), "reason: %s", out.Reason)
		}).WithContext(ctx).Should(Succeed())
		GinkgoWriter.Printf("task Job created → result collected in %s\n", time.Since(start).Round(time.Millisecond))

		Expect(out.Result.Error).To(BeEmpty())
		Expect(out.Result.Findings).NotTo(BeEmpty(), "summary: %s", out.Result.Summary)
		// The workload analyzer blames the crashing pods (and plans them next).
		Expect(out.Result.Findings).To(ContainElement(HaveField("Rule", BeElementOf("crash-loop", "workload-pods-unhealthy"))))
		Expect(out.Result.APIRequests).To(BeNumerically(">", 0))

		// One Job, completed by the real Job controller from the pod status the harness wrote.
		Eventually(func(g Gomega) {
			jobs := taskJobs(ctx, g, owner)
			g.Expect(jobs).To(HaveLen(1))
			g.Expect(jobCondition(&jobs[0], batchv1.JobComplete)).To(BeTrue())
		}).WithContext(ctx).Should(Succeed())
		var ran []testcluster.PodRun
		for _, run := range kubelet.Runs() {
			if run.Namespace == owner.Namespace {
				ran = append(ran, run)
			}
		}
		Expect(ran).To(HaveLen(1))
		Expect(ran[0].Reason).To(Equal("Completed"))
		Expect(ran[0].Args).To(ContainElement("task"))

		// The agent ran with its own ServiceAccount: it could not read a Secret.
		Expect(agentCan(ctx, owner.Namespace, "get", "", "secrets", owner.Namespace)).To(BeFalse(), "no Secrets")
		Expect(agentCan(ctx, owner.Namespace, "create", "", "configmaps", owner.Namespace)).To(BeTrue())
		Expect(agentCan(ctx, owner.Namespace, "create", "", "configmaps", "default")).To(BeFalse(), "writes only in its namespace")
		Expect(agentCan(ctx, owner.Namespace, "list", "", "pods", "default")).To(BeFalse(), "reads only in its namespace")
		Expect(agentCan(ctx, owner.Namespace, "delete", "", "pods", owner.Namespace)).To(BeFalse())
		Expect(agentCan(ctx, owner.Namespace, "list", "", "nodes", "")).To(BeTrue(), "cluster-scoped reads")
		Expect(agentCan(ctx, owner.Namespace, "get", "storage.k8s.io", "storageclasses", "")).To(BeTrue())

		By("deleting the Troubleshoot: its Job, pods and result go with it")
		Expect(kube.Delete(ctx, &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "kubage.io/v1alpha1", Kind: "Troubleshoot"},
			ObjectMeta: metav1.ObjectMeta{Namespace: owner.Namespace, Name: owner.Name},
		})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(taskJobs(ctx, g, owner)).To(BeEmpty())
			cms, err := clients.CoreV1().ConfigMaps(owner.Namespace).List(ctx, metav1.ListOptions{
				LabelSelector: labels.Set{runner.LabelTroubleshoot: owner.Name}.String(),
			})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cms.Items).To(BeEmpty())
			g.Expect(agentPods(ctx, g, owner.Namespace)).To(BeEmpty())
		}).WithContext(ctx).Should(Succeed())
	})

	It("fails a task whose agent image cannot be pulled, saying why, and cleans it up", func(ctx SpecContext) {
		owner, req := session(ctx)
		r := jobRunner(func(o *runner.JobOptions) { o.Image = "kubage:does-not-exist" })
		Expect(r.Start(ctx, owner, req)).To(Succeed())

		Eventually(func(g Gomega) {
			out, err := r.Check(ctx, owner, req.Task.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.State).To(Equal(runner.StateFailed))
			g.Expect(out.Reason).To(ContainSubstring("cannot start its pod"))
			g.Expect(out.Reason).To(ContainSubstring("ImagePullBackOff"))
			g.Expect(out.Reason).To(ContainSubstring("kubage:does-not-exist"))
		}).WithContext(ctx).Should(Succeed())

		Expect(r.Cleanup(ctx, owner)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(taskJobs(ctx, g, owner)).To(BeEmpty())
			g.Expect(agentPods(ctx, g, owner.Namespace)).To(BeEmpty())
		}).WithContext(ctx).Should(Succeed())
	})

	It("fails a task whose Job exceeds its deadline, saying why", func(ctx SpecContext) {
		owner, req := session(ctx)
		// A pod that never starts keeps the Job active until the Job controller's deadline.
		r := jobRunner(func(o *runner.JobOptions) {
			o.Image = "kubage:does-not-exist"
			o.StartTimeout = time.Hour
			o.MinDeadline, o.MaxDeadline = 3*time.Second, 3*time.Second
		})
		Expect(r.Start(ctx, owner, req)).To(Succeed())
		Eventually(func(g Gomega) {
			out, err := r.Check(ctx, owner, req.Task.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.State).To(Equal(runner.StateFailed))
			g.Expect(out.Reason).To(ContainSubstring("exceeded its deadline of 3s"))
		}).WithContext(ctx).Should(Succeed())
		// The Job controller removed the pod at the deadline.
		Eventually(func(g Gomega) {
			g.Expect(agentPods(ctx, g, owner.Namespace)).To(BeEmpty())
		}).WithContext(ctx).Should(Succeed())
	})

	It("fails a task whose agent crashes, with the agent's last words", func(ctx SpecContext) {
		owner, req := session(ctx)
		// A misconfigured install: the agent runs as the namespace's default account, which may
		// not write the result, so `kubage agent task` exits non-zero (twice: backoffLimit 1).
		r := jobRunner(func(o *runner.JobOptions) { o.ManageAccess = false; o.ServiceAccount = "default" })
		Expect(r.Start(ctx, owner, req)).To(Succeed())
		Eventually(func(g Gomega) {
			out, err := r.Check(ctx, owner, req.Task.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.State).To(Equal(runner.StateFailed))
			g.Expect(out.Reason).To(ContainSubstring("failed 2 time(s)"))
			g.Expect(out.Reason).To(ContainSubstring("exit code 1"))
			g.Expect(out.Reason).To(ContainSubstring("forbidden"))
		}).WithContext(ctx).Should(Succeed())
		var crashed int
		for _, run := range kubelet.Runs() {
			if run.Namespace == owner.Namespace && run.Reason == "Error" {
				crashed++
			}
		}
		Expect(crashed).To(Equal(2), "the Job controller retried the crashed pod once")
	})

	It("reruns a failed task in a fresh Job on the next Start", func(ctx SpecContext) {
		owner, req := session(ctx)
		bad := jobRunner(func(o *runner.JobOptions) {
			o.Image = "kubage:does-not-exist"
			o.StartTimeout = time.Hour
			o.MinDeadline, o.MaxDeadline = 2*time.Second, 2*time.Second
		})
		Expect(bad.Start(ctx, owner, req)).To(Succeed())
		Eventually(func(g Gomega) {
			out, err := bad.Check(ctx, owner, req.Task.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.State).To(Equal(runner.StateFailed))
		}).WithContext(ctx).Should(Succeed())

		good := jobRunner(nil)
		Eventually(func() error { return good.Start(ctx, owner, req) }).WithContext(ctx).Should(Succeed())
		Eventually(func(g Gomega) {
			out, err := good.Check(ctx, owner, req.Task.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.State).To(Equal(runner.StateDone), "reason: %s", out.Reason)
		}).WithContext(ctx).Should(Succeed())
		Eventually(func(g Gomega) {
			jobs := taskJobs(ctx, g, owner)
			g.Expect(jobs).To(HaveLen(1))
			g.Expect(jobs[0].Spec.Template.Spec.Containers[0].Image).To(Equal(agentImage))
		}).WithContext(ctx).Should(Succeed())
	})
})

// agentCan asks the API server whether the agent ServiceAccount of ns may do verb on resource.
func agentCan(ctx context.Context, ns, verb, group, resource, inNamespace string) bool {
	GinkgoHelper()
	sar, err := clients.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + ns + ":kubage-agent",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: inNamespace, Verb: verb, Group: group, Resource: resource,
			},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return sar.Status.Allowed
}

// agentPods lists the pods of task Jobs in ns.
func agentPods(ctx context.Context, g Gomega, ns string) []corev1.Pod {
	pods, err := clients.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: testcluster.AgentSelector})
	g.Expect(err).NotTo(HaveOccurred())
	return pods.Items
}
