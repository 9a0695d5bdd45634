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

// Package mcpbench measures the MCP figures `make bench` prints: discovery time of a
// server with many tools, and the overhead of a tool call through the registry
// compared with a direct mcp-go call. Everything runs against loopback mcp-go servers.
package mcpbench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpsdk "github.com/mark3labs/mcp-go/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/internal/tools/registry"
	"github.com/kubage/kubage/test/fakes/mcpfake"
)

// Discovery is the time to connect, initialise and list every tool of one server.
type Discovery struct {
	Transport kmcp.Transport
	Tools     int
	Pages     int
	Runs      int
	P50, Max  time.Duration
}

func (d Discovery) String() string {
	return fmt.Sprintf("MCP discovery, %d tools in %d pages over %s: p50 %s, max %s (%d runs)",
		d.Tools, d.Pages, d.Transport, d.P50.Round(10*time.Microsecond), d.Max.Round(10*time.Microsecond), d.Runs)
}

// MeasureDiscovery starts a server with tools tools (pages of 100) and discovers it runs times.
func MeasureDiscovery(ctx context.Context, transport kmcp.Transport, tools, runs int) (Discovery, error) {
	srv, err := mcpfake.Start(mcpfake.Options{Transport: transport, GeneratedTools: tools, PageSize: 100, NoStandardTools: true})
	if err != nil {
		return Discovery{}, err
	}
	defer srv.Close()
	out := Discovery{Transport: transport, Runs: runs}
	var times []time.Duration
	for i := 0; i < runs; i++ {
		d, err := kmcp.Discover(ctx, kmcp.Config{URL: srv.URL, Transport: transport, Timeout: 30 * time.Second})
		if err != nil {
			return out, err
		}
		if len(d.Tools.Tools) != tools {
			return out, fmt.Errorf("listed %d tools, want %d", len(d.Tools.Tools), tools)
		}
		out.Tools, out.Pages = len(d.Tools.Tools), d.Tools.Pages
		times = append(times, d.Elapsed)
	}
	out.P50, _ = percentile(times, 50)
	out.Max, _ = percentile(times, 100)
	return out, nil
}

// CallOverhead compares tool-call latency through the registry with direct mcp-go calls.
type CallOverhead struct {
	Calls                    int
	DirectP50, DirectP95     time.Duration
	RegistryP50, RegistryP95 time.Duration
}

func (c CallOverhead) String() string {
	return fmt.Sprintf("MCP tool call (%d calls): direct mcp-go p50 %s p95 %s; through the registry p50 %s p95 %s (overhead p50 %s)",
		c.Calls, c.DirectP50.Round(time.Microsecond), c.DirectP95.Round(time.Microsecond),
		c.RegistryP50.Round(time.Microsecond), c.RegistryP95.Round(time.Microsecond),
		(c.RegistryP50 - c.DirectP50).Round(time.Microsecond))
}

// MeasureCallOverhead calls the echo tool of one loopback server calls times directly
// and calls times through a registry session (validation, breaker, limits, log).
func MeasureCallOverhead(ctx context.Context, calls int) (CallOverhead, error) {
	srv, err := mcpfake.Start(mcpfake.Options{})
	if err != nil {
		return CallOverhead{}, err
	}
	defer srv.Close()
	out := CallOverhead{Calls: calls}

	direct, err := client.NewStreamableHttpClient(srv.URL)
	if err != nil {
		return out, err
	}
	defer direct.Close()
	if err := direct.Start(ctx); err != nil {
		return out, err
	}
	if _, err := direct.Initialize(ctx, mcpsdk.InitializeRequest{}); err != nil {
		return out, err
	}
	req := mcpsdk.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"message": "ping"}
	var directTimes []time.Duration
	for i := 0; i < calls; i++ {
		start := time.Now()
		if _, err := direct.CallTool(ctx, req); err != nil {
			return out, err
		}
		directTimes = append(directTimes, time.Since(start))
	}

	ts := kubagev1alpha1.ToolServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "echo"},
		Spec: kubagev1alpha1.ToolServerSpec{URL: srv.URL, Transport: kubagev1alpha1.TransportStreamableHTTP,
			Timeout: &metav1.Duration{Duration: 30 * time.Second}},
		Status: kubagev1alpha1.ToolServerStatus{Conditions: []metav1.Condition{{
			Type: kubagev1alpha1.ReadyCondition, Status: metav1.ConditionTrue, Reason: "Connected"}}},
	}
	reg, err := registry.Open(ctx, registry.Options{Namespace: "bench", Cluster: staticCluster{ts}, MaxCallLog: calls + 1})
	if err != nil {
		return out, err
	}
	defer reg.Close()
	if p := reg.Problems(); len(p) > 0 {
		return out, fmt.Errorf("opening the registry: %+v", p)
	}
	args := json.RawMessage(`{"message":"ping"}`)
	var regTimes []time.Duration
	for i := 0; i < calls; i++ {
		start := time.Now()
		if _, err := reg.Call(ctx, "echo", args); err != nil {
			return out, err
		}
		regTimes = append(regTimes, time.Since(start))
	}
	out.DirectP50, _ = percentile(directTimes, 50)
	out.DirectP95, _ = percentile(directTimes, 95)
	out.RegistryP50, _ = percentile(regTimes, 50)
	out.RegistryP95, _ = percentile(regTimes, 95)
	return out, nil
}

// staticCluster serves fixed ToolServers without headers.
type staticCluster []kubagev1alpha1.ToolServer

func (s staticCluster) ListToolServers(context.Context) ([]kubagev1alpha1.ToolServer, error) {
	return s, nil
}
func (staticCluster) NamespaceLabels(context.Context, string) (map[string]string, error) {
	return nil, nil
}
func (staticCluster) Headers(context.Context, *kubagev1alpha1.ToolServer) (map[string]string, error) {
	return nil, nil
}

// percentile is the nearest-rank percentile of ds.
func percentile(ds []time.Duration, p int) (time.Duration, bool) {
	if len(ds) == 0 {
		return 0, false
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))], true
}
