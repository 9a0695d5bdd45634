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
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/text"
	"github.com/kubage/kubage/internal/tools"
)

// maxParallelTools bounds the tool calls of one model turn that run at once.
const maxParallelTools = 4

// Investigate implements agent.Investigator. Analyze tasks go to the fallback (the rule
// engine); ToolCall and Knowledge tasks run without the model; Investigate tasks run a
// bounded tool-calling loop. Like the rule engine it depends only on the session, the
// task and the cluster, so it can run in a Job.
func (b *LLMBrain) Investigate(ctx context.Context, s agent.Session, t agent.Task) (agent.TaskResult, error) {
	switch t.Type {
	case agent.TaskAnalyze, "":
		if b.fallback == nil {
			return agent.TaskResult{TaskID: t.ID}, errors.New("analyze tasks need the rule engine, and no fallback brain is configured")
		}
		return b.fallback.Investigate(ctx, s, t)
	case agent.TaskToolCall:
		return b.toolTask(ctx, t)
	case agent.TaskKnowledge:
		return b.knowledgeTask(ctx, t)
	case agent.TaskInvestigate:
		return b.agentTask(ctx, s, t)
	}
	return agent.TaskResult{TaskID: t.ID}, fmt.Errorf("unknown task type %q", text.ClipMarked(string(t.Type), 40))
}

// toolTask runs one planned tool call.
func (b *LLMBrain) toolTask(ctx context.Context, t agent.Task) (agent.TaskResult, error) {
	res := agent.TaskResult{TaskID: t.ID}
	args := map[string]string{}
	for k, v := range t.Args {
		if k != "hop" {
			args[k] = v
		}
	}
	raw, err := b.gate.argsFromStrings(t.Tool, args)
	if err != nil {
		b.led.add(Usage{RefusedToolCalls: 1})
		res.ToolCalls = append(res.ToolCalls, agent.ToolCall{Tool: text.ClipMarked(t.Tool, 128), Error: text.ClipMarked("refused: "+err.Error(), 200)})
		res.Summary = "tool call refused: " + text.ClipMarked(err.Error(), 300)
		return res, err
	}
	ev, msg, tc := b.runTool(ctx, t, 1, t.Tool, raw)
	res.ToolCalls = append(res.ToolCalls, tc)
	if ev == nil {
		res.Summary = text.ClipMarked(msg, 300)
		return res, errors.New(tc.Error)
	}
	res.Evidence = append(res.Evidence, *ev)
	res.Summary = ev.Summary
	return res, nil
}

// knowledgeTask searches the knowledge sources, or calls a knowledge_search tool.
func (b *LLMBrain) knowledgeTask(ctx context.Context, t agent.Task) (agent.TaskResult, error) {
	res := agent.TaskResult{TaskID: t.ID}
	query := t.Description
	if q := t.Args["query"]; q != "" {
		query = q
	}
	if b.knowledge == nil {
		if _, ok := b.gate.byName["knowledge_search"]; ok {
			raw, _ := json.Marshal(map[string]string{"query": text.ClipMarked(query, 1000)})
			ev, msg, tc := b.runTool(ctx, t, 1, "knowledge_search", raw)
			res.ToolCalls = append(res.ToolCalls, tc)
			if ev == nil {
				res.Summary = text.ClipMarked(msg, 300)
				return res, errors.New(tc.Error)
			}
			ev.Source.Kind = agent.SourceKnowledge
			res.Evidence = append(res.Evidence, *ev)
			res.Summary = ev.Summary
			return res, nil
		}
		res.Summary = "no knowledge sources configured"
		return res, errors.New("no knowledge sources configured for this session")
	}
	snips := b.searchKnowledge(ctx, query)
	res.ToolCalls = append(res.ToolCalls, agent.ToolCall{Tool: "knowledge", Args: text.ClipMarked(b.red.Redact(query), 200)})
	for i, sn := range snips {
		res.Evidence = append(res.Evidence, agent.Evidence{
			ID: fmt.Sprintf("%s-k%d", strings.ToLower(t.ID), i+1), Summary: oneLine(firstNonEmpty(sn.Title, sn.Citation), agent.MaxEvidenceSummary),
			Source: agent.Source{Kind: agent.SourceKnowledge, Tool: "knowledge", Query: sn.Citation},
			Data:   text.ClipMarked(b.red.Redact(sn.Text), agent.MaxEvidenceData), TaskID: t.ID,
		})
	}
	res.Summary = fmt.Sprintf("%d knowledge passage(s) for %q", len(snips), oneLine(query, 120))
	return res, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// runTool calls a checked tool and turns its output into evidence; on failure it
// returns no evidence and the message for the model.
func (b *LLMBrain) runTool(ctx context.Context, t agent.Task, n int, name string, args json.RawMessage) (*agent.Evidence, string, agent.ToolCall) {
	redArgs := b.red.Redact(string(args))
	tc := agent.ToolCall{Tool: text.ClipMarked(name, 128), Args: text.ClipMarked(redArgs, 200)}
	if err := b.gate.check(name, args); err != nil {
		b.led.add(Usage{RefusedToolCalls: 1})
		tc.Error = text.ClipMarked("refused: "+err.Error(), 200)
		return nil, "error: " + err.Error(), tc
	}
	b.led.add(Usage{ToolCalls: 1})
	out, err := b.gate.call(ctx, name, args)
	if err != nil {
		tc.Error = text.ClipMarked(b.red.Redact(err.Error()), 200)
		return nil, "error: the tool failed: " + b.red.Redact(text.ClipMarked(err.Error(), 1000)), tc
	}
	output := b.red.Redact(tools.Sanitize(out.Text, MaxToolOutputBytes*4, false))
	output = truncate(output, MaxToolOutputBytes)
	if out.IsError {
		tc.Error = text.ClipMarked(oneLine(output, 200), 200)
	}
	id := fmt.Sprintf("%s-e%d", strings.ToLower(t.ID), n)
	first := strings.TrimSpace(output)
	if i := strings.IndexByte(first, '\n'); i > 0 {
		first = first[:i]
	}
	kind := agent.SourceQuery
	if spec := b.gate.byName[name]; spec.Server != "" {
		kind = agent.SourceToolServer
	}
	ev := &agent.Evidence{
		ID: id, Summary: oneLine(name+": "+first, agent.MaxEvidenceSummary),
		Source: agent.Source{Kind: kind, Tool: name, Query: text.ClipMarked(redArgs, 200)},
		Data:   truncate(output, agent.MaxEvidenceData), TaskID: t.ID,
	}
	return ev, output, tc
}

// agentTask is the sub-task agent: a tool-calling loop bounded by MaxSteps model calls
// and MaxToolCallsPerTask tool calls.
func (b *LLMBrain) agentTask(ctx context.Context, s agent.Session, t agent.Task) (agent.TaskResult, error) {
	res := agent.TaskResult{TaskID: t.ID}
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: systemPrompt(b.cfg.Mode, roleInvestigator)},
		{Role: openai.ChatMessageRoleUser, Content: b.taskPrompt(s, t)},
	}
	offered := openAITools(b.gate.specs())
	used, evN := 0, 0
	warned := false
	for step := 0; step < b.cfg.MaxSteps; step++ {
		offer := offered
		if used >= b.cfg.MaxToolCallsPerTask || step == b.cfg.MaxSteps-1 {
			offer = nil
			if !warned {
				msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser,
					Content: "The tool budget of this task is used. Answer now with what the evidence shows, citing evidence ids."})
				warned = true
			}
		}
		compactToolMessages(msgs, offer, b.promptBudget())
		ch, err := b.chat(ctx, msgs, offer, nil)
		if err != nil {
			derr := b.degrade("Investigate", err)
			res.Summary = fmt.Sprintf("the model became unavailable after %d tool call(s): %s", used, text.ClipMarked(err.Error(), 200))
			return res, derr
		}
		if len(ch.Message.ToolCalls) == 0 {
			answer := strings.TrimSpace(b.red.Redact(ch.Message.Content))
			if ch.FinishReason == openai.FinishReasonLength {
				answer += " " + TruncationMarker + ": the answer hit the output token limit]"
			}
			if answer == "" {
				answer = fmt.Sprintf("no answer from the model; %d tool result(s) gathered", len(res.Evidence))
			}
			res.Summary = text.ClipMarked(answer, 500)
			return res, nil
		}
		calls := ch.Message.ToolCalls
		for i := range calls {
			if calls[i].ID == "" {
				calls[i].ID = fmt.Sprintf("call_%d_%d", step+1, i+1)
			}
			calls[i].Type = openai.ToolTypeFunction
		}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: ch.Message.Content, ToolCalls: calls})
		replies := make([]string, len(calls))
		evs := make([]*agent.Evidence, len(calls))
		tcs := make([]agent.ToolCall, len(calls))
		var wg sync.WaitGroup
		sem := make(chan struct{}, maxParallelTools)
		for i, c := range calls {
			name, args := c.Function.Name, rawArgs(c.Function.Arguments)
			if offer == nil || used >= b.cfg.MaxToolCallsPerTask {
				replies[i] = "refused: the tool budget of this task is used; answer with what you have"
				tcs[i] = agent.ToolCall{Tool: text.ClipMarked(name, 128), Error: "refused: task tool budget used"}
				b.led.add(Usage{RefusedToolCalls: 1})
				continue
			}
			if err := b.gate.check(name, args); err != nil {
				// Refused without a call; the model hears why and may correct itself.
				replies[i] = "error: " + err.Error()
				tcs[i] = agent.ToolCall{Tool: text.ClipMarked(name, 128), Args: text.ClipMarked(b.red.Redact(string(args)), 200), Error: text.ClipMarked("refused: "+err.Error(), 200)}
				b.led.add(Usage{RefusedToolCalls: 1})
				continue
			}
			used++
			evN++
			n := evN
			wg.Add(1)
			go func(i int, name string, args json.RawMessage) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				ev, text, tc := b.runTool(ctx, t, n, name, args)
				evs[i], tcs[i] = ev, tc
				if ev == nil {
					replies[i] = text
					return
				}
				replies[i] = dataBlock("tool "+name, ev.ID, text) + "\n(evidence id: " + ev.ID + ")"
			}(i, name, args)
		}
		wg.Wait()
		for i, c := range calls {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID, Name: c.Function.Name, Content: replies[i]})
			res.ToolCalls = append(res.ToolCalls, tcs[i])
			if evs[i] != nil {
				res.Evidence = append(res.Evidence, *evs[i])
			}
		}
	}
	res.Summary = fmt.Sprintf("stopped after %d model turns without a final answer; %d tool result(s) gathered", b.cfg.MaxSteps, len(res.Evidence))
	return res, nil
}

func (b *LLMBrain) taskPrompt(s agent.Session, t agent.Task) string {
	var u strings.Builder
	u.WriteString(sessionText(s))
	u.WriteString("\nYour task (" + t.ID + "):\n")
	u.WriteString(dataBlock("task", t.ID, t.Description))
	fmt.Fprintf(&u, "\n\nYou may make at most %d tool calls. Every tool result comes in a data block with an evidence id; cite those ids in your answer.", b.cfg.MaxToolCallsPerTask)
	return u.String()
}

// openAITools renders tool specs for a request.
func openAITools(specs []ToolSpec) []openai.Tool {
	out := make([]openai.Tool, 0, len(specs))
	for _, t := range specs {
		params := t.InputSchema
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		desc := t.Description
		if t.Category != "" {
			desc = "[" + t.Category + "] " + desc
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: text.ClipMarked(desc, 1000), Parameters: params,
		}})
	}
	return out
}

// compactToolMessages shortens the oldest tool results first until the conversation
// fits; the full text stays in the evidence the results name.
func compactToolMessages(msgs []openai.ChatCompletionMessage, tools []openai.Tool, budget int) {
	for i := range msgs {
		if messageTokens(msgs, tools) <= budget {
			return
		}
		if msgs[i].Role != openai.ChatMessageRoleTool || len(msgs[i].Content) <= 700 {
			continue
		}
		msgs[i].Content = truncate(msgs[i].Content, 600) + "\n(shortened to fit the context window; the evidence id above holds the full result)"
	}
}
