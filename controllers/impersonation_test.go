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
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/test/fakes/mcpfake"
)

var _ = Describe("ToolServer Secrets read as the object's ServiceAccount", func() {
	It("never sends a header from a Secret the named account may not read, and says why", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-sa")
		const token = "Bearer sa-t0k3n-Zq8mN3vR7tY1"
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "prom-token"},
			Data: map[string][]byte{"authorization": []byte(token)}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "logs-reader"}})).To(Succeed())

		// The MCP server records every Authorization header it is sent.
		mcp := startMCP(mcpfake.Options{Token: "sa-t0k3n-Zq8mN3vR7tY1"})
		target, err := url.Parse(mcp.URL)
		Expect(err).NotTo(HaveOccurred())
		target.Path = "" // the proxy appends the request's own path (/mcp)
		proxy := httputil.NewSingleHostReverseProxy(target)
		proxy.FlushInterval = -1
		var mu sync.Mutex
		var seen []string
		spy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			proxy.ServeHTTP(w, r)
		}))
		DeferCleanup(spy.Close)
		ts := newToolServer(ns, "prom", spy.URL+"/mcp", func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.ServiceAccountName = "logs-reader"
			ts.Spec.Headers = []kubagev1alpha1.HeaderSource{{Name: "Authorization",
				SecretKeyRef: &kubagev1alpha1.SecretKeyReference{Name: "prom-token", Key: "authorization"}}}
		})
		createToolServer(ctx, ts)

		By("refusing while the account may not get the Secret")
		expectReady(ctx, ts, metav1.ConditionFalse, kubagev1alpha1.ForbiddenReason)
		c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
		Expect(c.Message).To(ContainSubstring("logs-reader"))
		Expect(c.Message).To(ContainSubstring("not sent"))
		Expect(c.Message).NotTo(ContainSubstring("sa-t0k3n"))
		Consistently(func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }).
			WithTimeout(time.Second).Should(BeEmpty(), "nothing is sent, least of all the header")

		By("connecting once the account is granted get on that Secret")
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "read-prom-token"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"prom-token"}, Verbs: []string{"get"}}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "read-prom-token"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "read-prom-token"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "logs-reader", Namespace: ns}}})).To(Succeed())
		requestReconcile(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
		mu.Lock()
		Expect(seen).To(ContainElement(token))
		mu.Unlock()
	})
})

var _ = Describe("KnowledgeSource Secrets read as the object's ServiceAccount", func() {
	It("does not use an embedding Secret the named account may not read, and says why", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ks-sa")
		var calls atomic.Int32
		embeddingSecret(ctx, ns, "embed", fakeEmbeddings(0, &calls), "fake-embed")
		Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kb-reader"}})).To(Succeed())
		ks := inlineWithEmbedding(ns, "docs", "embed")
		ks.Spec.ServiceAccountName = "kb-reader"
		Expect(k8sClient.Create(ctx, ks)).To(Succeed())

		By("refusing while the account may not get the Secret")
		got := ksExpectReason(ctx, client.ObjectKeyFromObject(ks), metav1.ConditionFalse, kubagev1alpha1.ForbiddenReason)
		Expect(meta.FindStatusCondition(got.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).To(ContainSubstring("kb-reader"))
		Expect(calls.Load()).To(BeZero(), "the embedding endpoint is never called with a key the account may not read")

		By("indexing once the account is granted get on that Secret")
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "read-embed"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"embed"}, Verbs: []string{"get"}}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "read-embed"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "read-embed"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "kb-reader", Namespace: ns}}})).To(Succeed())
		ksRequestReconcile(ctx, ks)
		ksExpectReason(ctx, client.ObjectKeyFromObject(ks), metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		Expect(calls.Load()).To(BeNumerically(">", 0))
	})
})
