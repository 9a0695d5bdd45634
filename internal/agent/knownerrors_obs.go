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

package agent

// Well-known errors of observability back ends (logs, metrics) and their agents.
// Each entry's source names where its text and mechanism come from.
var observabilityErrors = []knownError{
	{class: "server-limit-reached", software: "Loki",
		signs:     []string{`ingestion rate limit exceeded`},
		mechanism: "Loki's distributor refuses pushes (429) once a tenant sends more than ingestion_rate_mb per second (a limit of 4 MB/s by default, with ingestion_burst_size_mb of burst), set in limits_config",
		provider:  lokiRate, consumer: lokiRate,
		runs:   `loki`,
		fix:    "raise ingestion_rate_mb and ingestion_burst_size_mb in limits_config, or send fewer logs",
		source: "https://grafana.com/docs/loki/latest/operations/request-validation-rate-limits/#rate-limit-errors"},
	{class: "server-limit-reached", software: "Loki",
		signs:     []string{`per stream rate limit exceeded`},
		mechanism: "Loki refuses lines of one stream past per_stream_rate_limit (a limit of 3 MB/s per stream by default), so a single chatty stream is throttled even under the tenant's rate",
		provider:  lokiStream, consumer: lokiStream,
		runs:   `loki`,
		fix:    "raise per_stream_rate_limit in limits_config, or split the stream with another label",
		source: "https://grafana.com/docs/loki/latest/operations/request-validation-rate-limits/#per_stream_rate_limit"},
	{class: "server-limit-reached", software: "Loki",
		signs:     []string{`maximum active stream limit exceeded`, `stream limit exceeded`},
		mechanism: "Loki refuses new streams once a tenant has max_global_streams_per_user active streams (a limit of 5000 by default); labels with many values (pod names, request ids) make one stream each",
		provider:  lokiStreams, consumer: lokiStreams,
		runs:   `loki`,
		fix:    "drop high-cardinality labels in the agent, or raise max_global_streams_per_user in limits_config",
		source: "https://grafana.com/docs/loki/latest/operations/request-validation-rate-limits/#stream-limit-errors"},
	{class: "server-limit-reached", software: "Prometheus",
		signs:     []string{`query processing would load too many samples into memory`},
		mechanism: "Prometheus aborts a query that would hold more samples in memory at once than --query.max-samples (a limit of 50 million by default)",
		provider:  promSamples, consumer: promSamples,
		runs:   `prometheus`,
		fix:    "narrow the query (range, step, selectors), or raise --query.max-samples with the memory limit",
		source: "https://prometheus.io/docs/prometheus/latest/command-line/prometheus/"},
}

var (
	lokiRate = []settingSpec{{key: `(^|_)ingestion_rate_mb$`, value: `\d`}, {key: `(^|_)ingestion_burst_size_mb$`, value: `\d`},
		{key: `(^|_)ingestion_rate_mb$`, absent: "4 MB/s per tenant, the default ingestion_rate_mb"}}
	lokiStream = []settingSpec{{key: `(^|_)per_stream_rate_limit$`, value: `\S`},
		{key: `(^|_)per_stream_rate_limit$`, absent: "3MB per stream, the default per_stream_rate_limit"}}
	lokiStreams = []settingSpec{{key: `(^|_)max_(global_)?streams_per_user$`, value: `\d`},
		{key: `(^|_)max_global_streams_per_user$`, absent: "5000 active streams per tenant, the default max_global_streams_per_user"}}
	promSamples = []settingSpec{{key: `query_max_samples$`, value: `\d`},
		{key: `query_max_samples$`, absent: "50000000 samples, the default --query.max-samples"}}
)
