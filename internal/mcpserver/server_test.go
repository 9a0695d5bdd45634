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

package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpsdk "github.com/mark3labs/mcp-go/mcp"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/mcpserver"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

func clientset() *k8sfake.Clientset {
	return k8sfake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "checkout-7d9f"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "payments", Name: "ledger-0"},
			Status: corev1.PodStatus{Phase: corev1.PodPending}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"},
			Data: map[string][]byte{"password": []byte("hunter2")}},
	)
}

func serve(t *testing.T, opts mcpserver.Options, token string) *httptest.Server {
	t.Helper()
	s, err := mcpserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcpserver.Handler(s, mcpserver.HTTPOptions{Token: token}))
	t.Cleanup(hs.Close)
	return hs
}

func connect(t *testing.T, url, token string) *client.Client {
	t.Helper()
	c, err := connectErr(url, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// connectErr starts an mcp-go client with token and initializes the session.
func connectErr(url, token string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	if _, err := c.Initialize(ctx, mcpsdk.InitializeRequest{}); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcpsdk.CallToolResult {
	t.Helper()
	req := mcpsdk.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

func text(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestBearerTokenAuth(t *testing.T) {
	g := NewWithT(t)
	hs := serve(t, mcpserver.Options{Clientset: clientset(), DefaultNamespace: "shop"}, "s3cret")

	for _, auth := range []string{"", "Bearer wrong", "Bearer s3cret-and-more", "Basic s3cret", "s3cret"} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized), auth)
		g.Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
		g.Expect(resp.Header.Get("WWW-Authenticate")).To(ContainSubstring("Bearer"))
		var e struct{ Error, Message string }
		g.Expect(json.Unmarshal(body, &e)).To(Succeed())
		g.Expect(e.Error).To(Equal("unauthorized"))
	}

	resp, err := http.Get(hs.URL + "/healthz")
	g.Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "probes need no token")

	_, err = kmcp.Discover(context.Background(), kmcp.Config{URL: hs.URL + "/mcp", Timeout: 5 * time.Second})
	g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonAuthFailed), "what a ToolServer without the header would report")
}

func TestToolsOverStreamableHTTP(t *testing.T) {
	g := NewWithT(t)
	hs := serve(t, mcpserver.Options{Clientset: clientset(), DefaultNamespace: "shop"}, "s3cret")
	c := connect(t, hs.URL+"/mcp", "s3cret")

	list, err := c.ListTools(context.Background(), mcpsdk.ListToolsRequest{})
	g.Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		g.Expect(*tool.Annotations.ReadOnlyHint).To(BeTrue(), tool.Name)
		g.Expect(*tool.Annotations.DestructiveHint).To(BeFalse(), tool.Name)
	}
	g.Expect(names).To(ContainElements("k8s_list", "k8s_get", "k8s_describe", "k8s_events", "k8s_logs", "k8s_node_status"))

	res := call(t, c, "k8s_list", map[string]any{"kind": "pods"})
	g.Expect(res.IsError).To(BeFalse(), text(res))
	g.Expect(text(res)).To(ContainSubstring("checkout-7d9f"))
	g.Expect(text(res)).NotTo(ContainSubstring("ledger-0"))

	res = call(t, c, "k8s_list", map[string]any{"kind": "pods", "namespace": "payments"})
	g.Expect(res.IsError).To(BeTrue())
	g.Expect(text(res)).To(ContainSubstring(`namespace "payments" is not served here`))

	res = call(t, c, "k8s_list", map[string]any{"kind": "secrets"})
	g.Expect(text(res)).To(ContainSubstring("db"))
	g.Expect(text(res)).NotTo(ContainSubstring("hunter2"), "Secret values never leave the cluster")

	res = call(t, c, "k8s_get", map[string]any{"kind": "pods", "name": "nope"})
	g.Expect(res.IsError).To(BeTrue())
	g.Expect(text(res)).To(ContainSubstring("no such Pod nope"))

	res = call(t, c, "k8s_list", map[string]any{"kind": "pods", "bogus": 1})
	g.Expect(res.IsError).To(BeTrue(), "unknown arguments are rejected")
}

func TestAllowedNamespacesPerCall(t *testing.T) {
	g := NewWithT(t)
	hs := serve(t, mcpserver.Options{Clientset: clientset(), AllowedNamespaces: []string{mcpserver.AnyNamespace}}, "t")
	c := connect(t, hs.URL+"/mcp", "t")

	res := call(t, c, "k8s_list", map[string]any{"kind": "pods"})
	g.Expect(res.IsError).To(BeTrue())
	g.Expect(text(res)).To(ContainSubstring("name the namespace"))

	res = call(t, c, "k8s_list", map[string]any{"kind": "pods", "namespace": "payments"})
	g.Expect(res.IsError).To(BeFalse(), text(res))
	g.Expect(text(res)).To(ContainSubstring("ledger-0"))
	g.Expect(text(res)).To(ContainSubstring("namespace payments"))
}

func TestResultsAreCapped(t *testing.T) {
	g := NewWithT(t)
	cs := clientset()
	for i := 0; i < 40; i++ {
		_, err := cs.CoreV1().Pods("shop").Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "shop", Name: fmt.Sprintf("web-%03d-with-a-long-enough-name", i)}}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}
	hs := serve(t, mcpserver.Options{Clientset: cs, DefaultNamespace: "shop", MaxResultBytes: 1024}, "t")
	c := connect(t, hs.URL+"/mcp", "t")
	res := call(t, c, "k8s_list", map[string]any{"kind": "pods", "limit": 500})
	g.Expect(res.IsError).To(BeFalse())
	g.Expect(text(res)).To(ContainSubstring("…[truncated: 1024 of "))
	g.Expect(len(text(res))).To(BeNumerically("<", 1100))
}

func TestStdio(t *testing.T) {
	g := NewWithT(t)
	s, err := mcpserver.New(mcpserver.Options{Clientset: clientset(), DefaultNamespace: "shop"})
	g.Expect(err).NotTo(HaveOccurred())
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mcpserver.ServeStdio(ctx, s, toServerR, fromServerW) }()

	c := client.NewClient(transport.NewIO(fromServerR, toServerW, io.NopCloser(strings.NewReader(""))))
	g.Expect(c.Start(ctx)).To(Succeed())
	_, err = c.Initialize(ctx, mcpsdk.InitializeRequest{})
	g.Expect(err).NotTo(HaveOccurred())
	res := call(t, c, "k8s_list", map[string]any{"kind": "pods"})
	g.Expect(text(res)).To(ContainSubstring("checkout-7d9f"))

	cancel()
	_ = toServerW.Close()
	g.Eventually(done, 5*time.Second).Should(Receive())
}

func TestNewRejectsAnUnboundedScope(t *testing.T) {
	g := NewWithT(t)
	_, err := mcpserver.New(mcpserver.Options{Clientset: clientset()})
	g.Expect(err).To(MatchError(ContainSubstring("namespace")))
}
