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

package retrieval

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func modelRerankHits() []Hit {
	return []Hit{
		{Chunk: Chunk{ID: "a", Source: "s", Path: "a.md", DocTitle: "Pods", Text: "Pods restart when probes fail. password=hunter2-secret-value"}, Score: 0.9},
		{Chunk: Chunk{ID: "b", Source: "s", Path: "b.md", DocTitle: "Nodes", Text: "Nodes drain before maintenance. " + strings.Repeat("filler ", 400)}, Score: 0.8},
		{Chunk: Chunk{ID: "c", Source: "s", Path: "c.md", DocTitle: "Probes", Text: "A failing liveness probe restarts the container."}, Score: 0.7},
	}
}

// scriptedChat is a ChatFunc that answers with reply (or err) after delay, and records
// what it was asked.
type scriptedChat struct {
	reply string
	err   error
	delay time.Duration

	mu        sync.Mutex
	users     []string
	maxTokens []int
}

func (c *scriptedChat) chat(ctx context.Context, system, user string, maxTokens int) (string, error) {
	c.mu.Lock()
	c.users = append(c.users, system+"\n"+user)
	c.maxTokens = append(c.maxTokens, maxTokens)
	c.mu.Unlock()
	select {
	case <-time.After(c.delay):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return c.reply, c.err
}

func newTestModelReranker(t *testing.T, c *scriptedChat, timeout time.Duration) *ModelReranker {
	t.Helper()
	m, err := NewModelReranker(ModelRerankerConfig{Chat: c.chat, Timeout: timeout}, &DeterministicReranker{Blend: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestModelRerankerNeedsAChatFunction(t *testing.T) {
	if _, err := NewModelReranker(ModelRerankerConfig{}, nil); err == nil {
		t.Fatal("a model reranker without a chat function was built")
	}
}

func TestModelRerankerFollowsTheModel(t *testing.T) {
	c := &scriptedChat{reply: `{"ranking":[2,0]}`}
	m := newTestModelReranker(t, c, 0)
	out, err := m.Rerank(context.Background(), "why does my pod restart", modelRerankHits())
	if err != nil {
		t.Fatal(err)
	}
	base, _ := m.fallback.Rerank(context.Background(), "why does my pod restart", modelRerankHits())
	want := []string{base[2].Chunk.ID, base[0].Chunk.ID, base[1].Chunk.ID}
	if got := ids(out); !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v (the model's order, then what it left out)", got, want)
	}
	for i := 1; i < len(out); i++ {
		if out[i].Score > out[i-1].Score {
			t.Fatalf("scores do not follow the new order: %v", out)
		}
	}
	if len(c.users) != 1 || c.maxTokens[0] != DefaultModelRerankMaxTokens {
		t.Fatalf("%d calls, max tokens %v: want one call bounded to %d", len(c.users), c.maxTokens, DefaultModelRerankMaxTokens)
	}
	body := c.users[0]
	if strings.Contains(body, "hunter2-secret-value") {
		t.Error("a credential in a passage reached the model")
	}
	if n := strings.Count(body, "filler"); n > DefaultModelRerankPassageBytes/6 {
		t.Errorf("a long passage was sent whole (%d filler words)", n)
	}
	if calls, fb := m.Stats(); calls != 1 || fb != 0 {
		t.Errorf("stats = %d calls, %d fallbacks", calls, fb)
	}
}

func TestModelRerankerFallsBack(t *testing.T) {
	cases := []struct {
		name string
		chat *scriptedChat
		why  string
	}{
		{"prose instead of JSON", &scriptedChat{reply: "Passage 2 is best, then 0."}, "not the JSON"},
		{"malformed JSON", &scriptedChat{reply: `{"ranking":[1,`}, "not the JSON"},
		{"JSON with an unknown field", &scriptedChat{reply: `{"ranking":[1],"note":"x"}`}, "not the JSON"},
		{"passage out of range", &scriptedChat{reply: `{"ranking":[7,0]}`}, "passage 7"},
		{"passage twice", &scriptedChat{reply: `{"ranking":[1,1]}`}, "twice"},
		{"empty ranking", &scriptedChat{reply: `{"ranking":[]}`}, "no ranking"},
		{"text after the JSON", &scriptedChat{reply: `{"ranking":[1]} and more`}, "after its JSON"},
		{"the model client failed", &scriptedChat{err: errors.New("HTTP 429 after retries")}, "HTTP 429"},
		{"timeout", &scriptedChat{delay: 2 * time.Second, reply: `{"ranking":[2]}`}, "did not answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModelReranker(t, c.chat, 200*time.Millisecond)
			var reason string
			m.OnOutcome = func(r string) { reason = r }
			start := time.Now()
			out, err := m.Rerank(context.Background(), "why does my pod restart", modelRerankHits())
			if err != nil {
				t.Fatalf("a model failure must not fail the search: %v", err)
			}
			if time.Since(start) > time.Second {
				t.Errorf("fallback took %v", time.Since(start))
			}
			base, _ := m.fallback.Rerank(context.Background(), "why does my pod restart", modelRerankHits())
			if !reflect.DeepEqual(ids(out), ids(base)) {
				t.Fatalf("order = %v, want the deterministic order %v", ids(out), ids(base))
			}
			if !strings.Contains(reason, c.why) {
				t.Errorf("fallback reason %q does not say %q", reason, c.why)
			}
			if _, fb := m.Stats(); fb != 1 {
				t.Errorf("fallbacks = %d, want 1", fb)
			}
		})
	}
}

func TestParseRankingCompletesTheOrder(t *testing.T) {
	got, err := ParseRanking(" {\"ranking\": [3, 1]}\n", 4)
	if err != nil || !reflect.DeepEqual(got, []int{3, 1, 0, 2}) {
		t.Fatalf("ParseRanking = %v, %v", got, err)
	}
}

func FuzzParseRanking(f *testing.F) {
	for _, s := range []string{`{"ranking":[0,1]}`, `{"ranking":[]}`, `[]`, `{"ranking":[-1]}`, `{`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, reply string, n int) {
		if n < 0 || n > 64 {
			return
		}
		order, err := ParseRanking(reply, n)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, i := range order {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("order %v is not a permutation of %d", order, n)
			}
			seen[i] = true
		}
		if len(order) != n {
			t.Fatalf("order %v misses passages of %d", order, n)
		}
	})
}
