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

package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/kubage/kubage/internal/metrics"
	"github.com/kubage/kubage/internal/retrieval"
)

// RerankModel is the chat model of a session, used to reorder the best knowledge
// candidates; the deterministic reranker stands whenever it fails. The session's brain
// provides Chat (its own model client), so the rerank shares the brain's retries,
// breaker, egress guard and dialect, and its tokens count in the session's usage.
type RerankModel struct {
	// ID names the model (endpoint and model name, no credentials); answers reranked by
	// different models are cached apart.
	ID string
	// Chat sends one exchange to the model (retrieval.ChatFunc); required.
	Chat func(ctx context.Context, system, user string, maxTokens int) (string, error)
}

// key identifies the model in the answer cache.
func (m RerankModel) key() string {
	sum := sha256.Sum256([]byte(m.ID))
	return hex.EncodeToString(sum[:16])
}

// reranker returns the reranker of a query: a model reranker over the session's model
// and the Service's reranker, or the Service's reranker alone. It is built per query:
// its model client belongs to the session that asks.
func (s *Service) reranker(m *RerankModel) (retrieval.Reranker, string) {
	if m == nil || m.Chat == nil {
		return s.opts.Reranker, ""
	}
	r, err := retrieval.NewModelReranker(retrieval.ModelRerankerConfig{Chat: m.Chat}, s.opts.Reranker)
	if err != nil {
		return s.opts.Reranker, ""
	}
	r.OnOutcome = func(reason string) {
		outcome := "model"
		if reason != "" {
			outcome = "fallback"
		}
		metrics.KnowledgeModelRerankTotal.WithLabelValues(outcome).Inc()
	}
	return r, m.key()
}
