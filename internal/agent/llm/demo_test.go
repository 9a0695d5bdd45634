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

package llm

import (
	"strings"
	"testing"

	"github.com/kubage/kubage/test/fakes/llmtest"
)

// The demo responder drives a whole session without degrading: the conclusion is the
// model's, in its own words, on the rule engine's candidate.
func TestDemoResponderSession(t *testing.T) {
	for _, investigate := range []bool{false, true} {
		e := newEnv(t)
		e.srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{PlanInvestigation: investigate}))
		c, tr := e.run()
		if !strings.HasPrefix(c.RootCause.Summary, "Model assessment: ") || c.RootCause.Category != "CrashLoopBackOff" || c.RootCause.Culprit.Name != "web" {
			t.Fatalf("conclusion %+v", c.RootCause)
		}
		if d := e.brain.Degradations(); len(d) != 0 {
			t.Fatalf("degraded: %+v", d)
		}
		if len(c.Remediation.Actions) != 1 || len(c.Evidence) == 0 {
			t.Fatalf("conclusion %+v", c)
		}
		if investigate {
			inv := tr.Iterations[0].Results[1]
			if len(inv.Evidence) != 1 || !strings.Contains(inv.Summary, "["+inv.Evidence[0].ID+"]") {
				t.Fatalf("investigation %+v", inv)
			}
		}
	}
}
