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
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/mcpserver"
	"github.com/kubage/kubage/internal/redact"
)

// Each token reads only its own namespaces, over real streamable HTTP with the mcp-go client,
// and what it reads is still redacted.
func TestTokensAreScopedToNamespaces(t *testing.T) {
	g := NewWithT(t)
	cs := clientset()
	secret := redact.Formats[0].Positive
	_, err := cs.CoreV1().Pods("payments").Create(t.Context(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "payments", Name: "ledger-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Message: "failed with " + secret}}}}}},
		metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = cs.CoreV1().Events("payments").Create(t.Context(), &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "payments", Name: "ledger-1.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "payments", Name: "ledger-1"},
		Type:           "Warning", Reason: "BackOff", Message: "login with " + secret, Count: 1, LastTimestamp: metav1.Now()}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	s, err := mcpserver.New(mcpserver.Options{Clientset: cs, AllowedNamespaces: []string{mcpserver.AnyNamespace}})
	g.Expect(err).NotTo(HaveOccurred())
	grants := []mcpserver.TokenGrant{
		{Name: "shop-team", Token: "shop-token-0123456789", Namespaces: []string{"shop"}},
		{Name: "payments-team", Token: "payments-token-0123456789", Namespaces: []string{"payments", "billing"}},
	}
	g.Expect(mcpserver.ValidateGrants(grants)).To(Succeed())
	hs := httptest.NewServer(mcpserver.Handler(s, mcpserver.HTTPOptions{Tokens: grants}))
	t.Cleanup(hs.Close)

	shop := connect(t, hs.URL+"/mcp", "shop-token-0123456789")
	res := call(t, shop, "k8s_list", map[string]any{"kind": "pods"})
	g.Expect(res.IsError).To(BeFalse(), text(res))
	g.Expect(text(res)).To(ContainSubstring("checkout-7d9f"), "a one-namespace token reads it without naming it")
	res = call(t, shop, "k8s_list", map[string]any{"kind": "pods", "namespace": "payments"})
	g.Expect(res.IsError).To(BeTrue())
	g.Expect(text(res)).To(ContainSubstring(`namespace "payments" is not readable with this token; it reads: shop`))
	g.Expect(text(res)).NotTo(ContainSubstring("ledger"))

	payments := connect(t, hs.URL+"/mcp", "payments-token-0123456789")
	res = call(t, payments, "k8s_list", map[string]any{"kind": "pods"})
	g.Expect(res.IsError).To(BeTrue(), "two namespaces: the call must name one")
	res = call(t, payments, "k8s_describe", map[string]any{"kind": "pods", "name": "ledger-1", "namespace": "payments"})
	g.Expect(res.IsError).To(BeFalse(), text(res))
	g.Expect(text(res)).To(ContainSubstring("ledger-1"))
	res = call(t, payments, "k8s_events", map[string]any{"kind": "Pod", "name": "ledger-1", "namespace": "payments"})
	g.Expect(res.IsError).To(BeFalse(), text(res))
	g.Expect(text(res)).To(ContainSubstring(redact.Marker))
	g.Expect(text(res)).NotTo(ContainSubstring(secret))
	res = call(t, payments, "k8s_list", map[string]any{"kind": "pods", "namespace": "shop"})
	g.Expect(res.IsError).To(BeTrue())

	// Tokens are not prefixes of each other, nor accepted without the scheme.
	for _, bad := range []string{"shop-token", "shop-token-0123456789x", ""} {
		_, err := connectErr(hs.URL+"/mcp", bad)
		g.Expect(err).To(HaveOccurred(), bad)
	}
}

func TestValidateGrants(t *testing.T) {
	g := NewWithT(t)
	ok := mcpserver.TokenGrant{Name: "a", Token: strings.Repeat("x", 16), Namespaces: []string{"shop"}}
	g.Expect(mcpserver.ValidateGrants([]mcpserver.TokenGrant{ok})).To(Succeed())
	g.Expect(mcpserver.ValidateGrants(nil)).To(MatchError(ContainSubstring("no tokens")))
	short := ok
	short.Token = "short"
	g.Expect(mcpserver.ValidateGrants([]mcpserver.TokenGrant{short})).To(MatchError(ContainSubstring("shorter than 16")))
	none := ok
	none.Namespaces = nil
	g.Expect(mcpserver.ValidateGrants([]mcpserver.TokenGrant{none})).To(MatchError(ContainSubstring("names no namespace")))
	dup := ok
	dup.Name = "b"
	g.Expect(mcpserver.ValidateGrants([]mcpserver.TokenGrant{ok, dup})).To(MatchError(ContainSubstring("another entry's token")))
}
