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

package llm

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/text"
)

// Usage is what a brain consumed: model calls and tokens, tool calls, and the
// robustness work behind them.
type Usage struct {
	LLMCalls         int64 `json:"llmCalls"`
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
	ToolCalls        int64 `json:"toolCalls"`
	// HTTPAttempts counts requests sent, retries included.
	HTTPAttempts int64 `json:"httpAttempts"`
	// Repairs counts structured replies that needed a repair round.
	Repairs int64 `json:"repairs"`
	// RefusedToolCalls counts tool calls refused (unknown tool, bad arguments, mutating).
	RefusedToolCalls int64 `json:"refusedToolCalls"`
	// ModelTime is the time spent waiting for the model.
	ModelTime time.Duration `json:"modelTime"`
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	u.LLMCalls += v.LLMCalls
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.ToolCalls += v.ToolCalls
	u.HTTPAttempts += v.HTTPAttempts
	u.Repairs += v.Repairs
	u.RefusedToolCalls += v.RefusedToolCalls
	u.ModelTime += v.ModelTime
	return u
}

// Degradation reasons, usable as condition reasons (UpperCamelCase).
const (
	// ReasonModelUnreachable: the endpoint did not answer (connection, timeouts, 5xx, 429)
	// after retries.
	ReasonModelUnreachable = "ModelUnreachable"
	// ReasonCircuitOpen: recent calls kept failing, so the endpoint was not called.
	ReasonCircuitOpen = "ModelCircuitOpen"
	// ReasonModelRejected: the endpoint refused the request (4xx: key, model, quota).
	ReasonModelRejected = "ModelRejected"
	// ReasonInvalidOutput: the reply did not match its schema, even after one repair.
	ReasonInvalidOutput = "ModelOutputInvalid"
	// ReasonTruncated: the reply hit the output token limit, even after one repair.
	ReasonTruncated = "ModelOutputTruncated"
	// ReasonEgressDenied: the egress guard refused the endpoint's address (same value as
	// the API's EgressDeniedReason).
	ReasonEgressDenied = "EgressDenied"
	// ReasonNoFallback: the model failed and no fallback brain was configured.
	ReasonNoFallback = "NoFallback"
)

// Degradation records one step where the brain fell back instead of using the model.
type Degradation struct {
	// Step is Plan, Investigate, Judge or Summarize.
	Step    string `json:"step"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// DegradedError is returned when the model failed and no fallback brain could answer.
type DegradedError struct {
	Degradation
	Err error
}

func (e *DegradedError) Error() string {
	return fmt.Sprintf("%s degraded (%s): %s", e.Step, e.Reason, e.Message)
}

func (e *DegradedError) Unwrap() error { return e.Err }

// callError is a failed model call with the reason it degrades with.
type callError struct {
	reason string
	err    error
}

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

func reasonOf(err error) string {
	var ce *callError
	if errors.As(err, &ce) {
		return ce.reason
	}
	return ReasonModelUnreachable
}

// ledger is the brain's running account, safe for concurrent tasks.
type ledger struct {
	mu       sync.Mutex
	total    Usage
	untaken  Usage
	degraded []Degradation
	untakenD int
	sink     func(Usage)
}

func (l *ledger) add(u Usage) {
	l.mu.Lock()
	l.total = l.total.Add(u)
	l.untaken = l.untaken.Add(u)
	sink := l.sink
	l.mu.Unlock()
	if sink != nil {
		sink(u)
	}
}

func (l *ledger) degrade(d Degradation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.degraded) < 100 {
		l.degraded = append(l.degraded, d)
		l.untakenD++
	}
}

// Usage returns everything the brain consumed since it was built.
func (b *LLMBrain) Usage() Usage {
	b.led.mu.Lock()
	defer b.led.mu.Unlock()
	return b.led.total
}

// TakeUsage returns what the brain consumed since the last call and resets that count;
// it is how the session engine accounts a step's model calls (session.UsageReporter).
func (b *LLMBrain) TakeUsage() agent.Usage {
	b.led.mu.Lock()
	defer b.led.mu.Unlock()
	u := b.led.untaken
	b.led.untaken = Usage{}
	return agent.Usage{LLMCalls: u.LLMCalls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

// Degradations lists every step that fell back, oldest first.
func (b *LLMBrain) Degradations() []Degradation {
	b.led.mu.Lock()
	defer b.led.mu.Unlock()
	return append([]Degradation(nil), b.led.degraded...)
}

// TakeDegraded reports the degradations since the last call as one condition-ready
// reason and message (the latest reason; the message lists the steps), and resets.
// It uses plain types so a consumer can declare the interface without importing llm.
func (b *LLMBrain) TakeDegraded() (reason, message string, degraded bool) {
	b.led.mu.Lock()
	defer b.led.mu.Unlock()
	n := b.led.untakenD
	if n == 0 {
		return "", "", false
	}
	recent := b.led.degraded[len(b.led.degraded)-n:]
	b.led.untakenD = 0
	last := recent[len(recent)-1]
	parts := make([]string, 0, len(recent))
	for _, d := range recent {
		parts = append(parts, d.Step+": "+d.Message)
	}
	return last.Reason, text.ClipMarked("The model failed or answered unusably; the rule engine's answer was used instead. "+strings.Join(parts, "; "), 1000), true
}
