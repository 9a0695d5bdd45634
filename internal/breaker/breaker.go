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

// Package breaker is a small circuit breaker shared by the model endpoints and the
// tool servers: after consecutive failed calls it refuses calls for a cooldown, then
// lets one trial call through (half-open) whose outcome closes or reopens the circuit.
package breaker

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrOpen is wrapped by every error Allow returns.
var ErrOpen = errors.New("circuit open")

// Breaker is safe for concurrent use.
type Breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time

	mu        sync.Mutex
	failures  int
	openUntil time.Time
	trial     bool
}

// New opens the circuit after threshold consecutive failures for cooldown; now is
// its clock (time.Now when nil).
func New(threshold int, cooldown time.Duration, now func() time.Time) *Breaker {
	if now == nil {
		now = time.Now
	}
	return &Breaker{threshold: threshold, cooldown: cooldown, now: now}
}

// Allow reports whether a call may go out; a nil error in half-open state reserves
// the single trial, which the caller must end with Record or Release.
func (b *Breaker) Allow() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openUntil.IsZero() {
		return nil
	}
	if now := b.now(); now.Before(b.openUntil) {
		return fmt.Errorf("%w after %d consecutive failures; retry in %s", ErrOpen, b.failures, b.openUntil.Sub(now).Round(time.Second))
	}
	if b.trial {
		return fmt.Errorf("%w: a trial call is in flight", ErrOpen)
	}
	b.trial = true
	return nil
}

// Record notes the outcome of an allowed call: a success closes the circuit, a failure
// counts towards the threshold, and a failed trial reopens it at once.
func (b *Breaker) Record(failed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasTrial := b.trial
	b.trial = false
	if !failed {
		b.failures, b.openUntil = 0, time.Time{}
		return
	}
	b.failures++
	if wasTrial || b.failures >= b.threshold {
		b.openUntil = b.now().Add(b.cooldown)
	}
}

// Release ends an allowed call without a verdict (the caller gave up before the
// callee answered), giving back a reserved trial.
func (b *Breaker) Release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trial = false
}
