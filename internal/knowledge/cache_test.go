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
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kubage/kubage/internal/metrics"
)

func TestIdenticalQueriesAreCachedUntilTheIndexOrTheClockMoves(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewService(Options{Now: func() time.Time { return now }, CacheEntries: 2})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "rb", TrustLevel: 3, Source: docs("crash.md", crashLoop)})
	hits := func() float64 { return testutil.ToFloat64(metrics.KnowledgeCacheLookupsTotal.WithLabelValues("hit")) }
	q := Query{Namespace: "ns", Text: "pod CrashLoopBackOff"}

	first, err := s.Search(ctx, q)
	if err != nil || len(first.Snippets) == 0 {
		t.Fatalf("search = %+v, %v", first, err)
	}
	before := hits()
	first.Snippets[0].Text = "edited by a caller"
	again, _ := s.Search(ctx, q)
	if hits() != before+1 {
		t.Fatal("an identical query within the TTL was not answered from the cache")
	}
	if again.Snippets[0].Text == "edited by a caller" {
		t.Fatal("a caller's edit of its answer reached the cache")
	}

	// A new document makes older answers stale at once.
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "rb", TrustLevel: 3, Source: docs("crash.md", crashLoop, "crash2.md", "# CrashLoopBackOff again\n\nPod CrashLoopBackOff notes.\n")})
	before = hits()
	if ans, _ := s.Search(ctx, q); hits() != before || len(ans.Snippets) < 2 {
		t.Fatalf("the answer after re-indexing came from the cache: %+v", ans)
	}
	// And so does the clock.
	_, _ = s.Search(ctx, q)
	now = now.Add(DefaultCacheTTL + time.Second)
	before = hits()
	if _, _ = s.Search(ctx, q); hits() != before {
		t.Fatal("an answer older than the TTL was served")
	}
	// The cache is bounded.
	for _, text := range []string{"disk", "node", "logs", "previous"} {
		_, _ = s.Search(ctx, Query{Namespace: "ns", Text: text})
	}
	if n := len(s.cache.entries); n > 2 {
		t.Fatalf("cache holds %d entries, bound 2", n)
	}
}

func TestSearchWithRerankModel(t *testing.T) {
	ctx := context.Background()
	s := NewService(Options{})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "rb", TrustLevel: 3, Source: docs("crash.md", crashLoop, "disk.md", diskFull)})
	var calls int
	reply, replyErr := `{"ranking":[1,0]}`, error(nil)
	model := &RerankModel{ID: "http://model.example/v1 m", Chat: func(_ context.Context, system, user string, maxTokens int) (string, error) {
		calls++
		if !strings.Contains(user, "node filesystem crash") && !strings.Contains(user, "filesystem crash on a node") {
			t.Errorf("the question did not reach the model: %q", user)
		}
		if maxTokens <= 0 || maxTokens > 1000 {
			t.Errorf("the model's reply is not bounded: %d tokens", maxTokens)
		}
		return reply, replyErr
	}}
	q := Query{Namespace: "ns", Text: "node filesystem crash", RerankModel: model}

	plain, err := s.Search(ctx, Query{Namespace: "ns", Text: q.Text})
	if err != nil || len(plain.Snippets) < 2 {
		t.Fatalf("search = %+v, %v", plain, err)
	}
	// The model puts the deterministic second first.
	got, err := s.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if got.Snippets[0].Citation.String() != plain.Snippets[1].Citation.String() {
		t.Fatalf("model order not applied: %v then %v", got.Snippets[0].Citation, got.Snippets[1].Citation)
	}
	if calls != 1 {
		t.Fatalf("%d model calls", calls)
	}
	// The same question with the same model is answered from the cache.
	if _, err := s.Search(ctx, q); err != nil || calls != 1 {
		t.Fatalf("cached answer: %d model calls, err %v", calls, err)
	}
	// A failing model leaves the deterministic order (a different query: no cache).
	fallbacks := testutil.ToFloat64(metrics.KnowledgeModelRerankTotal.WithLabelValues("fallback"))
	replyErr = errors.New("HTTP 429 after retries")
	q.Text = "filesystem crash on a node"
	got, err = s.Search(ctx, q)
	if err != nil || len(got.Snippets) == 0 {
		t.Fatalf("a failing rerank model failed the search: %v", err)
	}
	if testutil.ToFloat64(metrics.KnowledgeModelRerankTotal.WithLabelValues("fallback")) != fallbacks+1 {
		t.Error("the fallback was not counted")
	}
}
