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
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics on controller-runtime's registry, served by the manager's metrics endpoint.
// Label values come from closed sets (statuses, reasons, HTTP codes).
var (
	alertsReceived = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_alerts_received_total",
		Help: "Alerts received in well-formed payloads, by alert status (firing, resolved).",
	}, []string{"status"})
	sessionsCreated = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kubage_alerts_sessions_created_total",
		Help: "Troubleshoot sessions created from firing alerts.",
	})
	duplicatesSuppressed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kubage_alerts_duplicates_suppressed_total",
		Help: "Firing alerts whose session already existed (retries, repeats, storms).",
	})
	alertsResolved = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_alerts_resolved_total",
		Help: "Resolved alerts, by outcome: recorded on their session, or no_session.",
	}, []string{"outcome"})
	alertsSkipped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_alerts_skipped_total",
		Help: "Firing alerts the policy chose not to investigate, by reason.",
	}, []string{"reason"})
	alertsRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_alerts_rejected_total",
		Help: "Requests or alerts refused, by reason.",
	}, []string{"reason"})
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_alerts_requests_total",
		Help: "HTTP requests to the alert receiver, by response code.",
	}, []string{"code"})
	requestDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "kubage_alerts_request_duration_seconds",
		Help:    "Time to answer one alert receiver request, including the API writes.",
		Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
	})
	apiWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_alerts_api_writes_total",
		Help: "Kubernetes API writes made by the alert receiver, by verb.",
	}, []string{"verb"})
	sessionsPending = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kubage_alerts_sessions_pending",
		Help: "Sessions accepted into the receiver's journal and not created yet.",
	})
	journalSyncSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "kubage_alerts_journal_sync_seconds",
		Help:    "Time to write and fsync one group of journal records; acknowledged alerts wait for it.",
		Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1},
	})
	sessionsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kubage_alerts_sessions_dropped_total",
		Help: "Journaled sessions the API server refused for good (namespace gone, forbidden, invalid), by reason.",
	}, []string{"reason"})
	policyReloadErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kubage_alerts_policy_reload_errors_total",
		Help: "Failed reloads of the alert policy ConfigMap; the previous policy stays in force.",
	})
)

func init() {
	metrics.Registry.MustRegister(alertsReceived, sessionsCreated, duplicatesSuppressed, alertsResolved,
		alertsSkipped, alertsRejected, requestsTotal, requestDuration, apiWrites, sessionsPending, sessionsDropped, journalSyncSeconds, policyReloadErrors)
}
