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

package e2e

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubage/kubage/test/scenarios"
)

// The rule engine against real failures: every scenario of test/scenarios is deployed up
// front in its own namespace (through the real controllers and scheduler, kwok playing the
// kubelets), each spec waits for its failure to show and runs a rule-engine session scoped to
// that namespace, and the closing table lists what the engine concluded.
var _ = Describe("Rule engine scenarios", Ordered, ContinueOnFailure, Label("scenarios"), func() {
	var (
		// engine is the rule engine's own client, unthrottled like a manager's, so the table's
		// durations do not include waiting behind the scenarios' polling.
		engine   kubernetes.Interface
		deployed = map[string]*scenarios.Deployed{}
		mu       sync.Mutex
		results  []scenarios.Result
	)
	list := scenarios.All()
	// KUBAGE_SCENARIOS=a,b runs only those scenarios (while working on one).
	if names := os.Getenv("KUBAGE_SCENARIOS"); names != "" {
		var err error
		list, err = scenarios.Named(strings.Split(names, ",")...)
		if err != nil {
			panic(err)
		}
	}
	// Slow failures (CronJob schedules) last, so their wait overlaps the other specs.
	sort.SliceStable(list, func(i, j int) bool { return !list[i].Slow && list[j].Slow })

	BeforeAll(func(ctx SpecContext) {
		cfg := rest.CopyConfig(cluster.RESTConfig)
		cfg.QPS = -1
		var err error
		engine, err = kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		start := time.Now()
		ds := scenarios.DeployAll(ctx, clients, list, 150*time.Second)
		for _, d := range ds {
			deployed[d.Name] = d
		}
		GinkgoWriter.Printf("deployed %d scenarios in %s\n", len(ds), time.Since(start).Round(time.Millisecond))
		DeferCleanup(func(ctx SpecContext) {
			Expect(scenarios.CleanupAll(ctx, ds)).To(Succeed())
		}, NodeTimeout(time.Minute))
	}, NodeTimeout(2*time.Minute))

	AfterAll(func() {
		mu.Lock()
		defer mu.Unlock()
		table := scenarios.Table(results)
		AddReportEntry("rule engine scenario table", table, ReportEntryVisibilityAlways)
		GinkgoWriter.Println(table)
	})

	for _, s := range list {
		It(s.Name+": "+s.Covers, func(ctx SpecContext) {
			d := deployed[s.Name]
			Expect(d).NotTo(BeNil())
			Eventually(d.Done()).WithContext(ctx).WithTimeout(160 * time.Second).Should(BeClosed())
			Expect(d.Err()).NotTo(HaveOccurred())
			GinkgoWriter.Printf("%s: failure visible %s after deployment\n", s.Name, d.ReadyAfter().Round(time.Millisecond))

			res, err := scenarios.RunWith(ctx, s, d.Env, engine)
			mu.Lock()
			results = append(results, res)
			mu.Unlock()
			Expect(err).NotTo(HaveOccurred())
			GinkgoWriter.Printf("%s: %s (%d%%) on %s: %s\n", s.Name, res.Rule, res.Confidence, res.Culprit, res.Summary)
			if !res.OK() {
				trace, _ := json.MarshalIndent(res.Trace, "", "  ")
				GinkgoWriter.Printf("conclusion: %+v\ntrace: %s\n", res.Conclusion.RootCause, trace)
			}
			Expect(res.Mismatch).To(BeEmpty(), "%s concluded %s %s on %s: %s", s.Name, res.Category, res.Rule, res.Culprit, res.Summary)
		}, SpecTimeout(3*time.Minute))
	}
})
