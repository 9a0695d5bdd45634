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

package alerts

import (
	"math"
	"sync"
	"time"
)

// RateLimiter is a token bucket per source (the client's IP address). Buckets that have
// refilled are forgotten when the table is full; past that, unknown sources share one
// bucket so that the table stays bounded even when addresses are spoofed or many.
type RateLimiter struct {
	rate    float64
	burst   float64
	max     int
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

const (
	maxRateLimitSources = 10000
	overflowSource      = "\x00overflow"
)

// NewRateLimiter allows perSecond requests per source with bursts of burst; a rate of
// zero or less disables limiting.
func NewRateLimiter(perSecond float64, burst int) *RateLimiter {
	if burst < 1 {
		burst = 1
	}
	return &RateLimiter{rate: perSecond, burst: float64(burst), max: maxRateLimitSources, buckets: map[string]*bucket{}}
}

// Allow takes a token from the source's bucket. When there is none it returns false and
// how long until there will be one.
func (l *RateLimiter) Allow(source string, now time.Time) (bool, time.Duration) {
	if l == nil || l.rate <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[source]
	if !ok {
		if len(l.buckets) >= l.max {
			l.sweep(now)
		}
		if len(l.buckets) >= l.max {
			source = overflowSource
			b = l.buckets[source]
		}
		if b == nil {
			b = &bucket{tokens: l.burst, last: now}
			l.buckets[source] = b
		}
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed*l.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, wait
}

// sweep forgets buckets that are full again: they hold no state worth keeping.
func (l *RateLimiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
}
