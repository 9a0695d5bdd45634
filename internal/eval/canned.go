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

package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
)

// cannedTools serves a scenario's tools.
type cannedTools struct {
	tools []Tool
	used  map[string]*atomic.Int64
}

func (c *cannedTools) List() []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, len(c.tools))
	for _, t := range c.tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, llm.ToolSpec{Name: t.Name, Description: t.Description, Category: t.Category, Mutating: t.Mutating, InputSchema: schema})
	}
	return out
}

func (c *cannedTools) Call(_ context.Context, name string, args json.RawMessage) (llm.ToolOutput, error) {
	for _, t := range c.tools {
		if t.Name != name {
			continue
		}
		c.used[name].Add(1)
		var got map[string]any
		_ = json.Unmarshal(args, &got)
	responses:
		for _, r := range t.Responses {
			for k, v := range r.Args {
				if !strings.EqualFold(fmt.Sprint(got[k]), v) {
					continue responses
				}
			}
			return llm.ToolOutput{Text: r.Output}, nil
		}
		return llm.ToolOutput{Text: t.Output}, nil
	}
	return llm.ToolOutput{}, fmt.Errorf("unknown tool %q", name)
}

// cannedRules stands in for the rule engine: its first round reports the scenario's
// findings and evidence; its conclusion (used only when the model fails) is the top
// finding.
type cannedRules struct{ sc Scenario }

func (c *cannedRules) Plan(_ context.Context, _ agent.Session, p agent.Progress) ([]agent.Task, error) {
	if p.Iteration > 1 || (len(c.sc.Findings) == 0 && len(c.sc.Evidence) == 0) {
		return nil, nil
	}
	return []agent.Task{{ID: "i1-t1", Type: agent.TaskAnalyze, Tool: "scenario", Description: "rule-engine analysis of the target"}}, nil
}

func (c *cannedRules) Investigate(_ context.Context, _ agent.Session, t agent.Task) (agent.TaskResult, error) {
	res := agent.TaskResult{TaskID: t.ID, Findings: c.sc.Findings, Evidence: c.sc.Evidence, Summary: fmt.Sprintf("%d finding(s)", len(c.sc.Findings))}
	return res, nil
}

func (c *cannedRules) Judge(context.Context, agent.Session, agent.Progress) (agent.Verdict, error) {
	return agent.Verdict{Decision: agent.Conclude, Feedback: "no rule-engine leads"}, nil
}

func (c *cannedRules) Summarize(_ context.Context, s agent.Session, _ agent.Progress) (agent.Conclusion, error) {
	if len(c.sc.Findings) == 0 {
		return agent.Conclusion{RootCause: agent.RootCause{Summary: "no rule matched", Category: "Unknown"}}, nil
	}
	f := c.sc.Findings[0]
	cat := "Unknown"
	if r, ok := agent.Catalogue[f.Rule]; ok {
		cat = r.Category
	}
	return agent.Conclusion{RootCause: agent.RootCause{Summary: f.Summary, Category: cat, Rule: f.Rule, Confidence: f.Confidence,
		Culprit: f.Culprit, EvidenceIDs: f.Evidence}}, nil
}
