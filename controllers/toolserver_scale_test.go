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
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/test/fakes/mcpfake"
)

// rssMiB is the resident set of this process (the manager runs in it), from /proc.
func rssMiB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kb); err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

var _ = Describe("ToolServer at scale", func() {
	It("reconciles 100 ToolServers to Ready", func(ctx SpecContext) {
		const servers = 100
		ns := newNamespace(ctx, "tsv-scale")
		srv := startMCP(mcpfake.Options{GeneratedTools: 20})
		start := time.Now()
		for i := 0; i < servers; i++ {
			Expect(k8sClient.Create(ctx, newToolServer(ns, fmt.Sprintf("s%03d", i), srv.URL))).To(Succeed())
		}
		Eventually(func(g Gomega) {
			list := &kubagev1alpha1.ToolServerList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			ready := 0
			for _, ts := range list.Items {
				if meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.ReadyCondition) && ts.Status.ToolCount == 25 {
					ready++
				}
			}
			g.Expect(ready).To(Equal(servers))
		}, 60*time.Second, 100*time.Millisecond).Should(Succeed())
		elapsed := time.Since(start)
		figure := fmt.Sprintf("%d ToolServers (25 tools each) Ready in %s with 2 workers; test process (manager) RSS %.0f MiB",
			servers, elapsed.Round(time.Millisecond), rssMiB())
		AddReportEntry("toolserver-scale", figure)
		if os.Getenv("KUBAGE_BENCH") != "" {
			fmt.Println("BENCH", figure)
		}
		Expect(srv.Lists()).To(BeNumerically(">=", servers))
		Expect(k8sClient.DeleteAllOf(ctx, &kubagev1alpha1.ToolServer{}, client.InNamespace(ns))).To(Succeed())
	})
})
