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
	"sync"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/text"
)

// Options are the collaborators of a brain.
type Options struct {
	// Fallback answers when the model cannot (normally the rule engine); it also runs
	// the Analyze tasks and contributes its findings, leads and candidate conclusion.
	Fallback agent.Brain
	// Tools are the tools the investigator may call (nil: none).
	Tools ToolSet
	// Knowledge is searched while planning and summarizing (nil: none).
	Knowledge Knowledge
	// Redactor cleans everything sent (redact.Default() when nil).
	Redactor *redact.Redactor
	// Pool shares endpoints and circuit breakers (DefaultPool when nil).
	Pool *Pool
	// UsageSink, when set, receives the usage of every model call as it happens (for
	// in-process task runners that account per session).
	UsageSink func(Usage)
}

// LLMBrain is an agent.Brain backed by a chat model, with a fallback brain.
// It is cheap to build, so the controller may build one per session step.
type LLMBrain struct {
	cfg       Config
	ep        *endpoint
	fallback  agent.Brain
	gate      *toolGate
	knowledge Knowledge
	red       *redact.Redactor
	led       ledger

	plan, verdict, conclusion *outputSchema

	kmu    sync.Mutex
	kcache map[string][]Snippet
}

var _ agent.Brain = (*LLMBrain)(nil)

// New builds a brain for cfg.
func New(cfg Config, opts Options) (*LLMBrain, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	pool := opts.Pool
	if pool == nil {
		pool = DefaultPool
	}
	red := opts.Redactor
	if red == nil {
		red = redact.Default()
	}
	if cfg.APIKey != "" {
		red.AddSecrets(cfg.APIKey)
	}
	b := &LLMBrain{cfg: cfg, ep: pool.endpoint(cfg), fallback: opts.Fallback, gate: newToolGate(opts.Tools),
		knowledge: opts.Knowledge, red: red, kcache: map[string][]Snippet{}}
	b.led.sink = opts.UsageSink
	var err error
	if b.plan, err = newOutputSchema(SchemaPlan, planSchema(cfg.MaxPlanTasks)); err != nil {
		return nil, err
	}
	if b.verdict, err = newOutputSchema(SchemaVerdict, verdictSchema()); err != nil {
		return nil, err
	}
	if b.conclusion, err = newOutputSchema(SchemaConclusion, conclusionSchema()); err != nil {
		return nil, err
	}
	return b, nil
}

// Config returns the effective configuration.
func (b *LLMBrain) Config() Config { return b.cfg }

// degrade records that step fell back and returns the error to use when there is no
// fallback answer.
func (b *LLMBrain) degrade(step string, err error) error {
	d := Degradation{Step: step, Reason: reasonOf(err), Message: text.ClipMarked(b.red.Redact(err.Error()), 300)}
	b.led.degrade(d)
	return &DegradedError{Degradation: d, Err: err}
}

func noFallback(step string, err error) error {
	var de *DegradedError
	if errors.As(err, &de) {
		de.Message = text.ClipMarked(de.Reason+": "+de.Message, 300)
		de.Reason = ReasonNoFallback
		return de
	}
	return &DegradedError{Degradation: Degradation{Step: step, Reason: ReasonNoFallback, Message: err.Error()}, Err: err}
}

func taskID(iteration, n int) string { return fmt.Sprintf("i%d-t%d", iteration, n) }
