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

package session

import (
	"fmt"
	"time"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/metrics"
)

func (w *work) deadline() time.Time {
	timeout := defaultTimeout
	if t := w.ts.Spec.Budget.Timeout; t != nil && t.Duration > 0 {
		timeout = t.Duration
	}
	start := w.now
	if w.st.StartTime != nil {
		start = w.st.StartTime.Time
	}
	return start.Add(timeout)
}

// budgetStop says which budget, if any, is spent: time, tool calls or tokens.
func (w *work) budgetStop() *Stop {
	b := w.ts.Spec.Budget
	if !w.now.Before(w.deadline()) {
		timeout := w.deadline().Sub(w.st.StartTime.Time)
		return &Stop{Reason: kubagev1alpha1.TimedOutReason, Message: "the session timed out after " + timeout.String()}
	}
	if b.MaxToolCalls > 0 && w.st.Usage.ToolCalls >= int64(b.MaxToolCalls) {
		return &Stop{Reason: kubagev1alpha1.BudgetExhaustedReason, Message: fmt.Sprintf("tool-call budget of %d used (%d calls)", b.MaxToolCalls, w.st.Usage.ToolCalls)}
	}
	if tokens := w.st.Usage.PromptTokens + w.st.Usage.CompletionTokens; b.MaxTokens > 0 && tokens >= b.MaxTokens {
		return &Stop{Reason: kubagev1alpha1.BudgetExhaustedReason, Message: fmt.Sprintf("token budget of %d used (%d tokens)", b.MaxTokens, tokens)}
	}
	return nil
}

// stopLoop ends the investigation early; Summarizing still concludes from the results.
func (w *work) stopLoop(stop *Stop) time.Duration {
	w.ck.Stop = stop
	w.enter(kubagev1alpha1.PhaseSummarizing, stop.Message)
	return soon
}

// account adds what a model-backed brain consumed to status.usage and keeps its latest
// fallback from the model in the checkpoint.
func (w *work) account(brain agent.Brain) {
	if dr, ok := brain.(DegradationReporter); ok {
		if reason, msg, degraded := dr.TakeDegraded(); degraded {
			w.ck.Degraded = &Degradation{Reason: clean(reason, 128), Message: clean(msg, 1024)}
		}
	}
	ur, ok := brain.(UsageReporter)
	if !ok {
		return
	}
	u := ur.TakeUsage()
	w.st.Usage.LLMCalls += u.LLMCalls
	w.st.Usage.PromptTokens += u.PromptTokens
	w.st.Usage.CompletionTokens += u.CompletionTokens
	metrics.LLMTokensTotal.WithLabelValues("prompt").Add(float64(u.PromptTokens))
	metrics.LLMTokensTotal.WithLabelValues("completion").Add(float64(u.CompletionTokens))
}

// accountTask adds what a finished task consumed to status.usage, wherever it ran, and
// keeps its fall back from the model for the Degraded condition.
func (w *work) accountTask(res agent.TaskResult) {
	calls := int64(len(res.ToolCalls))
	if u := res.Usage; u != nil {
		// A result trimmed to fit its ConfigMap keeps its tool-call count in Usage.
		calls = max(calls, u.ToolCalls)
		w.st.Usage.LLMCalls += u.LLMCalls
		w.st.Usage.PromptTokens += u.PromptTokens
		w.st.Usage.CompletionTokens += u.CompletionTokens
		metrics.LLMTokensTotal.WithLabelValues("prompt").Add(float64(u.PromptTokens))
		metrics.LLMTokensTotal.WithLabelValues("completion").Add(float64(u.CompletionTokens))
	}
	if d := res.Degraded; d != nil {
		w.ck.Degraded = &Degradation{Reason: clean(d.Reason, 128), Message: clean(d.Message, 1024)}
	}
	w.st.Usage.ToolCalls += calls
	for _, tc := range res.ToolCalls {
		metrics.ToolCallsTotal.WithLabelValues(clean(tc.Tool, 64)).Inc()
	}
}
