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
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/test/scenarios"
)

// The rule engine against real failures: every scenario of test/scenarios is deployed up
// front in its own namespace (through the real controllers and scheduler, kwok playing the
// kubelets); each spec waits for its failure to show and runs rule-engine sessions scoped to
// that namespace in three variants (targeted, target-less, logs unreachable).
//
//   - The original catalogue (scenarios with a Want.Rule) asserts its rule and culprit, targeted.
//   - Corpus scenarios of the tune split assert the corpus check (culprits in affectedObjects,
//     terms in the summary) targeted and target-less; a KnownMiss is reported and skipped.
//   - Held-out corpus scenarios are measured in one spec and reported only as counts, so
//     nobody tuning rules reads them from the output.
//
// The closing report prints the tune table and the accuracy per split × variant.
var _ = Describe("Rule engine scenarios", Ordered, ContinueOnFailure, Label("scenarios"), func() {
	var (
		// engine is the rule engine's own client, unthrottled like a manager's, so the table's
		// durations do not include waiting behind the scenarios' polling; noLogs is the same
		// with every container-log request refused.
		engine, noLogs kubernetes.Interface
		deployed       = map[string]*scenarios.Deployed{}
		mu             sync.Mutex
		results        []scenarios.Result
		knownMisses    []string
	)
	// KUBAGE_SCENARIOS=a,b runs only those scenarios (while working on one); KUBAGE_SCENARIOS=@file
	// reads the names from a file, keeping them off the process list.
	list, err := scenarios.Selected(os.Getenv("KUBAGE_SCENARIOS"))
	if err != nil {
		panic(err)
	}
	// Slow failures (node heartbeats, CronJob schedules) last, so their wait overlaps the other specs.
	sort.SliceStable(list, func(i, j int) bool { return !list[i].Slow && list[j].Slow })
	var asserted, heldOut []*scenarios.Scenario
	for _, s := range list {
		if s.Want.Rule == "" && s.Split() == scenarios.HeldOut {
			heldOut = append(heldOut, s)
		} else {
			asserted = append(asserted, s)
		}
	}

	clientFor := func(v scenarios.Variant) kubernetes.Interface {
		if v == scenarios.NoLogs {
			return noLogs
		}
		return engine
	}
	// runAll runs every variant of s and records the results.
	runAll := func(ctx SpecContext, s *scenarios.Scenario, d *scenarios.Deployed) map[scenarios.Variant]scenarios.Result {
		out := map[scenarios.Variant]scenarios.Result{}
		for _, v := range s.Variants() {
			res, err := scenarios.RunVariant(ctx, s, d.Env, clientFor(v), v)
			Expect(err).NotTo(HaveOccurred(), "%s (%s)", s.Name, v)
			out[v] = res
			mu.Lock()
			results = append(results, res)
			mu.Unlock()
		}
		return out
	}
	awaitFailure := func(ctx SpecContext, s *scenarios.Scenario) *scenarios.Deployed {
		d := deployed[s.Name]
		Expect(d).NotTo(BeNil())
		Eventually(d.Done()).WithContext(ctx).WithTimeout(scenarios.FailureTimeout + 10*time.Second).Should(BeClosed())
		Expect(d.Err()).NotTo(HaveOccurred())
		return d
	}

	BeforeAll(func(ctx SpecContext) {
		cfg := rest.CopyConfig(cluster.RESTConfig)
		cfg.QPS = -1
		var err error
		engine, err = kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		noLogs, err = kubernetes.NewForConfig(scenarios.NoLogsConfig(cfg))
		Expect(err).NotTo(HaveOccurred())
		start := time.Now()
		ds := scenarios.DeployAll(ctx, clients, list, scenarios.FailureTimeout)
		for _, d := range ds {
			deployed[d.Name] = d
		}
		GinkgoWriter.Printf("deployed %d scenarios in %s\n", len(ds), time.Since(start).Round(time.Millisecond))
		DeferCleanup(func(ctx SpecContext) {
			Expect(scenarios.CleanupAll(ctx, ds)).To(Succeed())
		}, NodeTimeout(2*time.Minute))
	}, NodeTimeout(3*time.Minute))

	AfterAll(func() {
		mu.Lock()
		defer mu.Unlock()
		var tune, corpus, held []scenarios.Result
		bad := map[string]bool{}
		for _, s := range list {
			bad[s.Name] = s.BadInput
		}
		for _, r := range results {
			if r.Split == scenarios.Tune {
				tune = append(tune, r)
			} else {
				held = append(held, r)
			}
			if !bad[r.Scenario] {
				corpus = append(corpus, r)
			}
		}
		table := scenarios.Table(tune)
		acc := scenarios.AccuracyTable(scenarios.Accuracy(corpus))
		classes := "held-out hits per class (counts only):\n" + scenarios.ClassTable(held) +
			"\nheld-out misses per kind (counts only):\n" + scenarios.MissKindTable(held) +
			"\ntune misses per kind:\n" + scenarios.MissKindTable(tune)
		known := fmt.Sprintf("known misses (tune split, reported not asserted): %d\n%s", len(knownMisses), strings.Join(knownMisses, "\n"))
		AddReportEntry("rule engine scenario table (tune split)", table, ReportEntryVisibilityAlways)
		AddReportEntry("rule engine accuracy per split and variant", acc+"\n"+classes+"\n"+known, ReportEntryVisibilityAlways)
		GinkgoWriter.Println(table)
		GinkgoWriter.Println(acc)
		GinkgoWriter.Println(classes)
		GinkgoWriter.Println(known)
	})

	for _, s := range asserted {
		It(s.Name+": "+s.Covers, func(ctx SpecContext) {
			d := awaitFailure(ctx, s)
			GinkgoWriter.Printf("%s: failure visible %s after deployment\n", s.Name, d.ReadyAfter().Round(time.Millisecond))
			rs := runAll(ctx, s, d)
			res := rs[scenarios.Targeted]
			GinkgoWriter.Printf("%s: %s (%d%%) on %s: %s\n", s.Name, res.Rule, res.Confidence, res.Culprit, res.Summary)
			if s.Want.Rule != "" {
				// The original catalogue: its rule and culprit, targeted, as it always asserted.
				if !res.OK() {
					trace, _ := json.MarshalIndent(res.Trace, "", "  ")
					GinkgoWriter.Printf("conclusion: %+v\ntrace: %s\n", res.Conclusion.RootCause, trace)
					if s.KnownMiss != "" {
						mu.Lock()
						knownMisses = append(knownMisses, fmt.Sprintf("- %s: %s", s.Name, s.KnownMiss))
						mu.Unlock()
						Skip(fmt.Sprintf("known miss: %s; %s", s.KnownMiss, res.Mismatch))
					}
				}
				Expect(res.Mismatch).To(BeEmpty(), "%s concluded %s %s on %s: %s", s.Name, res.Category, res.Rule, res.Culprit, res.Summary)
				return
			}
			// A tune-split corpus scenario: the corpus check, targeted and target-less.
			var misses []string
			for _, v := range []scenarios.Variant{scenarios.Targeted, scenarios.TargetLess} {
				if r := rs[v]; !r.Hit() {
					misses = append(misses, fmt.Sprintf("%s: %s (got %s on %s: %q)", v, r.Miss, r.Rule, r.Culprit, r.Summary))
					GinkgoWriter.Printf("%s %s trace:\n%s", s.Name, v, traceDigest(r.Trace))
				}
			}
			if r := rs[scenarios.NoLogs]; !r.Hit() {
				GinkgoWriter.Printf("%s: no-logs miss (reported): %s (got %s on %s: %q)\n", s.Name, r.Miss, r.Rule, r.Culprit, r.Summary)
			}
			if s.KnownMiss != "" {
				mu.Lock()
				knownMisses = append(knownMisses, fmt.Sprintf("- %s: %s", s.Name, s.KnownMiss))
				mu.Unlock()
				if len(misses) == 0 {
					GinkgoWriter.Printf("%s is marked KnownMiss (%s) but hits now: remove the mark\n", s.Name, s.KnownMiss)
					return
				}
				Skip(fmt.Sprintf("known miss: %s; %s", s.KnownMiss, strings.Join(misses, "; ")))
			}
			Expect(misses).To(BeEmpty(), "%s: the engine misses the corpus check", s.Name)
		}, SpecTimeout(scenarios.FailureTimeout+30*time.Second))
	}

	if len(heldOut) > 0 {
		It(fmt.Sprintf("held-out split: %d scenarios measured, not asserted", len(heldOut)), func(ctx SpecContext) {
			hits, runs, failed := 0, 0, 0
			for _, s := range heldOut {
				d := deployed[s.Name]
				Expect(d).NotTo(BeNil())
				select {
				case <-d.Done():
				case <-ctx.Done():
					Fail("timed out waiting for the held-out failures to show")
				}
				if d.Err() != nil {
					// A scenario whose failure never showed is a harness problem; name it.
					failed++
					GinkgoWriter.Printf("held-out scenario %s did not deploy: %v\n", s.Name, d.Err())
					continue
				}
				for _, r := range runAll(ctx, s, d) {
					runs++
					if r.Hit() {
						hits++
					}
				}
			}
			GinkgoWriter.Printf("held-out: %d of %d runs hit\n", hits, runs)
			Expect(failed).To(BeZero(), "held-out scenarios whose failure never showed")
		}, SpecTimeout(scenarios.FailureTimeout+3*time.Minute+heldOutRunBudget*time.Duration(3*len(heldOut))))
	}
})

// heldOutRunBudget is what one held-out session may take on a loaded 2-core machine: the
// held-out spec runs every held-out scenario's variants one after the other, so its timeout
// grows with the split (a fixed one cut the 207-scenario split short under load).
const heldOutRunBudget = time.Second

// traceDigest is a tune-split miss's session in a few lines per round: what each task looked
// at and what it found, so a miss can be read without rerunning it.
func traceDigest(tr agent.Trace) string {
	var b strings.Builder
	for _, it := range tr.Iterations {
		for i, r := range it.Results {
			desc := ""
			if i < len(it.Tasks) {
				desc = it.Tasks[i].Description
			}
			fmt.Fprintf(&b, "  round %d task %q: %d finding(s), examined %d, %s\n", it.Iteration, clip(desc, 120), len(r.Findings), len(r.Examined), clip(r.Summary, 160))
			for _, f := range r.Findings {
				fmt.Fprintf(&b, "    %s (%d) on %s/%s: %s\n", f.Rule, f.Confidence, f.Culprit.Kind, f.Culprit.Name, clip(f.Summary, 300))
			}
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
