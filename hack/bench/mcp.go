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
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/hack/bench/mcpbench"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/test/fakes/mcpfake"
)

func init() {
	sections = append(sections, section{name: "mcp", needsCluster: true, run: mcpBench})
}

const (
	mcpCalls          = 1000
	mcpDiscoveryTools = 1000
	mcpDiscoveryRuns  = 5
	// mcpScaleServers ToolServers of mcpScaleTools generated tools each (plus the 5 standard ones).
	mcpScaleServers = 100
	mcpScaleTools   = 20
)

type mcpCallReport struct {
	Calls         int     `json:"calls"`
	DirectP50Us   float64 `json:"directP50Us"`
	DirectP95Us   float64 `json:"directP95Us"`
	RegistryP50Us float64 `json:"registryP50Us"`
	RegistryP95Us float64 `json:"registryP95Us"`
	OverheadP50Us float64 `json:"overheadP50Us"`
}

type mcpDiscoveryReport struct {
	Transport string  `json:"transport"`
	Tools     int     `json:"tools"`
	Pages     int     `json:"pages"`
	Runs      int     `json:"runs"`
	P50Ms     float64 `json:"p50Ms"`
	MaxMs     float64 `json:"maxMs"`
}

type mcpScaleReport struct {
	Procedure    string  `json:"procedure"`
	ToolServers  int     `json:"toolServers"`
	Ready        int     `json:"ready"`
	ReadySeconds float64 `json:"readySeconds"`
	// RSS of the bench process (which hosts the manager) before and after; HWM is its peak.
	RSSBeforeMiB float64 `json:"rssBeforeMiB"`
	RSSAfterMiB  float64 `json:"rssAfterMiB"`
	HWMMiB       float64 `json:"hwmMiB"`
}

type mcpReport struct {
	CallOverhead mcpCallReport        `json:"callOverhead"`
	Discovery    []mcpDiscoveryReport `json:"discovery"`
	Scale        *mcpScaleReport      `json:"scale,omitempty"`
}

// mcpBench measures a tool call through the registry against a direct mcp-go call, discovery
// of a 1000-tool server per transport, and 100 ToolServers reconciled to Ready.
func mcpBench(ctx context.Context, env *Env) (any, error) {
	rep := &mcpReport{}
	env.Log.Printf("mcp: %d calls direct and through the registry", mcpCalls)
	co, err := mcpbench.MeasureCallOverhead(ctx, mcpCalls)
	if err != nil {
		return rep, fmt.Errorf("call overhead: %w", err)
	}
	rep.CallOverhead = mcpCallReport{
		Calls: co.Calls, DirectP50Us: micros(co.DirectP50), DirectP95Us: micros(co.DirectP95),
		RegistryP50Us: micros(co.RegistryP50), RegistryP95Us: micros(co.RegistryP95),
		OverheadP50Us: micros(co.RegistryP50 - co.DirectP50),
	}
	for _, tr := range []kmcp.Transport{kmcp.TransportStreamableHTTP, kmcp.TransportSSE} {
		env.Log.Printf("mcp: discovery of %d tools over %s", mcpDiscoveryTools, tr)
		d, err := mcpbench.MeasureDiscovery(ctx, tr, mcpDiscoveryTools, mcpDiscoveryRuns)
		if err != nil {
			return rep, fmt.Errorf("discovery over %s: %w", tr, err)
		}
		rep.Discovery = append(rep.Discovery, mcpDiscoveryReport{Transport: string(d.Transport), Tools: d.Tools,
			Pages: d.Pages, Runs: d.Runs, P50Ms: millis(d.P50), MaxMs: millis(d.Max)})
	}
	env.Log.Printf("mcp: %d ToolServers to Ready", mcpScaleServers)
	rep.Scale, err = toolServersAtScale(ctx, env)
	return rep, err
}

// toolServersAtScale runs a manager with only the ToolServer reconciler (2 workers, as
// `kubage manager`) in this process against the local cluster and times 100 ToolServers of one
// mcpfake server to Ready.
func toolServersAtScale(ctx context.Context, env *Env) (*mcpScaleReport, error) {
	if err := installCRDs(ctx, env.Cluster.RESTConfig); err != nil {
		return nil, err
	}
	rep := &mcpScaleReport{
		Procedure:   fmt.Sprintf("a controller-runtime manager with only the ToolServer reconciler (2 workers) runs in the bench process against the local cluster; %d ToolServers pointing at one mcpfake server with %d tools are created at once; time from the first create until all are Ready with the right tool count", mcpScaleServers, mcpScaleTools+5),
		ToolServers: mcpScaleServers,
	}
	srv, err := mcpfake.Start(mcpfake.Options{GeneratedTools: mcpScaleTools})
	if err != nil {
		return rep, err
	}
	defer srv.Close()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return rep, err
	}
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		return rep, err
	}
	mgr, err := ctrl.NewManager(env.Cluster.RESTConfig, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Client:                 client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
	if err != nil {
		return rep, err
	}
	r := &controllers.ToolServerReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("kubage")}
	if err := r.SetupWithManager(mgr, controllers.Options{MaxConcurrentReconciles: 2}); err != nil {
		return rep, err
	}
	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	defer func() { stopMgr(); <-mgrDone }()

	c, err := client.New(env.Cluster.RESTConfig, client.Options{Scheme: scheme})
	if err != nil {
		return rep, err
	}
	ns := fmt.Sprintf("bench-toolservers-%d", time.Now().UnixNano()%1e6)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return rep, err
	}
	defer func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) }()
	rep.RSSBeforeMiB = procStatusMiB("self", "VmRSS:")
	start := time.Now()
	for i := 0; i < mcpScaleServers; i++ {
		ts := &kubagev1alpha1.ToolServer{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("s%03d", i)},
			Spec:       kubagev1alpha1.ToolServerSpec{URL: srv.URL, Timeout: &metav1.Duration{Duration: 5 * time.Second}},
		}
		if err := c.Create(ctx, ts); err != nil {
			return rep, err
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var list kubagev1alpha1.ToolServerList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return rep, err
		}
		rep.Ready = 0
		for _, ts := range list.Items {
			if meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.ReadyCondition) && ts.Status.ToolCount == mcpScaleTools+5 {
				rep.Ready++
			}
		}
		if rep.Ready == mcpScaleServers {
			break
		}
		if time.Now().After(deadline) {
			return rep, fmt.Errorf("only %d of %d ToolServers Ready after 2 minutes", rep.Ready, mcpScaleServers)
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	rep.ReadySeconds = seconds(time.Since(start))
	rep.RSSAfterMiB = procStatusMiB("self", "VmRSS:")
	rep.HWMMiB = procStatusMiB("self", "VmHWM:")
	// Stop the health checks of 100 servers before later sections measure anything.
	if err := c.DeleteAllOf(ctx, &kubagev1alpha1.ToolServer{}, client.InNamespace(ns)); err != nil {
		return rep, err
	}
	return rep, nil
}

// procStatusMiB reads a kB field (VmRSS:, VmHWM:) of /proc/<pid>/status in MiB; 0 when unreadable.
func procStatusMiB(pid, field string) float64 {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kb); err == nil {
				return roundTenth(kb / 1024)
			}
		}
	}
	return 0
}

func micros(d time.Duration) float64 { return roundTenth(float64(d) / float64(time.Microsecond)) }
func millis(d time.Duration) float64 { return roundTenth(float64(d) / float64(time.Millisecond)) }

// roundTenth keeps one decimal: the figures are not more precise than that.
func roundTenth(f float64) float64 { return math.Round(f*10) / 10 }
