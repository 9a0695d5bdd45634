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

package breaker

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBreakerHalfOpens(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(2, time.Minute, func() time.Time { return now })
	for i := 0; i < 2; i++ {
		if err := b.Allow(); err != nil {
			t.Fatal(err)
		}
		b.Record(true)
	}
	err := b.Allow()
	if !errors.Is(err, ErrOpen) {
		t.Fatalf("open after the threshold: %v", err)
	}
	if !strings.Contains(err.Error(), "2 consecutive failures; retry in 1m0s") {
		t.Fatalf("error names the failures and the wait: %v", err)
	}
	now = now.Add(time.Minute)
	if err := b.Allow(); err != nil {
		t.Fatalf("one trial after the cooldown: %v", err)
	}
	if err := b.Allow(); !errors.Is(err, ErrOpen) {
		t.Fatalf("only one trial at a time: %v", err)
	}
	b.Record(false)
	if err := b.Allow(); err != nil {
		t.Fatalf("a successful trial closes the circuit: %v", err)
	}
}

func TestBreakerFailedTrialReopens(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(3, time.Minute, func() time.Time { return now })
	for i := 0; i < 3; i++ {
		_ = b.Allow()
		b.Record(true)
	}
	now = now.Add(time.Minute)
	if err := b.Allow(); err != nil {
		t.Fatalf("trial after the cooldown: %v", err)
	}
	b.Record(true)
	if err := b.Allow(); !errors.Is(err, ErrOpen) {
		t.Fatalf("a failed trial reopens the circuit for a full cooldown: %v", err)
	}
	now = now.Add(59 * time.Second)
	if err := b.Allow(); !errors.Is(err, ErrOpen) {
		t.Fatalf("still open before the cooldown ends: %v", err)
	}
}

func TestBreakerReleaseGivesBackTrial(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(1, time.Second, func() time.Time { return now })
	_ = b.Allow()
	b.Record(true)
	now = now.Add(time.Second)
	if err := b.Allow(); err != nil {
		t.Fatal(err)
	}
	b.Release()
	if err := b.Allow(); err != nil {
		t.Fatalf("a released trial can be taken again: %v", err)
	}
}

func TestBreakerSuccessResetsCount(t *testing.T) {
	b := New(2, time.Minute, nil)
	for i := 0; i < 5; i++ {
		if err := b.Allow(); err != nil {
			t.Fatalf("call %d: alternating failures never reach the threshold: %v", i, err)
		}
		b.Record(i%2 == 0)
	}
}
