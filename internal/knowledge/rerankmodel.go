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
	"crypto/sha256"
	"encoding/hex"

	"github.com/kubage/kubage/internal/metrics"
	"github.com/kubage/kubage/internal/retrieval"
)

// RerankModel is the OpenAI-compatible chat model of a session, used to reorder the best
// knowledge candidates; the deterministic reranker stands whenever it fails.
type RerankModel struct {
	BaseURL, Model, APIKey string
}

// key identifies the model without carrying its key in clear.
func (m RerankModel) key() string {
	sum := sha256.Sum256([]byte(m.BaseURL + "\x00" + m.Model + "\x00" + m.APIKey))
	return hex.EncodeToString(sum[:16])
}

// maxRerankModels bounds the model rerankers kept (one per distinct model Secret).
const maxRerankModels = 32

// reranker returns the reranker of a query: the model reranker of its model over the
// Service's reranker, or the Service's reranker alone.
func (s *Service) reranker(m *RerankModel) (retrieval.Reranker, string) {
	if m == nil || m.BaseURL == "" || m.Model == "" {
		return s.opts.Reranker, ""
	}
	key := m.key()
	s.rerankMu.Lock()
	defer s.rerankMu.Unlock()
	if r, ok := s.rerank[key]; ok {
		return r, key
	}
	r, err := retrieval.NewModelReranker(retrieval.ModelRerankerConfig{BaseURL: m.BaseURL, Model: m.Model, APIKey: m.APIKey}, s.opts.Reranker)
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
	if s.rerank == nil || len(s.rerank) >= maxRerankModels {
		s.rerank = map[string]*retrieval.ModelReranker{}
	}
	s.rerank[key] = r
	return r, key
}
