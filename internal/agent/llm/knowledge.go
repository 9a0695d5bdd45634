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
	"strings"

	"github.com/kubage/kubage/internal/text"
)

// Snippet is one knowledge passage with its citation.
type Snippet struct {
	// Citation identifies the passage, e.g. "runbooks:crashloop.md#oom"; the model cites it.
	Citation string `json:"citation"`
	Title    string `json:"title,omitempty"`
	Text     string `json:"text"`
}

// Knowledge searches the session's knowledge sources.
type Knowledge interface {
	Search(ctx context.Context, query string) ([]Snippet, error)
}

// KnowledgeFunc adapts a function to Knowledge.
type KnowledgeFunc func(ctx context.Context, query string) ([]Snippet, error)

// Search implements Knowledge.
func (f KnowledgeFunc) Search(ctx context.Context, query string) ([]Snippet, error) {
	return f(ctx, query)
}

// Bounds of knowledge in prompts.
const (
	maxSnippets     = 3
	maxSnippetBytes = 800
)

// searchKnowledge runs a bounded, cached knowledge search; failures leave it empty.
func (b *LLMBrain) searchKnowledge(ctx context.Context, query string) []Snippet {
	if b.knowledge == nil || strings.TrimSpace(query) == "" {
		return nil
	}
	query = text.ClipMarked(query, 1000)
	b.kmu.Lock()
	if s, ok := b.kcache[query]; ok {
		b.kmu.Unlock()
		return s
	}
	b.kmu.Unlock()
	snips, err := b.knowledge.Search(ctx, query)
	if err != nil {
		return nil
	}
	if len(snips) > maxSnippets {
		snips = snips[:maxSnippets]
	}
	for i := range snips {
		snips[i].Text = text.ClipMarked(snips[i].Text, maxSnippetBytes)
		snips[i].Citation = oneLine(snips[i].Citation, 300)
	}
	b.kmu.Lock()
	if len(b.kcache) < 32 {
		b.kcache[query] = snips
	}
	b.kmu.Unlock()
	return snips
}
