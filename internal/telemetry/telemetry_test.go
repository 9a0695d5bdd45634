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

package telemetry_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/kubage/kubage/internal/telemetry"
)

func recorder(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	restore := telemetry.Install(telemetry.NewProvider(rec, telemetry.Options{}))
	t.Cleanup(restore)
	return rec
}

func byName(spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// Phases started in different reconciles (and processes) and the root span written at
// the end all land in one trace, parented on the root.
func TestSessionSpansShareOneTraceAcrossSteps(t *testing.T) {
	rec := recorder(t)
	ctx := context.Background()
	const uid = "3f1c2d9e-0000-4000-8000-000000000001"
	_, plan := telemetry.StartPhase(ctx, uid, "Planning")
	plan.End()
	pctx, inv := telemetry.StartPhase(ctx, uid, "Investigating")
	// A task elsewhere joins through the traceparent carried in its request.
	tp := telemetry.TraceParent(pctx)
	_, task := telemetry.Tracer().Start(telemetry.WithTraceParent(context.Background(), tp), "task Analyze")
	task.End()
	inv.End()
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	telemetry.EndSession(ctx, uid, start, start.Add(42*time.Second), false)

	spans := rec.Ended()
	if len(spans) != 4 {
		t.Fatalf("%d spans", len(spans))
	}
	root := byName(spans, "session")
	want := telemetry.SessionTraceID(uid)
	if root == nil || root.SpanContext().TraceID() != want || root.Parent().IsValid() {
		t.Fatalf("root span %v", root)
	}
	if !root.StartTime().Equal(start) || root.EndTime().Sub(root.StartTime()) != 42*time.Second {
		t.Fatalf("root span times %s..%s", root.StartTime(), root.EndTime())
	}
	for _, name := range []string{"phase Planning", "phase Investigating"} {
		s := byName(spans, name)
		if s.SpanContext().TraceID() != want || s.Parent().SpanID() != root.SpanContext().SpanID() {
			t.Fatalf("%s: trace %s parent %s, want trace %s parent %s", name, s.SpanContext().TraceID(), s.Parent().SpanID(), want, root.SpanContext().SpanID())
		}
	}
	if task := byName(spans, "task Analyze"); task.Parent().SpanID() != byName(spans, "phase Investigating").SpanContext().SpanID() {
		t.Fatalf("task parent %s", task.Parent().SpanID())
	}
	if telemetry.SessionTraceID("another") == want {
		t.Fatal("two sessions share a trace id")
	}
}

func TestFailRecordsARedactedMessage(t *testing.T) {
	rec := recorder(t)
	_, span := telemetry.Tracer().Start(context.Background(), "tool logs")
	telemetry.Fail(span, errors.New("dial postgres://app:Pa55w0rdLeak@db:5432 refused"))
	span.End()
	s := rec.Ended()[0]
	if strings.Contains(s.Status().Description, "Pa55w0rdLeak") || s.Status().Description == "" {
		t.Fatalf("status %q", s.Status().Description)
	}
	for _, e := range s.Events() {
		for _, a := range e.Attributes {
			if strings.Contains(a.Value.Emit(), "Pa55w0rdLeak") {
				t.Fatalf("event %s leaks: %s", e.Name, a.Value.Emit())
			}
		}
	}
}

// Without an endpoint nothing is installed and spans cost nothing.
func TestSetupWithoutEndpointIsOff(t *testing.T) {
	shutdown, err := telemetry.Setup(context.Background(), telemetry.Options{})
	if err != nil || telemetry.Enabled() {
		t.Fatalf("err %v enabled %v", err, telemetry.Enabled())
	}
	_, span := telemetry.Tracer().Start(context.Background(), "x")
	if span.SpanContext().IsValid() {
		t.Fatal("a span was recorded with tracing off")
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := telemetry.Setup(context.Background(), telemetry.Options{Endpoint: "http://x:4318/v1/traces", SampleRatio: 2}); err == nil {
		t.Fatal("a ratio above 1 was accepted")
	}
}

// The exporter speaks OTLP/HTTP protobuf to a collector; the header is sent.
func TestSetupExportsOverOTLPHTTP(t *testing.T) {
	var mu sync.Mutex
	var got []*collectortrace.ExportTraceServiceRequest
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, req) != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got, auth = append(got, req), r.Header.Get("Authorization")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(nil)
	}))
	defer srv.Close()
	ctx := context.Background()
	shutdown, err := telemetry.Setup(ctx, telemetry.Options{Endpoint: srv.URL + "/v1/traces", Headers: map[string]string{"Authorization": "Bearer otel"}, Service: "kubage-manager"})
	if err != nil {
		t.Fatal(err)
	}
	if !telemetry.Enabled() {
		t.Fatal("not enabled")
	}
	_, span := telemetry.StartPhase(ctx, "uid-1", "Summarizing")
	span.End()
	telemetry.EndSession(ctx, "uid-1", time.Now().Add(-time.Second), time.Now(), false)
	if err := shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var names []string
	var service string
	for _, r := range got {
		for _, rs := range r.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
					if tid := trace.TraceID(s.TraceId); tid != telemetry.SessionTraceID("uid-1") {
						t.Fatalf("span %s in trace %s", s.Name, tid)
					}
				}
			}
		}
	}
	if strings.Join(names, ",") != "phase Summarizing,session" || service != "kubage-manager" || auth != "Bearer otel" {
		t.Fatalf("exported %v from %q with auth %q", names, service, auth)
	}
	if telemetry.Enabled() {
		t.Fatal("still enabled after shutdown")
	}
}
