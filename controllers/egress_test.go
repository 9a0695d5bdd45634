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
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

const (
	// metadataHost resolves to the loopback "metadata" server (127.0.0.2).
	metadataHost = "metadata.egress.test"
	// publicHost resolves to 127.0.0.1, the address the suite allows: a public server.
	publicHost = "public.egress.test"
)

// egressTestResolver gives the test names their addresses and leaves the rest to DNS.
func egressTestResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	switch host {
	case metadataHost:
		return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
	case publicHost:
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// metadataServer stands for 169.254.169.254 on a loopback address the suite does not
// allow; hits counts requests that reached it (there must be none).
func metadataServer() (port int, hits *atomic.Int32) {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		Skip("no 127.0.0.2 on this host: " + err.Error())
	}
	hits = new(atomic.Int32)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "# Credentials\n\nAccessKeyId ASIAEXAMPLEEXAMPLE12\n")
	}))
	srv.Listener = ln
	srv.Start()
	DeferCleanup(srv.Close)
	return ln.Addr().(*net.TCPAddr).Port, hits
}

// redirectTo is a server on an allowed address that redirects every request to target.
func redirectTo(target string) string {
	GinkgoHelper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}))
	DeferCleanup(srv.Close)
	return fmt.Sprintf("http://%s:%d", publicHost, srv.Listener.Addr().(*net.TCPAddr).Port)
}

var _ = Describe("The egress guard", func() {
	It("refuses KnowledgeSource URLs and ToolServers aimed at the metadata server, directly, by redirect or by name", func(ctx SpecContext) {
		ns := newNamespace(ctx, "egress")
		port, hits := metadataServer()
		direct := fmt.Sprintf("http://127.0.0.2:%d", port)
		targets := map[string]string{
			"direct":   direct,
			"redirect": redirectTo(direct + "/latest/meta-data/"),
			"name":     fmt.Sprintf("http://%s:%d", metadataHost, port),
		}
		for name, base := range targets {
			ks := &kubagev1alpha1.KnowledgeSource{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ks-" + name},
				Spec: kubagev1alpha1.KnowledgeSourceSpec{TrustLevel: 3,
					HTTP: &kubagev1alpha1.HTTPSource{URLs: []string{base + "/latest/meta-data/iam.md"}}},
			}
			Expect(k8sClient.Create(ctx, ks)).To(Succeed())
			createToolServer(ctx, newToolServer(ns, "ts-"+name, base+"/mcp"))
		}
		for name := range targets {
			By("refusing the " + name + " target")
			ks := ksExpectReason(ctx, client.ObjectKey{Namespace: ns, Name: "ks-" + name}, metav1.ConditionFalse, kubagev1alpha1.EgressDeniedReason)
			Expect(ks.Status.ChunkCount).To(BeZero())
			ts := &kubagev1alpha1.ToolServer{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "ts-" + name}, ts)).To(Succeed())
			expectReady(ctx, ts, metav1.ConditionFalse, kubagev1alpha1.EgressDeniedReason)
		}
		Expect(hits.Load()).To(BeZero(), "the metadata server was reached")
	})

	It("refuses an embedding endpoint, a git remote, a Milvus address and a notification sink aimed at the metadata server", func(ctx SpecContext) {
		ns := newNamespace(ctx, "egress-clients")
		port, hits := metadataServer()
		byName := fmt.Sprintf("%s:%d", metadataHost, port)

		By("an embedding endpoint, by name")
		embeddingSecret(ctx, ns, "embed", "http://"+byName+"/v1", "text-embedding-3-small")
		Expect(k8sClient.Create(ctx, inlineWithEmbedding(ns, "ks-embedding", "embed"))).To(Succeed())

		By("a git remote, by redirect")
		Expect(k8sClient.Create(ctx, &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ks-git"},
			Spec: kubagev1alpha1.KnowledgeSourceSpec{TrustLevel: 3,
				Git: &kubagev1alpha1.GitSource{URL: redirectTo(fmt.Sprintf("http://127.0.0.2:%d/runbooks.git", port)) + "/runbooks.git"}},
		})).To(Succeed())

		By("a Milvus address, directly")
		milvus := inlineWithEmbedding(ns, "ks-milvus", "embed")
		milvus.Spec.Embedding = nil
		milvus.Spec.Store = kubagev1alpha1.StoreSpec{Type: kubagev1alpha1.StoreMilvus, Milvus: &kubagev1alpha1.MilvusStore{Address: fmt.Sprintf("127.0.0.2:%d", port)}}
		Expect(k8sClient.Create(ctx, milvus)).To(Succeed())

		By("a notification sink, by name")
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook"},
			StringData: map[string]string{"url": "http://" + byName + "/hook"}})).To(Succeed())
		sink := &kubagev1alpha1.NotificationSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook"},
			Spec: kubagev1alpha1.NotificationSinkSpec{Type: kubagev1alpha1.SinkWebhook, URL: kubagev1alpha1.SecretKeyReference{Name: "hook", Key: "url"}}}
		Expect(k8sClient.Create(ctx, sink)).To(Succeed())

		for _, name := range []string{"ks-embedding", "ks-git", "ks-milvus"} {
			ks := ksExpectReason(ctx, client.ObjectKey{Namespace: ns, Name: name}, metav1.ConditionFalse, kubagev1alpha1.EgressDeniedReason)
			Expect(ks.Status.ChunkCount).To(BeZero(), name)
		}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(sink), sink)).To(Succeed())
			c := meta.FindStatusCondition(sink.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(kubagev1alpha1.EgressDeniedReason), c.Message)
		}).Should(Succeed())
		Expect(hits.Load()).To(BeZero(), "the metadata server was reached")
	})
})
