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
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kubage/kubage/internal/egress"
	"github.com/kubage/kubage/internal/telemetry"
	"github.com/kubage/kubage/internal/text"
)

// promptMargin keeps room for the chat template and estimation error.
const promptMargin = 256

// promptBudget is how many tokens a prompt may use.
func (b *LLMBrain) promptBudget() int {
	return max(b.cfg.ContextTokens-b.cfg.MaxOutputTokens-promptMargin, 512)
}

// chat sends one request: everything redacted, fitted to the window, accounted for.
func (b *LLMBrain) chat(ctx context.Context, msgs []openai.ChatCompletionMessage, tools []openai.Tool, rf *openai.ChatCompletionResponseFormat) (openai.ChatCompletionChoice, error) {
	return b.chatBounded(ctx, msgs, tools, rf, 0)
}

// chatBounded is chat with the reply bounded to maxOut tokens when that is below the
// configured output bound (0: the configured bound).
func (b *LLMBrain) chatBounded(ctx context.Context, msgs []openai.ChatCompletionMessage, tools []openai.Tool, rf *openai.ChatCompletionResponseFormat, maxOut int) (openai.ChatCompletionChoice, error) {
	cfg := b.cfg
	if maxOut > 0 && maxOut < cfg.MaxOutputTokens {
		cfg.MaxOutputTokens = maxOut
	}
	sent := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		m.Content = b.red.Redact(m.Content)
		if len(m.ToolCalls) > 0 {
			calls := make([]openai.ToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				tc.Function.Arguments = b.red.Redact(tc.Function.Arguments)
				calls[j] = tc
			}
			m.ToolCalls = calls
		}
		sent[i] = m
	}
	tools = append([]openai.Tool(nil), tools...)
	for i, t := range tools {
		if t.Function != nil {
			f := *t.Function
			f.Description = b.red.Redact(f.Description)
			tools[i].Function = &f
		}
	}
	fitMessages(sent, tools, b.promptBudget())
	req := openai.ChatCompletionRequest{
		Model: b.cfg.Model, Messages: sent, Tools: tools, ResponseFormat: rf, ReasoningEffort: b.cfg.ReasoningEffort,
	}
	ctx, span := telemetry.Tracer().Start(ctx, "chat "+b.cfg.Model, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.system", string(b.cfg.Provider)),
			attribute.String("gen_ai.request.model", b.cfg.Model), attribute.Int("gen_ai.request.tools", len(tools))))
	defer span.End()
	before := b.ep.attempts.Load()
	start := time.Now()
	var resp openai.ChatCompletionResponse
	var err error
	// Another round each time a 400 names a request field this server's dialect refuses
	// (at most once per field: learn reports only what is new).
	for {
		b.ep.dialect(&req, cfg)
		resp, err = b.ep.client.CreateChatCompletion(ctx, req)
		if err == nil || !b.ep.learn(dialectRejected(err)) {
			break
		}
	}
	u := Usage{HTTPAttempts: b.ep.attempts.Load() - before, ModelTime: time.Since(start)}
	if u.HTTPAttempts > 0 {
		u.LLMCalls = 1
	}
	span.SetAttributes(attribute.Int64("kubage.http_attempts", u.HTTPAttempts))
	if err != nil {
		b.led.add(u)
		telemetry.Fail(span, err)
		return openai.ChatCompletionChoice{}, classify(err)
	}
	u.PromptTokens, u.CompletionTokens = int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens)
	if u.PromptTokens == 0 {
		u.PromptTokens = int64(messageTokens(sent, tools))
	}
	if len(resp.Choices) == 0 {
		b.led.add(u)
		return openai.ChatCompletionChoice{}, &callError{reason: ReasonInvalidOutput, err: errors.New("the model returned no choices")}
	}
	ch := resp.Choices[0]
	if u.CompletionTokens == 0 {
		n := ApproxTokens(ch.Message.Content)
		for _, tc := range ch.Message.ToolCalls {
			n += ApproxTokens(tc.Function.Name + tc.Function.Arguments)
		}
		u.CompletionTokens = int64(n)
	}
	span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", u.PromptTokens), attribute.Int64("gen_ai.usage.output_tokens", u.CompletionTokens),
		attribute.String("gen_ai.response.finish_reason", string(ch.FinishReason)))
	b.led.add(u)
	return ch, nil
}

// dialect sets the token limit and sampling fields the endpoint's dialect accepts.
func (e *endpoint) dialect(req *openai.ChatCompletionRequest, cfg Config) {
	req.MaxTokens, req.MaxCompletionTokens, req.Temperature = 0, 0, 0
	if e.completionTokens.Load() {
		req.MaxCompletionTokens = cfg.MaxOutputTokens
	} else {
		req.MaxTokens = cfg.MaxOutputTokens
	}
	if !e.noSampling.Load() {
		req.Temperature = temperature(*cfg.Temperature)
	}
	// GPT-6 Sol and Luna call tools over chat completions only without reasoning.
	if cfg.ReasoningEffort == "" && len(req.Tools) > 0 && (req.Model == openai.GPT6Sol || req.Model == openai.GPT6Luna) {
		req.ReasoningEffort = openai.ReasoningEffortNone
	}
}

// learn records a dialect fix; false when there was nothing new to learn.
func (e *endpoint) learn(fix dialectFix) bool {
	switch fix {
	case fixCompletionTokens:
		return e.completionTokens.CompareAndSwap(false, true)
	case fixNoSampling:
		return e.noSampling.CompareAndSwap(false, true)
	}
	return false
}

// temperature converts hundredths; go-openai omits a zero temperature (leaving the
// server default, often 1.0), so zero is sent as the smallest positive value.
func temperature(hundredths int) float32 {
	if hundredths <= 0 {
		return 1e-6
	}
	return float32(hundredths) / 100
}

// classify maps a client error to a degradation reason.
func classify(err error) error {
	switch {
	case errors.Is(err, ErrCircuitOpen):
		return &callError{reason: ReasonCircuitOpen, err: err}
	case egress.IsDenied(err):
		return &callError{reason: ReasonEgressDenied, err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &callError{reason: ReasonModelUnreachable, err: err}
	}
	status := httpStatus(err)
	if status >= 400 && status < 500 && status != http.StatusTooManyRequests && status != http.StatusRequestTimeout {
		return &callError{reason: ReasonModelRejected, err: err}
	}
	return &callError{reason: ReasonModelUnreachable, err: err}
}

func httpStatus(err error) int {
	var ae *openai.APIError
	if errors.As(err, &ae) {
		return ae.HTTPStatusCode
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	return 0
}

func errMessage(err error) string {
	var ae *openai.APIError
	if errors.As(err, &ae) {
		return ae.Message
	}
	return err.Error()
}

// formatRejected says whether a 400 is about the response_format (a server without
// structured outputs), so the next request can step down to a simpler format.
func formatRejected(err error) bool {
	if httpStatus(err) != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(errMessage(err))
	return strings.Contains(m, "response_format") || strings.Contains(m, "json_schema") || strings.Contains(m, "json schema") || strings.Contains(m, "structured")
}

// errTruncated marks a reply cut at the output token limit.
var errTruncated = errors.New("the reply was cut off at the output token limit")

// structured asks for one structured reply, validates it against its schema and with
// check, repairs once with the validation error, and otherwise fails with a callError.
func (b *LLMBrain) structured(ctx context.Context, o *outputSchema, system, user string, out any, check func() error) error {
	for stepDowns := 0; ; stepDowns++ {
		format := b.ep.format.Load().(ResponseFormat)
		err := b.structuredIn(ctx, o, format, system, user, out, check)
		if err == nil || !formatRejected(err) || stepDowns == 2 {
			return err
		}
		next := FormatPrompt
		if format == FormatJSONSchema {
			next = FormatJSONObject
		}
		if format == FormatPrompt {
			return err
		}
		b.ep.format.CompareAndSwap(format, next)
	}
}

func (b *LLMBrain) structuredIn(ctx context.Context, o *outputSchema, format ResponseFormat, system, user string, out any, check func() error) error {
	var rf *openai.ChatCompletionResponseFormat
	switch format {
	case FormatJSONSchema:
		rf = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: o.name, Schema: o.strict(), Strict: true}}
	case FormatJSONObject:
		rf = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: system + schemaInstruction(o, format)},
		{Role: openai.ChatMessageRoleUser, Content: user},
	}
	for round := 0; ; round++ {
		ch, err := b.chat(ctx, msgs, nil, rf)
		if err != nil {
			var ce *callError
			if errors.As(err, &ce) && ce.reason == ReasonModelRejected && formatRejected(ce.err) {
				return ce.err
			}
			return err
		}
		verr := validateReply(o, ch, out, check)
		if verr == nil {
			return nil
		}
		if round == 1 {
			reason := ReasonInvalidOutput
			if errors.Is(verr, errTruncated) {
				reason = ReasonTruncated
			}
			return &callError{reason: reason, err: fmt.Errorf("%s reply unusable after one repair: %w", o.name, verr)}
		}
		b.led.add(Usage{Repairs: 1})
		hint := "Reply again with only the corrected JSON object."
		if errors.Is(verr, errTruncated) {
			hint = "Reply again with a shorter JSON object: fewer items and shorter strings."
		}
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: text.ClipMarked(ch.Message.Content, 4000)},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "Your reply was rejected: " + text.ClipMarked(verr.Error(), 1000) + "\n" + hint})
	}
}

func validateReply(o *outputSchema, ch openai.ChatCompletionChoice, out any, check func() error) error {
	if ch.FinishReason == openai.FinishReasonLength {
		return errTruncated
	}
	if err := o.decode(ch.Message.Content, out); err != nil {
		return err
	}
	if check != nil {
		return check()
	}
	return nil
}

// rawArgs returns a tool call's arguments as JSON ("" becomes {}).
func rawArgs(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
}
