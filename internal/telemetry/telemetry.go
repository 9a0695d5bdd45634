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

// Package telemetry traces sessions with OpenTelemetry: a span for the session, each phase
// step, each task, tool call and model call, exported over OTLP/HTTP when an endpoint is
// configured and a no-op otherwise.
//
// A session lives across many reconciles, restarts and task Jobs, so its trace id and
// the id of its root span are derived from the Troubleshoot's UID: every process that
// works on a session joins the same trace without storing anything, and the root span
// is written once, when the session finishes, with the session's own start time.
package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kubage/kubage/internal/redact"
)

const instrumentation = "github.com/kubage/kubage"

// Options configure the exporter. An empty Endpoint turns tracing off.
type Options struct {
	// Endpoint is the OTLP/HTTP traces URL, e.g. http://otel-collector:4318/v1/traces.
	Endpoint string
	// Headers are sent with every export (e.g. an authorization header).
	Headers map[string]string
	// SampleRatio in [0, 1] keeps that share of sessions, decided by trace id so every
	// process keeps or drops the same sessions; 0 means 1.
	SampleRatio float64
	// Service names this process in the traces (kubage-manager, kubage-agent).
	Service string
	Version string
}

var enabled atomic.Bool

// Enabled says whether spans are exported by this process.
func Enabled() bool { return enabled.Load() }

// Tracer is KubAge's tracer: a no-op until Setup or Install sets a provider.
func Tracer() trace.Tracer { return otel.Tracer(instrumentation) }

// Setup installs an OTLP/HTTP exporting provider; shutdown flushes it. With no
// endpoint nothing is installed and shutdown does nothing.
func Setup(ctx context.Context, o Options) (shutdown func(context.Context) error, err error) {
	if o.Endpoint == "" {
		return func(context.Context) error { return nil }, nil
	}
	if o.SampleRatio < 0 || o.SampleRatio > 1 {
		return nil, errors.New("the trace sample ratio must be between 0 and 1")
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(o.Endpoint)}
	if len(o.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(o.Headers))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, err
	}
	tp := NewProvider(sdktrace.NewBatchSpanProcessor(exp), o)
	restore := Install(tp)
	return func(ctx context.Context) error {
		defer restore()
		return tp.Shutdown(ctx)
	}, nil
}

// NewProvider is a provider with KubAge's ids and sampler over a span processor.
func NewProvider(sp sdktrace.SpanProcessor, o Options) *sdktrace.TracerProvider {
	ratio := o.SampleRatio
	if ratio == 0 {
		ratio = 1
	}
	service := o.Service
	if service == "" {
		service = "kubage"
	}
	res := resource.NewSchemaless(attribute.String("service.name", service), attribute.String("service.version", o.Version))
	return sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(sp),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(&ids{}),
		// By trace id alone, not by parent: the root span of a session is written last.
		sdktrace.WithSampler(sdktrace.TraceIDRatioBased(ratio)),
	)
}

// Install makes tp the process's provider and W3C trace context its propagator;
// restore puts back what was there (for tests).
func Install(tp trace.TracerProvider) (restore func()) {
	prevTP, prevProp, prevOn := otel.GetTracerProvider(), otel.GetTextMapPropagator(), enabled.Load()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	enabled.Store(true)
	if !prevOn {
		// The global default delegates to the first provider ever set; put a real no-op back.
		prevTP = noop.NewTracerProvider()
	}
	return func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
		enabled.Store(prevOn)
	}
}

// SessionTraceID is the trace id of the session with this UID.
func SessionTraceID(uid string) trace.TraceID {
	sum := sha256.Sum256([]byte("kubage/session/" + uid))
	var id trace.TraceID
	copy(id[:], sum[:16])
	return id
}

// sessionSpanID is the id of the session's root span.
func sessionSpanID(uid string) trace.SpanID {
	sum := sha256.Sum256([]byte("kubage/session/" + uid))
	var id trace.SpanID
	copy(id[:], sum[16:24])
	return id
}

// SessionContext parents the spans started from it on the session's root span.
func SessionContext(ctx context.Context, uid string) context.Context {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: SessionTraceID(uid), SpanID: sessionSpanID(uid), TraceFlags: trace.FlagsSampled, Remote: true,
	})
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

// StartPhase starts the span of one phase step of a session.
func StartPhase(ctx context.Context, uid, phase string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return Tracer().Start(SessionContext(ctx, uid), "phase "+phase, trace.WithAttributes(attrs...))
}

// EndSession writes the session's root span, from its creation to now.
func EndSession(ctx context.Context, uid string, start, end time.Time, failed bool, attrs ...attribute.KeyValue) {
	if !Enabled() {
		return
	}
	ctx = context.WithValue(ctx, fixedIDsKey{}, fixedIDs{trace: SessionTraceID(uid), span: sessionSpanID(uid)})
	_, span := Tracer().Start(ctx, "session", trace.WithNewRoot(), trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	if failed {
		span.SetStatus(codes.Error, "session failed")
	}
	span.End(trace.WithTimestamp(end))
}

// TraceParent is the W3C traceparent of ctx's span, for a task that runs elsewhere.
func TraceParent(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}

// WithTraceParent parents spans started from the returned context on traceparent.
func WithTraceParent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
}

// Fail marks span failed with err (nil leaves it alone). A trace is a sink like any
// other: the message is redacted before it is recorded.
func Fail(span trace.Span, err error) {
	if err != nil {
		msg := redact.Default().Secrets(err.Error())
		span.AddEvent("exception", trace.WithAttributes(attribute.String("exception.message", msg)))
		span.SetStatus(codes.Error, msg)
	}
}

type fixedIDsKey struct{}

type fixedIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// ids generates random ids, except for a root span whose ids the context fixes.
type ids struct {
	mu  sync.Mutex
	rnd *rand.Rand
}

func (g *ids) u64() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rnd == nil {
		g.rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return g.rnd.Uint64()
}

// NewIDs implements sdktrace.IDGenerator.
func (g *ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if f, ok := ctx.Value(fixedIDsKey{}).(fixedIDs); ok {
		return f.trace, f.span
	}
	var t trace.TraceID
	binary.BigEndian.PutUint64(t[:8], g.u64())
	binary.BigEndian.PutUint64(t[8:], g.u64())
	return t, g.NewSpanID(ctx, t)
}

// NewSpanID implements sdktrace.IDGenerator.
func (g *ids) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	var s trace.SpanID
	for s == (trace.SpanID{}) {
		binary.BigEndian.PutUint64(s[:], g.u64())
	}
	return s
}
