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

package llmtest

import (
	"encoding/json"
	"regexp"
	"strings"
)

// DemoOptions tune DemoResponder.
type DemoOptions struct {
	// PlanInvestigation makes the first plan add one Investigate task (it needs a task
	// runner whose investigator is an LLMBrain); otherwise the model adds no tasks.
	PlanInvestigation bool
}

// The role lines of internal/agent/llm's system prompts (prompt.go). The demo responder
// recognises a prompt by them; internal/agent/llm's demo tests fail when they drift.
const (
	rolePlanner      = "Your role: planner."
	roleRegulator    = "Your role: regulator."
	roleSummarizer   = "Your role: summarizer."
	roleInvestigator = "Your role: investigator"
	planInvestigate  = "Investigate"
)

// DemoResponder answers the LLM brain's prompts well enough for demos, e2e tests and
// benchmarks without a model: it plans (optionally) one investigation, calls one tool
// and reports it, passes the evidence, and writes a conclusion from the rule engine's
// candidate in its own words. It knows the prompts' conventions (roles in the system
// prompt, the candidate data block); the brain's tests drive it, so drift shows there.
func DemoResponder(opts DemoOptions) Responder {
	return func(req Request) Reply {
		system := ""
		if len(req.Chat.Messages) > 0 {
			system = req.Chat.Messages[0].Content
		}
		user := firstUser(req)
		switch {
		case strings.Contains(system, rolePlanner):
			return JSON(demoPlan(user, opts))
		case strings.Contains(system, roleRegulator):
			return JSON(map[string]any{"decision": "pass", "feedback": "The evidence explains the symptom.", "nextSteps": []string{}})
		case strings.Contains(system, roleSummarizer):
			return JSON(demoConclusion(user))
		case strings.Contains(system, roleInvestigator):
			return demoInvestigate(req)
		}
		return Text("I can only answer KubAge prompts.")
	}
}

func firstUser(req Request) string {
	for _, m := range req.Chat.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

var ruleTaskRE = regexp.MustCompile(`(?m)^- (i\d+-t\d+): `)

func demoPlan(user string, opts DemoOptions) map[string]any {
	tasks := []any{}
	if opts.PlanInvestigation && strings.Contains(user, "Iteration: 1\n") {
		deps := []string{}
		if m := ruleTaskRE.FindStringSubmatch(user); m != nil {
			deps = append(deps, m[1])
		}
		tasks = append(tasks, map[string]any{"id": "events", "type": planInvestigate,
			"description": "Read the recent warning events of the namespace and say which object they implicate.",
			"tool":        "", "args": []any{}, "dependsOn": deps})
	}
	return map[string]any{"reasoning": "The rule-engine analysis covers the target; events may add context.", "tasks": tasks}
}

var candidateRE = regexp.MustCompile(`(?s)<data source="rule-engine" id="candidate">\n(.*?)\n</data>`)

func demoConclusion(user string) map[string]any {
	out := map[string]any{
		"summary": "The evidence does not show a root cause.", "category": "Unknown", "confidence": 0,
		"culprit": map[string]any{"kind": "", "name": ""}, "affectedObjects": []any{}, "evidenceIds": []string{},
		"knowledgeCitations": []string{}, "chain": []string{},
		"remediation": map[string]any{"actions": []any{}, "validationSteps": []string{}},
	}
	m := candidateRE.FindStringSubmatch(user)
	if m == nil {
		return out
	}
	var c struct {
		Summary     string            `json:"summary"`
		Category    string            `json:"category"`
		Confidence  int               `json:"confidence"`
		Culprit     map[string]string `json:"culprit"`
		EvidenceIDs []string          `json:"evidenceIds"`
		Chain       []string          `json:"chain"`
	}
	if json.Unmarshal([]byte(m[1]), &c) != nil || c.Category == "" {
		return out
	}
	if c.EvidenceIDs == nil {
		c.EvidenceIDs = []string{}
	}
	if c.Chain == nil {
		c.Chain = []string{}
	}
	if len(c.EvidenceIDs) > 20 {
		c.EvidenceIDs = c.EvidenceIDs[:20]
	}
	if len(c.Chain) > 8 {
		c.Chain = c.Chain[:8]
	}
	out["summary"] = clipRunes("Model assessment: "+c.Summary, 1000)
	out["category"] = c.Category
	out["confidence"] = min(max(c.Confidence, 0), 100)
	out["culprit"] = map[string]any{"kind": c.Culprit["kind"], "name": c.Culprit["name"]}
	out["evidenceIds"] = c.EvidenceIDs
	out["chain"] = c.Chain
	if c.Culprit["name"] != "" {
		out["remediation"] = map[string]any{
			"actions": []any{map[string]any{"description": "Inspect " + c.Culprit["kind"] + "/" + c.Culprit["name"] + " and correct what the evidence shows.",
				"command": "kubectl describe " + strings.ToLower(c.Culprit["kind"]) + " " + c.Culprit["name"], "risk": "Low"}},
			"validationSteps": []string{"The symptom no longer appears in the events."},
		}
	}
	return out
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

var evidenceIDRE = regexp.MustCompile(`\(evidence id: ([a-z0-9-]+)\)`)

func demoInvestigate(req Request) Reply {
	if req.ToolResults() == 0 && len(req.Chat.Tools) > 0 {
		for _, t := range req.Chat.Tools {
			if t.Function.Name == "k8s_events" {
				return Calls(CallTool("k8s_events", map[string]any{"warningsOnly": true}))
			}
		}
		return SchemaResponder(req)
	}
	var ids []string
	first := ""
	for _, m := range req.Chat.Messages {
		if m.Role != "tool" {
			continue
		}
		if sm := evidenceIDRE.FindStringSubmatch(m.Content); sm != nil {
			ids = append(ids, "["+sm[1]+"]")
		}
		if first == "" {
			lines := strings.Split(m.Content, "\n")
			if len(lines) > 1 {
				first = lines[1]
			}
		}
	}
	if len(ids) == 0 {
		return Text("No tool result was available.")
	}
	return Text("Observed: " + clipRunes(first, 300) + " " + strings.Join(ids, " "))
}
