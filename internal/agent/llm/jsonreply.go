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

	openai "github.com/sashabaranov/go-openai"
)

// JSONReply sends one exchange whose caller parses the reply itself (the knowledge
// reranker orders passages with it): the system instructions and the user message,
// redacted, the reply bounded to maxTokens and asked for as a JSON object where the
// endpoint accepts a response format. It goes through the brain's endpoint like every
// other call — retries, circuit breaker, egress guard, the provider's dialect — and its
// tokens count in the brain's usage. A reply cut at the bound is an error. It never
// degrades the brain: the caller has its own fallback.
func (b *LLMBrain) JSONReply(ctx context.Context, system, user string, maxTokens int) (string, error) {
	var rf *openai.ChatCompletionResponseFormat
	if f, _ := b.ep.format.Load().(ResponseFormat); f != FormatPrompt {
		rf = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: system},
		{Role: openai.ChatMessageRoleUser, Content: user},
	}
	ch, err := b.chatBounded(ctx, msgs, nil, rf, maxTokens)
	if err != nil {
		return "", err
	}
	if ch.FinishReason == openai.FinishReasonLength {
		return "", errTruncated
	}
	return ch.Message.Content, nil
}
