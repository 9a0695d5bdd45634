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
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

// These specs run a manager with the multi-tenant lockdown (--secrets-need-service-account):
// a Secret an object refers to is read only as the ServiceAccount the object names.
var _ = Describe("The Secrets lockdown", Ordered, func() {
	const apiKey = "sk-lockdown-9Vx2Lq4Tz7"

	BeforeAll(func(ctx SpecContext) {
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		opts := controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond, SecretsNeedServiceAccount: true,
			MaxConcurrentReconciles: 2, WatchSelector: labels.SelectorFromSet(labels.Set{kubagev1alpha1.ShardingKeyLabel: testShard})}
		mgr := newManager()
		Expect(controllers.SetupTroubleshoot(mgr, opts)).To(Succeed())
		Expect((&controllers.ToolServerReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("kubage")}).SetupWithManager(mgr, opts)).To(Succeed())
		runManager(mgr)
	})

	// grantSecret lets ServiceAccount sa of ns get the Secret secret, and nothing else.
	grantSecret := func(ctx SpecContext, ns, sa, secret string) {
		GinkgoHelper()
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "get-" + secret},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{secret}, Verbs: []string{"get"}}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "get-" + secret},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "get-" + secret},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}}})).To(Succeed())
	}
	degradedOf := func(ts *kubagev1alpha1.Troubleshoot) *metav1.Condition {
		return meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)
	}

	It("never hands a session the model Secret its ServiceAccount may not read, says why, and uses it once it may", func(ctx SpecContext) {
		srv := llmtest.NewServer()
		DeferCleanup(srv.Close)
		srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
		srv.RequireKey(apiKey)

		ns := newNamespace(ctx, "lockdown-model")
		createCrashLoopApp(ctx, ns)
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team-model"},
			StringData: map[string]string{"baseURL": srv.BaseURL(), "model": "demo", "apiKey": apiKey}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "model-reader"}})).To(Succeed())
		// The author may create sessions but not read Secrets.
		dev := userClient(ctx, ns, "dev-without-secrets",
			rbacv1.PolicyRule{APIGroups: []string{"kubage.io"}, Resources: []string{"troubleshoots"}, Verbs: []string{"get", "create"}})
		session := func(name, sa string) *kubagev1alpha1.Troubleshoot {
			return newSession(ns, name, func(ts *kubagev1alpha1.Troubleshoot) {
				ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
				ts.Spec.Model = &kubagev1alpha1.LocalSecretReference{Name: "team-model"}
				ts.Spec.ServiceAccountName = sa
			})
		}
		expectForbidden := func(ts *kubagev1alpha1.Troubleshoot, says string) {
			GinkgoHelper()
			waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
			Expect(ts.Status.RootCause).NotTo(BeNil())
			Expect(ts.Status.RootCause.Summary).NotTo(HavePrefix("Model assessment"), "the rule engine concluded, not the model")
			c := degradedOf(ts)
			Expect(c).NotTo(BeNil())
			Expect(c.Status).To(Equal(metav1.ConditionTrue))
			Expect(c.Reason).To(Equal(kubagev1alpha1.ForbiddenReason), c.Message)
			Expect(c.Message).To(ContainSubstring(ns+"/team-model"), "the condition names the Secret")
			Expect(c.Message).To(ContainSubstring(says))
			Expect(c.Message).NotTo(ContainSubstring(apiKey))
			Expect(ts.Status.Usage.LLMCalls).To(BeZero())
			Eventually(func() []string { return eventReasons(ctx, ns, ts.Name) }).Should(ContainElement(kubagev1alpha1.ForbiddenReason))
		}

		By("refusing a session that names no ServiceAccount: the operator does not read the Secret for it")
		anon := session("no-account", "")
		Expect(dev.Create(ctx, anon)).To(Succeed())
		expectForbidden(anon, "spec.serviceAccountName is required")

		By("refusing a session whose ServiceAccount may not get the Secret")
		denied := session("denied", "model-reader")
		Expect(dev.Create(ctx, denied)).To(Succeed())
		expectForbidden(denied, "system:serviceaccount:"+ns+":model-reader")
		Expect(srv.Requests()).To(BeEmpty(), "the model was never reached")

		By("using the model once the ServiceAccount may get that Secret")
		grantSecret(ctx, ns, "model-reader", "team-model")
		allowed := session("allowed", "model-reader")
		Expect(dev.Create(ctx, allowed)).To(Succeed())
		waitForPhase(ctx, allowed, kubagev1alpha1.PhaseCompleted)
		Expect(allowed.Status.RootCause).NotTo(BeNil())
		Expect(allowed.Status.RootCause.Summary).To(HavePrefix("Model assessment: "))
		Expect(degradedOf(allowed)).To(BeNil())
		Expect(allowed.Status.Usage.LLMCalls).To(BeNumerically(">", 0))
		Expect(srv.Requests()).NotTo(BeEmpty())
		for _, r := range srv.Requests() {
			Expect(r.Text()).NotTo(ContainSubstring(apiKey))
		}
	})

	It("never dials another cluster with a kubeconfig its ServiceAccount may not read, and says why", func(ctx SpecContext) {
		var hits atomic.Int32
		remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		}))
		DeferCleanup(remote.Close)
		kubeconfig := "apiVersion: v1\nkind: Config\ncurrent-context: b\n" +
			"clusters: [{name: b, cluster: {server: '" + remote.URL + "'}}]\n" +
			"users: [{name: b, user: {token: kubeconfig-t0k3n-Rw3}}]\n" +
			"contexts: [{name: b, context: {cluster: b, user: b}}]\n"
		ns := newNamespace(ctx, "lockdown-cluster")
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cluster-b"},
			StringData: map[string]string{"value": kubeconfig}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cluster-reader"}})).To(Succeed())
		session := func(name, sa string) *kubagev1alpha1.Troubleshoot {
			ts := newSession(ns, name, func(ts *kubagev1alpha1.Troubleshoot) {
				ts.Spec.ServiceAccountName = sa
				ts.Spec.Cluster = &kubagev1alpha1.ClusterReference{KubeConfig: kubagev1alpha1.KubeConfigReference{
					SecretRef: kubagev1alpha1.KubeConfigSecretReference{Name: "cluster-b"}}}
			})
			Expect(k8sClient.Create(ctx, ts)).To(Succeed())
			return ts
		}
		readyIs := func(ts *kubagev1alpha1.Troubleshoot, reason, says string) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
				c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
				g.Expect(c).NotTo(BeNil())
				g.Expect(c.Reason).To(Equal(reason), c.Message)
				g.Expect(c.Message).To(ContainSubstring(says))
				g.Expect(c.Message).NotTo(ContainSubstring("kubeconfig-t0k3n"))
			}).Should(Succeed())
		}

		By("refusing a session that names no ServiceAccount")
		anon := session("no-account", "")
		readyIs(anon, kubagev1alpha1.ForbiddenReason, "spec.serviceAccountName is required")
		Eventually(func() []string { return eventReasons(ctx, ns, anon.Name) }).Should(ContainElement(kubagev1alpha1.ForbiddenReason))

		By("refusing a session whose ServiceAccount may not get the Secret")
		denied := session("denied", "cluster-reader")
		readyIs(denied, kubagev1alpha1.ForbiddenReason, "system:serviceaccount:"+ns+":cluster-reader")
		Consistently(hits.Load).WithTimeout(time.Second).Should(BeZero(), "the other cluster is never dialed")
		Expect(anon.Status.Phase).To(BeElementOf(kubagev1alpha1.PhasePending, kubagev1alpha1.TroubleshootPhase("")))

		By("dialing it once the ServiceAccount may get the Secret (it refuses the token: ClusterUnauthorized)")
		grantSecret(ctx, ns, "cluster-reader", "cluster-b")
		allowed := session("allowed", "cluster-reader")
		readyIs(allowed, kubagev1alpha1.ClusterUnauthorizedReason, "")
		Expect(hits.Load()).To(BeNumerically(">", 0))
	})

	It("never sends a ToolServer header from a Secret when the author names no ServiceAccount", func(ctx SpecContext) {
		ns := newNamespace(ctx, "lockdown-tools")
		const token = "Bearer lockdown-t0k3n-Hq5Wc8"
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "prom-token"},
			Data: map[string][]byte{"authorization": []byte(token)}})).To(Succeed())
		var hits atomic.Int32
		loopback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			http.Error(w, "no", http.StatusUnauthorized)
		}))
		DeferCleanup(loopback.Close)
		// The author may create ToolServers but not read Secrets.
		dev := userClient(ctx, ns, "tools-dev-without-secrets",
			rbacv1.PolicyRule{APIGroups: []string{"kubage.io"}, Resources: []string{"toolservers"}, Verbs: []string{"get", "create", "delete"}})
		ts := newToolServer(ns, "prom", loopback.URL+"/mcp", func(ts *kubagev1alpha1.ToolServer) {
			ts.Labels = map[string]string{kubagev1alpha1.ShardingKeyLabel: testShard}
			ts.Spec.Headers = []kubagev1alpha1.HeaderSource{{Name: "Authorization",
				SecretKeyRef: &kubagev1alpha1.SecretKeyReference{Name: "prom-token", Key: "authorization"}}}
		})
		Expect(dev.Create(ctx, ts)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(dev.Delete(ctx, ts)).To(Succeed()) })

		expectReady(ctx, ts, metav1.ConditionFalse, kubagev1alpha1.ForbiddenReason)
		c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
		Expect(c.Message).To(ContainSubstring("spec.serviceAccountName is required"))
		Expect(c.Message).NotTo(ContainSubstring("lockdown-t0k3n"))
		Consistently(hits.Load).WithTimeout(time.Second).Should(BeZero(), "nothing is sent, least of all the header")
	})
})
