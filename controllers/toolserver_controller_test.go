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
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/test/fakes/mcpfake"
)

// These specs run the ToolServer reconciler against real mcp-go servers on loopback.

func startMCP(opts mcpfake.Options) *mcpfake.Server {
	s, err := mcpfake.Start(opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(s.Close)
	return s
}

func newToolServer(ns, name, url string, mutate ...func(*kubagev1alpha1.ToolServer)) *kubagev1alpha1.ToolServer {
	ts := &kubagev1alpha1.ToolServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kubagev1alpha1.ToolServerSpec{
			URL:     url,
			Timeout: &metav1.Duration{Duration: 5 * time.Second},
		},
	}
	for _, m := range mutate {
		m(ts)
	}
	return ts
}

// createToolServer creates ts and deletes it when the spec ends, so that its health
// checks do not run on in the background of later specs.
func createToolServer(ctx context.Context, ts *kubagev1alpha1.ToolServer) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, ts)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ts))).To(Succeed())
	})
}

// readyOf fetches ts and returns its Ready condition (nil before the first reconcile).
func readyOf(g Gomega, ctx context.Context, ts *kubagev1alpha1.ToolServer) *metav1.Condition {
	g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
	return meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
}

func expectReady(ctx context.Context, ts *kubagev1alpha1.ToolServer, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		c := readyOf(g, ctx, ts)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(reason), c.Message)
		g.Expect(c.Status).To(Equal(status))
	}).Should(Succeed())
}

func toolByName(ts *kubagev1alpha1.ToolServer, name string) *kubagev1alpha1.DiscoveredTool {
	for i := range ts.Status.DiscoveredTools {
		if ts.Status.DiscoveredTools[i].Name == name {
			return &ts.Status.DiscoveredTools[i]
		}
	}
	return nil
}

func requestReconcile(ctx context.Context, ts *kubagev1alpha1.ToolServer) {
	GinkgoHelper()
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
	patch := client.MergeFrom(ts.DeepCopy())
	if ts.Annotations == nil {
		ts.Annotations = map[string]string{}
	}
	ts.Annotations[controllers.ReconcileRequestedAnnotation] = fmt.Sprint(time.Now().UnixNano())
	Expect(k8sClient.Patch(ctx, ts, patch)).To(Succeed())
}

func readyEventReasons(ctx context.Context, ts *kubagev1alpha1.ToolServer) []string {
	list := &eventsv1.EventList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ts.Namespace))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "ToolServer" && e.Regarding.Name == ts.Name {
			out = append(out, e.Reason)
		}
	}
	return out
}

var _ = Describe("ToolServer", func() {
	DescribeTable("discovers tools, applies the tool policy and records the server",
		func(ctx SpecContext, transport kmcp.Transport) {
			ns := newNamespace(ctx, "tsv-discover")
			srv := startMCP(mcpfake.Options{Transport: transport, Name: "logs-mcp", Version: "3.1.4", GeneratedTools: 30, PageSize: 7})
			Expect(k8sClient.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant"},
				Data:       map[string]string{"id": "team-a\n"},
			})).To(Succeed())
			ts := newToolServer(ns, "logs", srv.URL, func(ts *kubagev1alpha1.ToolServer) {
				ts.Spec.Transport = kubagev1alpha1.Transport(transport)
				ts.Spec.Category = kubagev1alpha1.ToolCategoryLogs
				ts.Spec.Tools = kubagev1alpha1.ToolPolicy{Deny: []string{"fail"}, Mutating: []string{"tool_0001"}}
				ts.Spec.Headers = []kubagev1alpha1.HeaderSource{{Name: "X-Tenant",
					ConfigMapKeyRef: &kubagev1alpha1.ConfigMapKeyReference{Name: "tenant", Key: "id"}}}
			})
			createToolServer(ctx, ts)

			expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
			Expect(ts.Status.ObservedGeneration).To(Equal(ts.Generation))
			Expect(ts.Status.ToolCount).To(Equal(int32(35)), "30 generated + 5 standard tools over 5 pages")
			Expect(ts.Status.DiscoveredTools).To(HaveLen(35))
			Expect(ts.Status.ServerInfo).NotTo(BeNil())
			Expect(ts.Status.ServerInfo.Name).To(Equal("logs-mcp"))
			Expect(ts.Status.ServerInfo.Version).To(Equal("3.1.4"))
			Expect(ts.Status.ServerInfo.ProtocolVersion).NotTo(BeEmpty())
			Expect(ts.Status.LastSeenTime).NotTo(BeNil())
			Expect(ts.Status.ConsecutiveFailures).To(BeZero())
			Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())

			Expect(*toolByName(ts, "echo")).To(Equal(kubagev1alpha1.DiscoveredTool{
				Name: "echo", Description: "Echo a message back.", Allowed: true}))
			Expect(toolByName(ts, "fail").Allowed).To(BeFalse(), "denied by spec.tools.deny")
			Expect(toolByName(ts, "delete_pods").Mutating).To(BeTrue(), "annotated destructive by the server")
			Expect(toolByName(ts, "tool_0001").Mutating).To(BeTrue(), "declared in spec.tools.mutating")
			Expect(toolByName(ts, "tool_0002").Mutating).To(BeFalse())

			ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
			Expect(ready.Message).To(ContainSubstring("logs-mcp 3.1.4"))
			Expect(ready.Message).To(ContainSubstring("35 tools, 34 allowed, 2 mutating"))
			Eventually(func() []string { return readyEventReasons(ctx, ts) }).Should(Equal([]string{kubagev1alpha1.ConnectedReason}))
		},
		Entry("over streamable HTTP", kmcp.TransportStreamableHTTP),
		Entry("over SSE", kmcp.TransportSSE),
	)

	It("re-lists tools on request and on the health-check interval", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-relist")
		srv := startMCP(mcpfake.Options{})
		ts := newToolServer(ns, "grows", srv.URL, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.HealthCheckInterval = &metav1.Duration{Duration: 10 * time.Second}
		})
		createToolServer(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
		Expect(ts.Status.ToolCount).To(Equal(int32(5)))

		By("re-listing at once when the reconcile-request annotation changes")
		srv.AddTextTool("loki_query", "Query Loki", "no lines")
		requestReconcile(ctx, ts)
		Eventually(func(g Gomega) {
			readyOf(g, ctx, ts)
			g.Expect(toolByName(ts, "loki_query")).NotTo(BeNil())
		}, 5*time.Second).Should(Succeed())

		By("re-listing on the 10s health-check interval without any trigger")
		srv.AddTextTool("loki_labels", "List Loki labels", "app")
		srv.RemoveTools("fail")
		Eventually(func(g Gomega) {
			readyOf(g, ctx, ts)
			g.Expect(toolByName(ts, "loki_labels")).NotTo(BeNil())
			g.Expect(toolByName(ts, "fail")).To(BeNil())
			g.Expect(ts.Status.ToolCount).To(Equal(int32(6)))
		}, 25*time.Second, 250*time.Millisecond).Should(Succeed())
		Expect(readyEventReasons(ctx, ts)).To(Equal([]string{kubagev1alpha1.ConnectedReason}), "no Event without a transition")
	})

	It("authenticates with a header from a Secret and follows the Secret", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-auth")
		srv := startMCP(mcpfake.Options{Token: "t0k3n"})
		ts := newToolServer(ns, "prom", srv.URL, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Headers = []kubagev1alpha1.HeaderSource{{Name: "Authorization",
				SecretKeyRef: &kubagev1alpha1.SecretKeyReference{Name: "prom-token", Key: "authorization"}}}
		})
		createToolServer(ctx, ts)

		By("stalling on the missing Secret")
		expectReady(ctx, ts, metav1.ConditionFalse, kubagev1alpha1.SecretNotFoundReason)
		Expect(meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeTrue())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).
			To(ContainSubstring("Secret " + ns + "/prom-token not found"))

		By("reacting to the Secret's creation, seen by the Secret poller (a stalled object is not requeued): wrong token gives AuthFailed")
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "prom-token"},
			Data:       map[string][]byte{"authorization": []byte("Bearer wrong")},
		}
		Expect(k8sClient.Create(ctx, secret)).To(Succeed())
		expectReady(ctx, ts, metav1.ConditionFalse, string(kmcp.ReasonAuthFailed))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).To(ContainSubstring("HTTP 401"))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeNil())

		By("connecting once the Secret holds the right token")
		patch := client.MergeFrom(secret.DeepCopy())
		secret.Data["authorization"] = []byte("Bearer t0k3n")
		Expect(k8sClient.Patch(ctx, secret, patch)).To(Succeed())
		expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
		Expect(ts.Status.DiscoveredTools).NotTo(BeEmpty())

		By("keeping the last-known tools when the Secret is deleted")
		Expect(k8sClient.Delete(ctx, secret)).To(Succeed())
		expectReady(ctx, ts, metav1.ConditionFalse, kubagev1alpha1.SecretNotFoundReason)
		Expect(ts.Status.DiscoveredTools).To(HaveLen(5))
		degraded := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)
		Expect(degraded).NotTo(BeNil())
		Expect(degraded.Reason).To(Equal(kubagev1alpha1.StaleToolsReason))

		Eventually(func() []string { return readyEventReasons(ctx, ts) }).Should(ConsistOf(kubagev1alpha1.SecretNotFoundReason,
			string(kmcp.ReasonAuthFailed), kubagev1alpha1.ConnectedReason, kubagev1alpha1.SecretNotFoundReason))
	})

	It("keeps last-known tools through an outage and recovers with backoff", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-outage")
		srv := startMCP(mcpfake.Options{Transport: kmcp.TransportSSE, GeneratedTools: 3})
		ts := newToolServer(ns, "flaky", srv.URL, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Transport = kubagev1alpha1.TransportSSE
		})
		createToolServer(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
		lastSeen := ts.Status.LastSeenTime

		By("marking the server Unreachable and Degraded, with its tools kept")
		srv.Stop()
		requestReconcile(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionFalse, string(kmcp.ReasonUnreachable))
		Expect(ts.Status.DiscoveredTools).To(HaveLen(8))
		Expect(ts.Status.ToolCount).To(Equal(int32(8)))
		Expect(ts.Status.LastSeenTime).To(Equal(lastSeen))
		Expect(ts.Status.ConsecutiveFailures).To(BeNumerically(">=", 1))
		Expect(meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeTrue())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeNil())

		By("counting failed retries while it stays down")
		Eventually(func(g Gomega) {
			readyOf(g, ctx, ts)
			g.Expect(ts.Status.ConsecutiveFailures).To(BeNumerically(">=", 2))
		}).Should(Succeed())

		By("connecting again on a backoff retry once the server is back")
		Expect(srv.Restart()).To(Succeed())
		expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
		Expect(ts.Status.ConsecutiveFailures).To(BeZero())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())
		Eventually(func() []string { return readyEventReasons(ctx, ts) }).Should(
			ConsistOf(kubagev1alpha1.ConnectedReason, string(kmcp.ReasonUnreachable), kubagev1alpha1.ConnectedReason))
	})

	It("bounds thousands of tools in the status, keeping allowed ones", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-many")
		srv := startMCP(mcpfake.Options{GeneratedTools: 3000, PageSize: 500})
		ts := newToolServer(ns, "huge", srv.URL, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Tools.Allow = []string{"tool_2999", "echo"}
		})
		createToolServer(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
		Expect(ts.Status.ToolCount).To(Equal(int32(3005)))
		Expect(ts.Status.DiscoveredTools).To(HaveLen(256))
		Expect(toolByName(ts, "tool_2999").Allowed).To(BeTrue())
		Expect(toolByName(ts, "echo").Allowed).To(BeTrue())
		Expect(toolByName(ts, "tool_0000").Allowed).To(BeFalse())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).
			To(ContainSubstring("3005 tools, 2 allowed, 1 mutating; status shows 256 of them"))
	})

	It("flags a tool with an invalid input schema instead of failing the server", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-schema")
		srv := startMCP(mcpfake.Options{})
		srv.AddRawTool("broken", json.RawMessage(`{"type":"object","properties":{"q":{"type":"strnig"}}}`))
		ts := newToolServer(ns, "schemas", srv.URL)
		createToolServer(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionTrue, kubagev1alpha1.ConnectedReason)
		broken := toolByName(ts, "broken")
		Expect(broken.Allowed).To(BeFalse())
		Expect(broken.Description).To(HavePrefix("[invalid input schema: "))
		Expect(toolByName(ts, "echo").Allowed).To(BeTrue())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).
			To(ContainSubstring("1 with an invalid input schema, not callable: broken"))
	})

	It("cuts a server that hangs mid-stream with the timeout", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-hang")
		srv := startMCP(mcpfake.Options{})
		srv.HangToolsList(true)
		ts := newToolServer(ns, "hangs", srv.URL, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Timeout = &metav1.Duration{Duration: time.Second}
		})
		createToolServer(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionFalse, string(kmcp.ReasonTimeout))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).To(ContainSubstring("tools/list"))
		Expect(ts.Status.DiscoveredTools).To(BeEmpty())
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())
	})

	It("cuts a 50 MB tools/list with the size cap", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-huge")
		srv := startMCP(mcpfake.Options{})
		srv.AddTextTool("verbose", strings.Repeat("d", 50<<20), "x")
		ts := newToolServer(ns, "huge-list", srv.URL)
		createToolServer(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionFalse, string(kmcp.ReasonResponseTooLarge))
		Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).To(ContainSubstring("size cap"))
		// Stop the retries, which would build the 50 MB answer again.
		Expect(k8sClient.Delete(ctx, ts)).To(Succeed())
	})

	It("reports an untrusted certificate as TLSError", func(ctx SpecContext) {
		ns := newNamespace(ctx, "tsv-tls")
		srv := startMCP(mcpfake.Options{TLS: true})
		Expect(srv.URL).To(HavePrefix("https://"))
		ts := newToolServer(ns, "tls", srv.URL)
		createToolServer(ctx, ts)
		expectReady(ctx, ts, metav1.ConditionFalse, string(kmcp.ReasonTLSError))
		Expect(strings.ToLower(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition).Message)).To(ContainSubstring("certificate"))
	})
})
