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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"

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
