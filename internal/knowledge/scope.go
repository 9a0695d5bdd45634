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
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/retrieval"
)

// MaxScopes bounds the scopes of one query (the API allows as many).
const MaxScopes = 8

// Scope is one part of a session's knowledge (a Troubleshoot's spec.knowledge entry):
// the sources a selector picks, filtered by domain and trust, at most TopK snippets.
type Scope struct {
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	Domain   string                `json:"domain,omitempty"`
	TopK     int                   `json:"topK,omitempty"`
	MinTrust int                   `json:"minTrust,omitempty"`
}

// ScopesOf translates a Troubleshoot's spec.knowledge; nil when it has none.
func ScopesOf(spec []kubagev1alpha1.KnowledgeScope) []Scope {
	var out []Scope
	for i := range spec {
		sel := spec[i].Selector.DeepCopy()
		out = append(out, Scope{Selector: sel, Domain: spec[i].Domain, TopK: int(spec[i].TopK), MinTrust: int(spec[i].MinTrust)})
	}
	return out
}

// searchScopes runs q once per scope and interleaves the answers by rank: the best
// snippet of each scope first, then the second of each, and so on, each snippet once.
// Without its own K, the query returns what the scopes' TopK add up to (at most MaxK).
func (s *Service) searchScopes(ctx context.Context, q Query) (*Answer, error) {
	if len(q.Scopes) > MaxScopes {
		return nil, fmt.Errorf("%w: %d knowledge scopes, at most %d", ErrInvalidQuery, len(q.Scopes), MaxScopes)
	}
	total := 0
	answers := make([]*Answer, 0, len(q.Scopes))
	var failed []string
	for _, sc := range q.Scopes {
		sub := q
		sub.Scopes = nil
		sub.Selector, sub.Domain = sc.Selector, sc.Domain
		sub.MinTrust = max(q.MinTrust, sc.MinTrust)
		sub.K = sc.TopK
		if sub.K <= 0 {
			sub.K = DefaultK
		}
		if q.K > 0 {
			sub.K = min(sub.K, q.K)
		}
		total += sub.K
		ans, err := s.Search(ctx, sub)
		if err != nil {
			var se *StoreError
			if errors.As(err, &se) {
				failed = append(failed, err.Error())
				continue
			}
			return nil, err
		}
		answers = append(answers, ans)
	}
	if len(answers) == 0 && len(failed) > 0 {
		return nil, &StoreError{Err: errors.New(strings.Join(failed, "; "))}
	}
	k := min(total, MaxK)
	if q.K > 0 {
		k = min(q.K, MaxK)
	}
	out := &Answer{Snippets: []Snippet{}, Warnings: failed}
	seen := map[string]bool{}
	for rank := 0; len(out.Snippets) < k; rank++ {
		more := false
		for _, a := range answers {
			if rank >= len(a.Snippets) {
				continue
			}
			more = true
			sn := a.Snippets[rank]
			if id := sn.Citation.String(); !seen[id] && len(out.Snippets) < k {
				seen[id] = true
				out.Snippets = append(out.Snippets, sn)
			}
		}
		if !more {
			break
		}
	}
	related := map[string]bool{}
	for _, a := range answers {
		out.Sources += a.Sources
		out.Warnings = append(out.Warnings, a.Warnings...)
		for _, rp := range a.Related {
			id := rp.Citation.String()
			if len(out.Related) < retrieval.MaxRelated && !related[id] && !seen[id] {
				related[id] = true
				out.Related = append(out.Related, rp)
			}
		}
	}
	return out, nil
}
