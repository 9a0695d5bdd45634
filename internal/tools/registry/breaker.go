package registry

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrCircuitOpen is returned without calling a server whose recent calls kept failing.
var ErrCircuitOpen = errors.New("circuit open")

// breaker stops calls to a failing server for a cooldown, then lets one trial call
// through (half-open): its success closes the circuit, its failure opens it again.
type breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time

	mu        sync.Mutex
	failures  int
	openUntil time.Time
	trial     bool
}

func newBreaker(threshold int, cooldown time.Duration, now func() time.Time) *breaker {
	return &breaker{threshold: threshold, cooldown: cooldown, now: now}
}

// allow reports whether a call may go out; a nil error in half-open state reserves the trial.
func (b *breaker) allow() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openUntil.IsZero() {
		return nil
	}
	if now := b.now(); now.Before(b.openUntil) {
		return fmt.Errorf("%w after %d consecutive failures; retry in %s", ErrCircuitOpen, b.failures, b.openUntil.Sub(now).Round(time.Second))
	}
	if b.trial {
		return fmt.Errorf("%w: a trial call is in flight", ErrCircuitOpen)
	}
	b.trial = true
	return nil
}

// record notes the outcome of an allowed call. Calls that failed for reasons other
// than the server's health (bad arguments, oversized answers) are not recorded.
func (b *breaker) record(serverFault bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasTrial := b.trial
	b.trial = false
	if !serverFault {
		b.failures = 0
		b.openUntil = time.Time{}
		return
	}
	b.failures++
	if wasTrial || b.failures >= b.threshold {
		b.openUntil = b.now().Add(b.cooldown)
	}
}

// release gives back a reserved trial whose call never reached the server.
func (b *breaker) release() {
	b.mu.Lock()
	b.trial = false
	b.mu.Unlock()
}

// state is "closed", "open" or "half-open", for logs and tests.
func (b *breaker) state() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.openUntil.IsZero():
		return "closed"
	case b.now().Before(b.openUntil):
		return "open"
	default:
		return "half-open"
	}
}
