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

package evalfixtures_test

import (
	"context"
	"testing"

	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/eval"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

// The recorded corpus scores offline: the rule engine from its recorded conclusions and the
// scripted stand-in model (the demo's) through the session engine, per class and split,
// with tokens and latency. No cluster: the fixtures are the cluster.
func TestCorpusScoresTheRuleEngineAndTheStandInModel(t *testing.T) {
	scs, err := eval.LoadScenarios("corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) < 100 {
		t.Fatalf("%d recorded fixtures; make eval-fixtures records one per corpus scenario (at least 100)", len(scs))
	}
	splits, classes := map[string]int{}, map[string]int{}
	for _, s := range scs {
		splits[s.Split]++
		classes[s.Class]++
		if s.RuleEngine == nil || len(s.Expect.Culprits) == 0 || len(s.Tools) == 0 {
			t.Fatalf("%s: a recorded fixture has the rule engine's conclusion, the culprits and the tools", s.Name)
		}
	}
	if splits["tune"] == 0 || splits["heldout"] == 0 || len(classes) < 5 {
		t.Fatalf("splits %v, classes %v", splits, classes)
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{PlanInvestigation: true}))
	rep, err := eval.RunEval(context.Background(), llm.Config{BaseURL: srv.BaseURL(), Model: "stand-in"}, scs, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != len(scs) || rep.PromptTokens == 0 || rep.CompletionTokens == 0 || rep.LatencyP50MS < 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Scenarios {
		if r.Error != "" || len(r.Degraded) > 0 {
			t.Fatalf("%s: the stand-in's session failed or degraded: %s %+v", r.Name, r.Error, r.Degraded)
		}
	}
	re := rep.RuleEngine
	if re == nil || re.Total != len(scs) || len(re.BySplit) != 2 || len(re.ByClass) != len(classes) {
		t.Fatalf("rule-engine baseline %+v", re)
	}
	if len(rep.BySplit) != 2 || len(rep.ByClass) != len(classes) {
		t.Fatalf("model tallies by split %v, by class %v", rep.BySplit, rep.ByClass)
	}
	t.Logf("%d fixtures: rule engine %d%% (tune %d%%, held-out %d%%); stand-in model %d%% (tune %d%%, held-out %d%%), %d prompt tokens, p50 %d ms",
		len(scs), re.PassRate, re.BySplit["tune"].PassRate, re.BySplit["heldout"].PassRate,
		rep.PassRate, rep.BySplit["tune"].PassRate, rep.BySplit["heldout"].PassRate, rep.PromptTokens, rep.LatencyP50MS)
	for c, tally := range rep.ByClass {
		t.Logf("class %-10s rule engine %3d%%  stand-in %3d%% of %d", c, re.ByClass[c].PassRate, tally.PassRate, tally.Total)
	}
}
