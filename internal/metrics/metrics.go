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

// Package metrics defines KubAge's Prometheus metrics. They are registered on the
// registry the caller passes (controller-runtime's, so they are served with the
// controller metrics). The sessions-by-phase gauge is computed at scrape time from a
// lister, so it is right after a restart without any bookkeeping.
package metrics

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	// TasksTotal counts finished plan tasks by runner and outcome (Succeeded, Failed, Skipped).
	TasksTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_troubleshoot_tasks_total",
		Help: "Plan tasks finished, by task runner and outcome.",
	}, []string{"runner", "outcome"})

	// ToolCallsTotal counts tool calls made by tasks, by tool.
	ToolCallsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_tool_calls_total",
		Help: "Tool calls made by investigation tasks, by tool.",
	}, []string{"tool"})

	// TimeToRootCause observes the seconds from a session's start to its root cause.
	TimeToRootCause = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "kubage_troubleshoot_time_to_root_cause_seconds",
		Help:    "Seconds from the start of a Troubleshoot session to a named root cause.",
		Buckets: []float64{1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600},
	})

	// SessionsFinishedTotal counts sessions reaching Completed or Failed, by phase and reason.
	SessionsFinishedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_troubleshoot_sessions_finished_total",
		Help: "Troubleshoot sessions that reached a final phase, by phase and condition reason.",
	}, []string{"phase", "reason"})

	// SessionsDegradedTotal counts finished sessions whose brain fell back from the model to
	// the rule engine, by the Degraded reason (model unreachable, Secret invalid, ...).
	SessionsDegradedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_troubleshoot_sessions_degraded_total",
		Help: "Troubleshoot sessions that finished after falling back from the language model to the rule engine, by Degraded reason.",
	}, []string{"reason"})

	// LLMTokensTotal counts model tokens by kind (prompt, completion).
	LLMTokensTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_llm_tokens_total",
		Help: "Language-model tokens consumed by sessions, by kind (prompt, completion).",
	}, []string{"kind"})

	// KnowledgeCacheLookupsTotal counts knowledge searches answered from the cache of
	// identical recent queries (hit) or run against the index (miss).
	KnowledgeCacheLookupsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_knowledge_cache_lookups_total",
		Help: "Knowledge searches by cache result (hit, miss).",
	}, []string{"result"})

	// KnowledgeModelRerankTotal counts model reranks by outcome: the model's order was used
	// (model) or the deterministic order stood (fallback: error, timeout, malformed reply).
	KnowledgeModelRerankTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_knowledge_model_rerank_total",
		Help: "Model reranks of knowledge searches, by outcome (model, fallback).",
	}, []string{"outcome"})
)

// PhaseLister counts the Troubleshoots in each phase at scrape time.
type PhaseLister func(ctx context.Context) (map[string]int, error)

// sessionsDesc describes the scrape-time gauge.
var sessionsDesc = prometheus.NewDesc("kubage_troubleshoot_sessions",
	"Troubleshoot sessions by phase, counted at scrape time.", []string{"phase"}, nil)

// sessionCollector serves kubage_troubleshoot_sessions from the current lister.
type sessionCollector struct {
	mu     sync.RWMutex
	lister PhaseLister
}

var sessions = &sessionCollector{}

func (c *sessionCollector) Describe(ch chan<- *prometheus.Desc) { ch <- sessionsDesc }

func (c *sessionCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.RLock()
	list := c.lister
	c.mu.RUnlock()
	if list == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := list(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(sessionsDesc, err)
		return
	}
	for phase, n := range counts {
		ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n), phase)
	}
}

// Register adds every metric to reg and points the sessions gauge at list. Registering
// again (a second manager in the same process) only replaces the lister.
func Register(reg prometheus.Registerer, list PhaseLister) error {
	sessions.mu.Lock()
	sessions.lister = list
	sessions.mu.Unlock()
	for _, c := range []prometheus.Collector{TasksTotal, ToolCallsTotal, TimeToRootCause, SessionsFinishedTotal, SessionsDegradedTotal, LLMTokensTotal,
		KnowledgeCacheLookupsTotal, KnowledgeModelRerankTotal, sessions} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				continue
			}
			return err
		}
	}
	return nil
}
