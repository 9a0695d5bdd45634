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
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// The suite's manager plays the management cluster and the envtest API server also plays
// the other cluster, reached through a kubeconfig Secret as a user who may only view the
// session's namespace (test/e2e runs two real clusters).
var _ = Describe("Troubleshoots of another cluster", func() {
	It("investigates the other cluster as the kubeconfig's user and keeps the session here", func(ctx SpecContext) {
		ns := newNamespace(ctx, "remote")
		createCrashLoopApp(ctx, ns)
		grantView(ctx, ns, "remote-viewer")
		kubeconfigSecret(ctx, ns, "cluster-b", "value", userKubeconfig("remote-viewer"))

		ts := remoteSession(ns, "web-remote", "cluster-b", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		Expect(ts.Spec.Cluster.KubeConfig.SecretRef.Key).To(Equal("value"), "the key defaults to Cluster API's and Flux's")
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
		Expect(ts.Status.ReportRef).NotTo(BeNil(), "the report stays with the session")
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: ts.Status.ReportRef.Name}, &corev1.ConfigMap{})).To(Succeed())
	})

	It("says why it cannot use the other cluster, with a condition and an Event each", func(ctx SpecContext) {
		ns := newNamespace(ctx, "remote-bad")
		exec := kubeconfigFor("https://cluster-b.example:6443", &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
			APIVersion: "client.authentication.k8s.io/v1", Command: "aws", Args: []string{"eks", "get-token"}}})
		tokenFile := kubeconfigFor("https://cluster-b.example:6443", &clientcmdapi.AuthInfo{TokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token"})
		unreachable := kubeconfigFor("https://127.0.0.1:1", &clientcmdapi.AuthInfo{Token: "t"})
		metadata := kubeconfigFor("http://169.254.169.254", &clientcmdapi.AuthInfo{Token: "t"})
		unauthorized := kubeconfigFor(cfg.Host, &clientcmdapi.AuthInfo{Token: "not-a-token-of-this-cluster"})
		for name, data := range map[string][]byte{"exec": exec, "token-file": tokenFile, "garbage": []byte("clusters: [oops"),
			"unreachable": unreachable, "metadata": metadata, "unauthorized": unauthorized, "no-rights": userKubeconfig("remote-nobody")} {
			kubeconfigSecret(ctx, ns, name, "value", data)
		}
		want := map[string]string{
			"exec": kubagev1alpha1.KubeConfigRefusedReason, "token-file": kubagev1alpha1.KubeConfigRefusedReason,
			"garbage": kubagev1alpha1.KubeConfigRefusedReason, "unreachable": kubagev1alpha1.ClusterUnreachableReason,
			"metadata": kubagev1alpha1.EgressDeniedReason, "unauthorized": kubagev1alpha1.ClusterUnauthorizedReason,
			"no-rights": kubagev1alpha1.ClusterForbiddenReason, "missing": kubagev1alpha1.SecretNotFoundReason,
		}
		for secret := range want {
			Expect(k8sClient.Create(ctx, remoteSession(ns, "ts-"+secret, secret, nil))).To(Succeed())
		}
		for secret, reason := range want {
			ts := &kubagev1alpha1.Troubleshoot{}
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "ts-" + secret}, ts)).To(Succeed())
				ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
				g.Expect(ready).NotTo(BeNil())
				g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(ready.Reason).To(Equal(reason), "%s: %s", secret, ready.Message)
				g.Expect(ready.Message).NotTo(ContainSubstring("not-a-token-of-this-cluster"))
				g.Expect(eventReasons(ctx, ns, ts.Name)).To(ContainElement(reason), secret)
			}).Should(Succeed())
			Expect(ts.Status.Phase).To(BeElementOf(kubagev1alpha1.TroubleshootPhase(""), kubagev1alpha1.PhasePending), "%s: nothing ran", secret)
		}

		By("going on once the Secret is fixed")
		grantView(ctx, ns, "remote-viewer")
		fixed := &corev1.Secret{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "exec"}, fixed)).To(Succeed())
		fixed.Data["value"] = userKubeconfig("remote-viewer")
		Expect(k8sClient.Update(ctx, fixed)).To(Succeed())
		// Secrets are not watched: the session retries on its own within a minute; a touch
		// of an annotation makes it retry now.
		ts := &kubagev1alpha1.Troubleshoot{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "ts-exec"}, ts)).To(Succeed())
		ts.Annotations = map[string]string{"example.com/touched": "1"}
		Expect(k8sClient.Update(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
	})

	It("fails a session whose cluster stays unreachable past its timeout, with the reason", func(ctx SpecContext) {
		ns := newNamespace(ctx, "remote-late")
		kubeconfigSecret(ctx, ns, "down", "value", kubeconfigFor("https://127.0.0.1:1", &clientcmdapi.AuthInfo{Token: "t"}))
		ts := remoteSession(ns, "late", "down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Budget.Timeout = &metav1.Duration{Duration: 2 * time.Second}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseFailed)
		ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
		Expect(ready).NotTo(BeNil())
		Expect(ready.Reason).To(Equal(kubagev1alpha1.ClusterUnreachableReason), ready.Message)
		Expect(ready.Message).To(ContainSubstring("until its deadline"))
		Expect(ts.Status.CompletionTime.Sub(ts.CreationTimestamp.Time)).To(BeNumerically("<", 10*time.Second), "it gives up at its deadline, not at the next 15 s retry")
		Eventually(func(g Gomega) {
			g.Expect(eventReasons(ctx, ns, ts.Name)).To(ContainElements(kubagev1alpha1.ClusterUnreachableReason, string(kubagev1alpha1.PhaseFailed)))
		}).Should(Succeed())
	})

	It("validates the reference at the API", func(ctx SpecContext) {
		ns := newNamespace(ctx, "remote-api")
		ts := remoteSession(ns, "bad-name", "Not_A_Secret", nil)
		Expect(k8sClient.Create(ctx, ts)).NotTo(Succeed())
		ts = remoteSession(ns, "bad-key", "cluster-b", func(ts *kubagev1alpha1.Troubleshoot) { ts.Spec.Cluster.KubeConfig.SecretRef.Key = "a/b" })
		Expect(k8sClient.Create(ctx, ts)).NotTo(Succeed())
		sched := &kubagev1alpha1.TroubleshootSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"},
			Spec: kubagev1alpha1.TroubleshootScheduleSpec{Schedule: "0 3 * * *", Suspend: true,
				TroubleshootTemplate: kubagev1alpha1.TroubleshootTemplate{Spec: remoteSession(ns, "x", "cluster-b", nil).Spec}}}
		Expect(k8sClient.Create(ctx, sched)).To(Succeed())
		Expect(sched.Spec.TroubleshootTemplate.Spec.Cluster.KubeConfig.SecretRef.Name).To(Equal("cluster-b"))
	})
})

func remoteSession(ns, name, secret string, mutate func(*kubagev1alpha1.Troubleshoot)) *kubagev1alpha1.Troubleshoot {
	ts := &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kubagev1alpha1.TroubleshootSpec{Problem: "Pods of web keep restarting", TaskRunner: kubagev1alpha1.TaskRunnerInProcess,
			Budget: kubagev1alpha1.Budget{Timeout: &metav1.Duration{Duration: time.Minute}},
			Cluster: &kubagev1alpha1.ClusterReference{KubeConfig: kubagev1alpha1.KubeConfigReference{
				SecretRef: kubagev1alpha1.KubeConfigSecretReference{Name: secret}}}},
	}
	if mutate != nil {
		mutate(ts)
	}
	return ts
}

func kubeconfigSecret(ctx context.Context, ns, name, key string, data []byte) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{key: data}})).To(Succeed())
}

// userKubeconfig is a kubeconfig of the envtest API server for user, with an embedded
// client certificate.
func userKubeconfig(user string) []byte {
	GinkgoHelper()
	u, err := testEnv.AddUser(envtest.User{Name: user}, cfg)
	Expect(err).NotTo(HaveOccurred())
	raw, err := u.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	return raw
}

// kubeconfigFor renders a one-context kubeconfig of server (with the envtest CA) for auth.
func kubeconfigFor(server string, auth *clientcmdapi.AuthInfo) []byte {
	GinkgoHelper()
	c := clientcmdapi.NewConfig()
	c.Clusters["b"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: cfg.CAData}
	c.AuthInfos["u"] = auth
	c.Contexts["b"] = &clientcmdapi.Context{Cluster: "b", AuthInfo: "u"}
	c.CurrentContext = "b"
	raw, err := clientcmd.Write(*c)
	Expect(err).NotTo(HaveOccurred())
	return raw
}

// grantView lets user read everything in ns (envtest runs no controller that would fill the
// aggregated view role).
func grantView(ctx context.Context, ns, user string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}}})).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}})).To(Succeed())
}
