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

package mcpbench_test

import (
	"context"
	"os"
	"testing"

	"github.com/kubage/kubage/hack/bench/mcpbench"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// TestFigures runs the measurements small so they cannot rot; with KUBAGE_BENCH=1 it
// runs them at full size and prints the figures (make bench).
func TestFigures(t *testing.T) {
	tools, runs, calls := 1000, 2, 50
	if os.Getenv("KUBAGE_BENCH") != "" {
		runs, calls = 10, 1000
	}
	ctx := context.Background()
	for _, tr := range []kmcp.Transport{kmcp.TransportStreamableHTTP, kmcp.TransportSSE} {
		d, err := mcpbench.MeasureDiscovery(ctx, tr, tools, runs)
		if err != nil {
			t.Fatalf("discovery over %s: %v", tr, err)
		}
		if d.Tools != tools || d.Pages < 10 || d.Pages > 11 || d.P50 <= 0 || d.Max < d.P50 {
			t.Fatalf("implausible discovery figures: %+v", d)
		}
		t.Log(d)
	}
	c, err := mcpbench.MeasureCallOverhead(ctx, calls)
	if err != nil {
		t.Fatalf("call overhead: %v", err)
	}
	if c.DirectP50 <= 0 || c.RegistryP50 <= 0 || c.DirectP95 < c.DirectP50 || c.RegistryP95 < c.RegistryP50 {
		t.Fatalf("implausible call figures: %+v", c)
	}
	t.Log(c)
}

func BenchmarkDiscovery1000Tools(b *testing.B) {
	for b.Loop() {
		if _, err := mcpbench.MeasureDiscovery(context.Background(), kmcp.TransportStreamableHTTP, 1000, 1); err != nil {
			b.Fatal(err)
		}
	}
}
