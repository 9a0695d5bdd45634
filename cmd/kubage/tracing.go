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

package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kubage/kubage/internal/telemetry"
)

// Environment a manager passes to its task Jobs so their spans join the sessions' traces.
const (
	envTraceEndpoint = "KUBAGE_OTLP_TRACES_ENDPOINT"
	envTraceRatio    = "KUBAGE_TRACE_SAMPLE_RATIO"
)

// tracingOptions are the OpenTelemetry flags; tracing is off without an endpoint.
type tracingOptions struct {
	endpoint string
	headers  []string
	ratio    float64
}

func (o *tracingOptions) bindFlags(f *pflag.FlagSet) {
	f.StringVar(&o.endpoint, "otlp-traces-endpoint", "", "OTLP/HTTP traces URL (e.g. http://otel-collector.monitoring:4318/v1/traces); spans per session, phase, task, tool call and model call are exported there. Empty: no tracing.")
	f.StringSliceVar(&o.headers, "otlp-header", nil, "Header name=value sent with every trace export (repeatable).")
	f.Float64Var(&o.ratio, "trace-sample-ratio", 1, "Share of sessions traced, 0 to 1, decided by the session's trace id.")
}

// install starts exporting; the returned function flushes on shutdown.
func (o tracingOptions) install(ctx context.Context, service string) (func(context.Context) error, error) {
	headers := map[string]string{}
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--otlp-header %q is not name=value", h)
		}
		headers[strings.TrimSpace(k)] = v
	}
	shutdown, err := telemetry.Setup(ctx, telemetry.Options{Endpoint: o.endpoint, Headers: headers, SampleRatio: o.ratio, Service: service})
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	return shutdown, nil
}

// env is what a task Job needs to export its spans (headers are not passed: they may be
// credentials, and a Job's environment is readable by its namespace).
func (o tracingOptions) env() map[string]string {
	if o.endpoint == "" {
		return nil
	}
	return map[string]string{envTraceEndpoint: o.endpoint, envTraceRatio: strconv.FormatFloat(o.ratio, 'f', -1, 64)}
}

// tracingFromEnv reads what a manager passed to a task Job.
func tracingFromEnv(getenv func(string) string) tracingOptions {
	o := tracingOptions{endpoint: getenv(envTraceEndpoint), ratio: 1}
	if r, err := strconv.ParseFloat(getenv(envTraceRatio), 64); err == nil {
		o.ratio = r
	}
	return o
}
