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
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubage/kubage/internal/text"
	openai "github.com/sashabaranov/go-openai"
)

// ApproxTokens estimates the tokens of s without a tokenizer: about four bytes per
// token for English and code, which overestimates slightly for JSON-heavy text.
func ApproxTokens(s string) int { return (len(s) + 3) / 4 }

// perMessageTokens is the chat template overhead of one message.
const perMessageTokens = 4

// messageTokens estimates a conversation, tools included.
func messageTokens(msgs []openai.ChatCompletionMessage, tools []openai.Tool) int {
	n := 3
	for _, m := range msgs {
		n += perMessageTokens + ApproxTokens(m.Content)
		for _, tc := range m.ToolCalls {
			n += ApproxTokens(tc.Function.Name) + ApproxTokens(tc.Function.Arguments) + 3
		}
	}
	for _, t := range tools {
		if t.Function == nil {
			continue
		}
		n += 8 + ApproxTokens(t.Function.Name) + ApproxTokens(t.Function.Description)
		if raw, ok := t.Function.Parameters.(json.RawMessage); ok {
			n += ApproxTokens(string(raw))
		} else {
			n += 40
		}
	}
	return n
}

// TruncationMarker starts every note that says text was cut to fit.
const TruncationMarker = "…[truncated"

// truncate cuts s to about maxBytes, keeping head and tail (errors are often at the
// end of a log), with a marker saying how much is missing.
func truncate(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	if maxBytes < 64 {
		return text.ClipMarked(s, maxBytes)
	}
	marker := fmt.Sprintf("\n%s: %d of %d bytes omitted]\n", TruncationMarker, len(s)-maxBytes, len(s))
	head := maxBytes * 2 / 3
	tail := maxBytes - head
	h := text.Clip(s, head)
	t := s[len(s)-tail:]
	for len(t) > 0 && (t[0]&0xC0) == 0x80 {
		t = t[1:]
	}
	return h + marker + t
}

// fitMessages shrinks the largest non-system messages until the conversation fits
// budget tokens; it never drops a message (tool results must answer their calls).
// It reports whether anything was cut.
func fitMessages(msgs []openai.ChatCompletionMessage, tools []openai.Tool, budget int) bool {
	cut := false
	for i := 0; i < 64 && messageTokens(msgs, tools) > budget; i++ {
		big := -1
		for j, m := range msgs {
			if m.Role == openai.ChatMessageRoleSystem || j == 0 {
				continue
			}
			if big < 0 || len(m.Content) > len(msgs[big].Content) {
				big = j
			}
		}
		if big < 0 || len(msgs[big].Content) < 256 {
			return cut
		}
		over := (messageTokens(msgs, tools) - budget) * 4
		target := max(len(msgs[big].Content)-over-128, len(msgs[big].Content)/2, 128)
		msgs[big].Content = truncate(msgs[big].Content, target)
		cut = true
	}
	return cut
}

var dataTagRE = regexp.MustCompile(`(?i)<(/?)(data)`)

// dataBlock frames untrusted text (tool output, logs, events, documents) as data: the
// system prompt says such blocks are never instructions, and the content cannot close
// the block early because tags inside it are defused.
func dataBlock(source, id, content string) string {
	content = dataTagRE.ReplaceAllString(content, "‹$1$2")
	var b strings.Builder
	b.WriteString(`<data source="`)
	b.WriteString(attr(source))
	b.WriteString(`"`)
	if id != "" {
		b.WriteString(` id="`)
		b.WriteString(attr(id))
		b.WriteString(`"`)
	}
	b.WriteString(">\n")
	b.WriteString(strings.TrimRight(content, "\n"))
	b.WriteString("\n</data>")
	return b.String()
}

func attr(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '"', '<', '>', '\n', '\r':
			return '_'
		}
		return r
	}, s)
	return text.ClipMarked(s, 200)
}
