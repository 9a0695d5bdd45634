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
	"fmt"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	fx "github.com/kubage/kubage/test/fixtures"
	"github.com/kubage/kubage/test/testcluster"
)

// Two clusters: the suite's local cluster is the management cluster A, where the operator,
// the Troubleshoot, its report and its task Jobs live; cluster B is a second, lighter control
// plane (kube-apiserver and etcd on other ports, started with envtest) whose only user KubAge
// knows is the one of a kubeconfig Secret in A. B has no kubelet: the fault's statuses are
// written as a kubelet would. Both listen on loopback, which the egress guard denies by
// default; startManager passes --egress-allow-cidrs=127.0.0.0/8 (and the manager hands it to
// its agents), as an operator reaching a private management network would.
var _ = Describe("A session in cluster A diagnosing cluster B", Ordered, func() {
	var (
		envB       *envtest.Environment
		b          kubernetes.Interface
		kubeconfig []byte
	)

	BeforeAll(func(ctx SpecContext) {
		setupKubage(ctx)
		root, err := testcluster.FindRepoRoot()
		Expect(err).NotTo(HaveOccurred())
		start := time.Now()
		envB = &envtest.Environment{BinaryAssetsDirectory: filepath.Join(root, "bin", "k8s")}
		cfgB, err := envB.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(envB.Stop()).To(Succeed()) })
		GinkgoWriter.Printf("cluster B (%s) ready in %s\n", cfgB.Host, time.Since(start).Round(time.Millisecond))
		b, err = kubernetes.NewForConfig(cfgB)
		Expect(err).NotTo(HaveOccurred())
		reader, err := envB.AddUser(envtest.User{Name: "kubage-from-a"}, cfgB)
		Expect(err).NotTo(HaveOccurred())
		kubeconfig, err = reader.KubeConfig()
		Expect(err).NotTo(HaveOccurred())
	})

	// faultInB creates, in namespace ns of cluster B, a Deployment web whose pods crash in a
	// loop, and lets the kubeconfig's user read that namespace and nothing else.
	faultInB := func(ctx context.Context, ns string) {
		GinkgoHelper()
		_, err := b.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = b.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "kubage-read"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = b.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kubage-read"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "kubage-read"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "kubage-from-a"}}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		d := fx.Deployment(ns, "web", 2, "registry.example/web:1.1")
		st := d.Status
		fresh(&d.ObjectMeta)
		d, err = b.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		d.Status = st
		d.Status.ObservedGeneration = d.Generation
		d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 2
		_, err = b.AppsV1().Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		rs := fx.ReplicaSet(d, 1, 2, "registry.example/web:1.1")
		rsStatus := rs.Status
		fresh(&rs.ObjectMeta)
		rs, err = b.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		rs.Status = rsStatus
		rs.Status.ObservedGeneration = rs.Generation
		rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = 0, 0
		_, err = b.AppsV1().ReplicaSets(ns).UpdateStatus(ctx, rs, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		for i := 0; i < 2; i++ {
			p := fx.PodFor(rs, fmt.Sprintf("p%d", i))
			fx.CrashLoop(p, 1, "Error", 7)
			pst := p.Status
			fresh(&p.ObjectMeta)
			p, err = b.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			p.Status = pst
			_, err = b.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
	}

	diagnose := func(ctx context.Context, taskRunner kubagev1alpha1.TaskRunner) (string, *kubagev1alpha1.Troubleshoot) {
		GinkgoHelper()
		ns := newNamespace(ctx)
		faultInB(ctx, ns)
		_, err := clients.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cluster-b"},
			Data: map[string][]byte{"value": kubeconfig}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		ts := createTroubleshoot(ctx, ns, "web-in-b", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Problem = "Pods of web keep restarting"
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
			ts.Spec.TaskRunner = taskRunner
			ts.Spec.Cluster = &kubagev1alpha1.ClusterReference{KubeConfig: kubagev1alpha1.KubeConfigReference{
				SecretRef: kubagev1alpha1.KubeConfigSecretReference{Name: "cluster-b"}}}
		})
		ts = waitForTerminal(ctx, ts)
		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted), "conditions: %v", ts.Status.Conditions)
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"), "summary: %s", ts.Status.RootCause.Summary)
		Expect(ts.Status.RootCause.AffectedObjects).To(ContainElement(kubagev1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "web"}))

		By("keeping the session in cluster A: report and results here, nothing written to B")
		_, err = clients.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		Expect(err).To(HaveOccurred(), "web exists in cluster B only")
		Expect(ts.Status.ReportRef).NotTo(BeNil())
		_, err = clients.CoreV1().ConfigMaps(ns).Get(ctx, ts.Status.ReportRef.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		inB, err := b.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		for _, cm := range inB.Items {
			Expect(cm.Labels).NotTo(HaveKey("app.kubernetes.io/managed-by"), "KubAge wrote %s into cluster B", cm.Name)
		}
		return ns, ts
	}

	It("with the InProcess runner", func(ctx SpecContext) {
		startManager("--agent-image="+agentImage, "--agent-start-timeout=5s")
		diagnose(ctx, kubagev1alpha1.TaskRunnerInProcess)
	})

	It("with the Job runner: the agents in A read B with the kubeconfig the kubelet hands them", func(ctx SpecContext) {
		kubelet := startKubelet(ctx)
		startManager("--agent-image="+agentImage, "--agent-start-timeout=5s")
		ns, ts := diagnose(ctx, kubagev1alpha1.TaskRunnerJob)
		for _, t := range ts.Status.Plan.Tasks {
			Expect(t.JobName).NotTo(BeEmpty(), "task %s ran as a Job", t.ID)
		}
		var ran int
		for _, run := range kubelet.Runs() {
			if run.Namespace == ns {
				ran++
				Expect(run.Reason).To(Equal("Completed"), "pod %s output:\n%s", run.Name, run.Output)
			}
		}
		Expect(ran).To(BeNumerically(">", 0))
		jobs, err := clients.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		for _, j := range jobs.Items {
			for _, e := range j.Spec.Template.Spec.Containers[0].Env {
				Expect(e.Value).NotTo(ContainSubstring("client-certificate-data"), "the kubeconfig stays out of the Job spec")
			}
		}
	})
})

// fresh clears what the API server sets itself on a fixture.
func fresh(m *metav1.ObjectMeta) {
	m.UID, m.ResourceVersion, m.CreationTimestamp = "", "", metav1.Time{}
}
