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
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/text"
)

// Plan implements agent.Planner. The rule engine's tasks (its first analysis, or the
// leads the regulator chose) always run; the model adds tasks the rules cannot do.
// On a re-plan without next steps for the model, no model call is made.
func (b *LLMBrain) Plan(ctx context.Context, s agent.Session, p agent.Progress) ([]agent.Task, error) {
	iter := max(p.Iteration, 1)
	var ruleTasks, steps []agent.Task
	replan := p.Verdict != nil && p.Verdict.Decision == agent.Replan
	if replan {
		for _, t := range p.Verdict.Next {
			if t.Type == agent.TaskAnalyze || t.Type == "" {
				ruleTasks = append(ruleTasks, t)
			} else {
				steps = append(steps, t)
			}
		}
	} else if b.fallback != nil {
		ts, err := b.fallback.Plan(ctx, s, p)
		if err != nil {
			return nil, err
		}
		ruleTasks = ts
	}
	for i := range ruleTasks {
		ruleTasks[i].ID = taskID(iter, i+1)
	}
	if replan && len(steps) == 0 {
		return ruleTasks, nil
	}
	var out planOut
	ruleIDs := map[string]bool{}
	for _, t := range ruleTasks {
		ruleIDs[t.ID] = true
	}
	user := b.planPrompt(ctx, s, p, ruleTasks, steps)
	err := b.structured(ctx, b.plan, systemPrompt(b.cfg.Mode, rolePlanner), user, &out, func() error { return b.checkPlan(&out, ruleIDs) })
	if err != nil {
		derr := b.degrade("Plan", err)
		if r := reasonOf(err); r == ReasonInvalidOutput || r == ReasonTruncated {
			// The model answers but cannot plan: its sub-agents may still investigate.
			off := len(ruleTasks)
			for i, t := range steps {
				t.ID = taskID(iter, off+i+1)
				ruleTasks = append(ruleTasks, t)
			}
		}
		if b.fallback == nil && len(ruleTasks) == 0 {
			return nil, noFallback("Plan", derr)
		}
		return ruleTasks, nil
	}
	return append(ruleTasks, b.planTasks(iter, len(ruleTasks), out.Tasks)...), nil
}

func (b *LLMBrain) planPrompt(ctx context.Context, s agent.Session, p agent.Progress, ruleTasks, steps []agent.Task) string {
	var u strings.Builder
	u.WriteString(sessionText(s))
	fmt.Fprintf(&u, "Iteration: %d\n\n", max(p.Iteration, 1))
	u.WriteString("Rule-engine tasks already running this round (you may depend on their ids):\n")
	if len(ruleTasks) == 0 {
		u.WriteString("(none)\n")
	}
	for _, t := range ruleTasks {
		fmt.Fprintf(&u, "- %s: %s\n", t.ID, oneLine(t.Description, 300))
	}
	u.WriteString("\nFindings so far:\n" + findingsText(p.Results, 20) + "\n\n")
	u.WriteString("Task results so far:\n" + resultsText(p.Results, 20) + "\n\n")
	if p.Verdict != nil && p.Verdict.Feedback != "" {
		u.WriteString("Regulator feedback:\n" + dataBlock("regulator", "", p.Verdict.Feedback) + "\n\n")
	}
	if len(steps) > 0 {
		u.WriteString("The regulator asks for these next steps; turn them into tasks:\n")
		for _, t := range steps {
			u.WriteString("- " + oneLine(t.Description, 300) + "\n")
		}
		u.WriteString("\n")
	}
	u.WriteString("Tools (for ToolCall tasks and for Investigate sub-agents):\n" + toolCatalog(b.gate.specs()) + "\n\n")
	u.WriteString("Knowledge:\n" + knowledgeText(b.searchKnowledge(ctx, s.Problem)) + "\n\n")
	fmt.Fprintf(&u, "Propose at most %d tasks. Use ToolCall with exact argument names for a single lookup, Investigate for an open question that needs several tool calls, Knowledge for a runbook search. A task may depend on rule-engine task ids or earlier task ids.", b.cfg.MaxPlanTasks)
	return u.String()
}

// checkPlan validates the model's tasks: unique ids, dependencies on known earlier
// tasks only (so no cycles), tools that exist, arguments that fit their schema.
func (b *LLMBrain) checkPlan(out *planOut, ruleIDs map[string]bool) error {
	var errs []string
	seen := map[string]bool{}
	for i, t := range out.Tasks {
		at := fmt.Sprintf("tasks[%d]", i)
		if seen[t.ID] || ruleIDs[t.ID] {
			errs = append(errs, fmt.Sprintf("%s.id %q is used twice", at, t.ID))
		}
		for _, d := range t.DependsOn {
			if !seen[d] && !ruleIDs[d] {
				errs = append(errs, fmt.Sprintf("%s.dependsOn %q is not a rule-engine task or an earlier task", at, text.ClipMarked(d, 40)))
			}
		}
		seen[t.ID] = true
		if t.Type == planToolCall {
			if _, err := b.gate.argsFromStrings(t.Tool, planArgs(t.Args)); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", at, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func planArgs(args []planArg) map[string]string {
	m := make(map[string]string, len(args))
	for _, a := range args {
		m[a.Name] = a.Value
	}
	return m
}

func (b *LLMBrain) planTasks(iter, offset int, in []planTask) []agent.Task {
	ids := map[string]string{}
	out := make([]agent.Task, 0, len(in))
	for i, t := range in {
		id := taskID(iter, offset+i+1)
		ids[t.ID] = id
		task := agent.Task{ID: id, Type: agent.TaskType(t.Type), Description: oneLine(t.Description, 300)}
		if t.Type == planToolCall {
			task.Tool = t.Tool
			task.Args = planArgs(t.Args)
		}
		for _, d := range t.DependsOn {
			if nd, ok := ids[d]; ok {
				task.DependsOn = append(task.DependsOn, nd)
			} else {
				task.DependsOn = append(task.DependsOn, d) // a rule-engine task id
			}
		}
		out = append(out, task)
	}
	return out
}
