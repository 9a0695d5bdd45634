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
	"encoding/json"
	"sync"
	"time"

	"github.com/kubage/kubage/internal/metrics"
)

// Bounds of the query cache: the tasks of one session (and sessions about the same alert)
// ask the same questions within minutes; answers older than that may miss a new runbook.
const (
	DefaultCacheTTL     = 2 * time.Minute
	DefaultCacheEntries = 256
)

// queryCache keeps recent answers by query. An entry is good while it is younger than
// the TTL and the index has not changed since (the Service's generation).
type queryCache struct {
	mu      sync.Mutex
	entries map[string]cachedAnswer
	order   []string // FIFO eviction
}

type cachedAnswer struct {
	ans *Answer
	at  time.Time
	gen uint64
}

// cacheKey is a digest of everything that shapes an answer.
func cacheKey(q Query, rerankKey string) string {
	raw, _ := json.Marshal(struct {
		Q Query
		R string
	}{q, rerankKey})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// cached returns a copy of a live answer for key.
func (s *Service) cached(key string) (*Answer, bool) {
	if s.opts.CacheTTL < 0 {
		return nil, false
	}
	c := &s.cache
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if !ok || e.gen != s.gen.Load() || s.opts.Now().Sub(e.at) > s.opts.CacheTTL {
		metrics.KnowledgeCacheLookupsTotal.WithLabelValues("miss").Inc()
		return nil, false
	}
	metrics.KnowledgeCacheLookupsTotal.WithLabelValues("hit").Inc()
	return copyAnswer(e.ans), true
}

// remember stores a copy of ans under key, evicting the oldest entry when full.
func (s *Service) remember(key string, gen uint64, ans *Answer) {
	if s.opts.CacheTTL < 0 {
		return
	}
	c := &s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]cachedAnswer{}
	}
	if _, ok := c.entries[key]; !ok {
		for len(c.order) >= s.opts.CacheEntries {
			delete(c.entries, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, key)
	}
	c.entries[key] = cachedAnswer{ans: copyAnswer(ans), at: s.opts.Now(), gen: gen}
}

// copyAnswer copies the slices of an answer so a caller editing its copy cannot change
// what the next caller gets.
func copyAnswer(a *Answer) *Answer {
	cp := *a
	cp.Snippets = append([]Snippet(nil), a.Snippets...)
	for i := range cp.Snippets {
		cp.Snippets[i].Context = append([]Passage(nil), a.Snippets[i].Context...)
	}
	cp.Related = append([]RelatedPage(nil), a.Related...)
	cp.Warnings = append([]string(nil), a.Warnings...)
	if cp.Snippets == nil {
		cp.Snippets = []Snippet{}
	}
	return &cp
}
