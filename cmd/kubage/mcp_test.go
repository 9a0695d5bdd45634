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

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

func TestMCPTokenSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mcpTokenEnv, "from-env")

	if got, err := (mcpOptions{tokenFile: file}).token(); err != nil || got != "from-file" {
		t.Fatalf("token file: got %q, %v", got, err)
	}
	if got, err := (mcpOptions{}).token(); err != nil || got != "from-env" {
		t.Fatalf("env: got %q, %v", got, err)
	}
	t.Setenv(mcpTokenEnv, "")
	if _, err := (mcpOptions{}).token(); err == nil || !strings.Contains(err.Error(), "no bearer token") {
		t.Fatalf("HTTP without a token must be refused, got %v", err)
	}
	if _, err := (mcpOptions{stdio: true}).token(); err != nil {
		t.Fatalf("stdio needs no token: %v", err)
	}
	if _, err := (mcpOptions{allowUnauthenticated: true}).token(); err != nil {
		t.Fatalf("--allow-unauthenticated: %v", err)
	}
	if err := os.WriteFile(file, []byte(strings.Repeat("x", maxTokenFile+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (mcpOptions{tokenFile: file}).token(); err == nil {
		t.Fatal("an oversized token file must be refused")
	}
}

func TestRunMCPServesToolsToAToolServerClient(t *testing.T) {
	cs := k8sfake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "checkout-1"}})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	o := mcpOptions{listen: "127.0.0.1:0", path: "/mcp", namespace: "shop", callTimeout: 5 * time.Second, maxConcurrent: 2}
	go func() { done <- runMCP(ctx, o, cs, "tok", ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("runMCP ended early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("runMCP did not start")
	}

	cfg := kmcp.Config{URL: "http://" + addr + "/mcp", Timeout: 5 * time.Second, Headers: map[string]string{"Authorization": "Bearer tok"}}
	d, err := kmcp.Discover(ctx, cfg)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if d.Server.Name != "kubage" || len(d.Tools.Tools) < 10 {
		t.Fatalf("unexpected server %+v with %d tools", d.Server, len(d.Tools.Tools))
	}
	for _, tool := range d.Tools.Tools {
		if !tool.ReadOnly || tool.Destructive || tool.SchemaError != "" {
			t.Errorf("tool %s: readOnly=%v destructive=%v schemaError=%q", tool.Name, tool.ReadOnly, tool.Destructive, tool.SchemaError)
		}
	}
	sess, err := kmcp.Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sess.CallTool(ctx, "k8s_list", json.RawMessage(`{"kind":"pods"}`))
	sess.Close()
	if err != nil || !strings.Contains(res.Text, "checkout-1") {
		t.Fatalf("k8s_list: %v %+v", err, res)
	}

	cfg.Headers = nil
	if _, err := kmcp.Discover(ctx, cfg); kmcp.ReasonOf(err) != kmcp.ReasonAuthFailed {
		t.Fatalf("without the token: want AuthFailed, got %v", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("runMCP did not stop")
	}
}

// --tokens-file: each token reads its own namespaces through the real server and client.
func TestRunMCPWithScopedTokens(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.yaml")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for bad, want := range map[string]string{
		"tokens: []": "no tokens",
		"tokens:\n- name: a\n  token: short\n  namespaces: [shop]":                        "shorter than 16",
		"tokens:\n- name: a\n  token: 0123456789abcdef\n  namespaces: [shop]\n  extra: 1": "unknown field",
	} {
		write(bad)
		if _, err := readGrants(file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", bad, want, err)
		}
	}
	write("tokens:\n- name: shop-team\n  token: shop-0123456789abcdef\n  namespaces: [shop]\n- name: pay-team\n  token: pay-0123456789abcdef\n  namespaces: [payments]\n")
	grants, err := readGrants(file)
	if err != nil {
		t.Fatal(err)
	}
	cs := k8sfake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "checkout-1"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "payments", Name: "ledger-1"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	o := mcpOptions{listen: "127.0.0.1:0", path: "/mcp", callTimeout: 5 * time.Second, maxConcurrent: 2, grants: grants}
	if _, err := o.token(); err != nil {
		t.Fatalf("scoped tokens need no single token: %v", err)
	}
	go func() { _ = runMCP(ctx, o, cs, "", ready) }()
	addr := <-ready
	for token, want := range map[string][2]string{
		"shop-0123456789abcdef": {"checkout-1", "ledger-1"},
		"pay-0123456789abcdef":  {"ledger-1", "checkout-1"},
	} {
		sess, err := kmcp.Connect(ctx, kmcp.Config{URL: "http://" + addr + "/mcp", Timeout: 5 * time.Second, Headers: map[string]string{"Authorization": "Bearer " + token}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sess.CallTool(ctx, "k8s_list", json.RawMessage(`{"kind":"pods"}`))
		if err != nil || res.IsError || !strings.Contains(res.Text, want[0]) || strings.Contains(res.Text, want[1]) {
			t.Errorf("%s lists its own namespace: %v %+v", token, err, res)
		}
		other := map[string]string{"checkout-1": "shop", "ledger-1": "payments"}[want[1]]
		res, err = sess.CallTool(ctx, "k8s_list", json.RawMessage(`{"kind":"pods","namespace":"`+other+`"}`))
		if err != nil || !res.IsError || !strings.Contains(res.Text, "not readable with this token") {
			t.Errorf("%s reads %s: %v %+v", token, other, err, res)
		}
		sess.Close()
	}
}

// config/mcp deploys the server namespace-scoped: namespaced reads (pods/log among them)
// come through RoleBindings only, the cluster-wide binding reads cluster-scoped kinds only,
// and the server runs with scoped tokens, not --allowed-namespaces=*.
func TestMCPDeploysNamespaceScoped(t *testing.T) {
	dir := filepath.Join("..", "..", "config", "mcp")
	roles := map[string]rbacv1.ClusterRole{}
	var bindings []rbacv1.ClusterRoleBinding
	for _, f := range []string{"role.yaml", "cluster_role.yaml", "role_binding.yaml"} {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(raw), "\n---\n") {
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatal(err)
			}
			switch meta.Kind {
			case "ClusterRole":
				var r rbacv1.ClusterRole
				if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
					t.Fatal(err)
				}
				roles[r.Name] = r
			case "ClusterRoleBinding":
				var b rbacv1.ClusterRoleBinding
				if err := yaml.Unmarshal([]byte(doc), &b); err != nil {
					t.Fatal(err)
				}
				bindings = append(bindings, b)
			}
		}
	}
	if len(bindings) == 0 || len(roles) == 0 {
		t.Fatal("config/mcp has no roles or cluster bindings to check")
	}
	for _, b := range bindings {
		for _, rule := range roles[b.RoleRef.Name].Rules {
			for _, r := range rule.Resources {
				if !slices.Contains([]string{"nodes", "persistentvolumes", "storageclasses", "csidrivers"}, r) {
					t.Errorf("ClusterRoleBinding %s grants %q cluster-wide", b.Name, r)
				}
			}
		}
	}
	dep, err := os.ReadFile(filepath.Join(dir, "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(dep), "--allowed-namespaces=*") || !strings.Contains(string(dep), "--tokens-file=") {
		t.Error("the MCP server must run with scoped tokens, not --allowed-namespaces=*")
	}
}
