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
	"fmt"
	"testing"
	"time"
)

func TestRateLimiter(t *testing.T) {
	l := NewRateLimiter(2, 3)
	now := time.Unix(1000, 0)
	for i := 0; i < 3; i++ {
		if ok, _ := l.Allow("a", now); !ok {
			t.Fatalf("request %d within the burst refused", i)
		}
	}
	ok, wait := l.Allow("a", now)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("after the burst: ok=%v wait=%s, want refused with 500ms", ok, wait)
	}
	if ok, _ := l.Allow("b", now); !ok {
		t.Fatal("another source shares the bucket")
	}
	if ok, _ := l.Allow("a", now.Add(499*time.Millisecond)); ok {
		t.Fatal("refilled too early")
	}
	if ok, _ := l.Allow("a", now.Add(time.Second)); !ok {
		t.Fatal("not refilled after a second")
	}
	if ok, _ := NewRateLimiter(0, 0).Allow("a", now); !ok {
		t.Fatal("a zero rate must disable limiting")
	}
	var nilLimiter *RateLimiter
	if ok, _ := nilLimiter.Allow("a", now); !ok {
		t.Fatal("a nil limiter must allow")
	}
}

func TestRateLimiterStaysBounded(t *testing.T) {
	l := NewRateLimiter(1, 1)
	l.max = 100
	now := time.Unix(1000, 0)
	for i := 0; i < 1000; i++ {
		l.Allow(fmt.Sprintf("10.0.%d.%d", i/256, i%256), now)
	}
	if len(l.buckets) > l.max+1 {
		t.Fatalf("%d buckets, bound %d", len(l.buckets), l.max)
	}
	// Once the buckets have refilled they are swept and new sources get their own again.
	later := now.Add(time.Minute)
	if ok, _ := l.Allow("192.168.0.1", later); !ok {
		t.Fatal("new source refused after the table refilled")
	}
	if _, own := l.buckets["192.168.0.1"]; !own {
		t.Fatal("refilled buckets were not swept")
	}
}
