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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kubage/kubage/internal/breaker"
	"github.com/kubage/kubage/internal/egress"
)

// ErrCircuitOpen is returned without calling an endpoint whose recent calls kept failing.
var ErrCircuitOpen = breaker.ErrOpen

// Bounds of the HTTP layer.
const (
	maxResponseBytes   = 4 << 20
	maxRequestBytes    = 8 << 20
	maxBackoff         = 8 * time.Second
	breakerThreshold   = 3
	breakerCooldown    = 30 * time.Second
	maxPooledEndpoints = 64
)

// Pool shares endpoints (HTTP client, circuit breaker, learnt capabilities) between
// brains, which are built per session step; the breaker is per base URL.
type Pool struct {
	// Now is the breaker clock (time.Now when nil).
	Now func() time.Time
	// Sleep waits between retries (a context-aware timer when nil); tests record it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Transport is the base HTTP transport (http.DefaultTransport when nil).
	Transport http.RoundTripper

	mu        sync.Mutex
	endpoints map[string]*endpoint
	order     []string
	breakers  map[string]*breaker.Breaker
}

// DefaultPool is the process-wide pool.
var DefaultPool = &Pool{}

func (p *Pool) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// endpoint is one (base URL, model, key) with its client.
type endpoint struct {
	cfg      Config
	client   *openai.Client
	breaker  *breaker.Breaker
	attempts atomic.Int64
	// format is the response format in use; it steps down when a server rejects one.
	format atomic.Value // ResponseFormat
	// completionTokens and noSampling are the dialect in use: set from the config and
	// learned from a server's 400 (see dialectRejected).
	completionTokens atomic.Bool
	noSampling       atomic.Bool
}

func (p *Pool) endpoint(cfg Config) *endpoint {
	sum := sha256.Sum256([]byte(cfg.APIKey))
	key := strings.Join([]string{cfg.BaseURL, cfg.Model, hex.EncodeToString(sum[:8]), cfg.Timeout.String(),
		strconv.Itoa(cfg.MaxRetries), cfg.RetryBaseDelay.String(), cfg.MaxRetryDelay.String(), string(cfg.ResponseFormat),
		string(cfg.Provider), cfg.APIVersion, cfg.Deployment, cfg.TokenParameter}, "\x00")
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.endpoints[key]; ok {
		return e
	}
	if p.endpoints == nil {
		p.endpoints, p.breakers = map[string]*endpoint{}, map[string]*breaker.Breaker{}
	}
	br, ok := p.breakers[cfg.BaseURL]
	if !ok {
		br = breaker.New(breakerThreshold, breakerCooldown, p.now)
		p.breakers[cfg.BaseURL] = br
	}
	e := &endpoint{cfg: cfg, breaker: br}
	e.format.Store(cfg.ResponseFormat)
	e.completionTokens.Store(cfg.TokenParameter == TokenParamMaxCompletionTokens)
	e.noSampling.Store(reasoningModel(cfg.Model))
	base := p.Transport
	if base == nil {
		base = egress.NewTransport()
	}
	sleep := p.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	oc := cfg.clientConfig()
	oc.HTTPClient = &http.Client{Transport: &retryTransport{base: base, cfg: cfg, breaker: br, sleep: sleep, attempts: &e.attempts}, CheckRedirect: egress.CheckRedirect}
	e.client = openai.NewClientWithConfig(oc)
	if len(p.order) >= maxPooledEndpoints {
		delete(p.endpoints, p.order[0])
		p.order = p.order[1:]
	}
	p.endpoints[key] = e
	p.order = append(p.order, key)
	return e
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryTransport retries one request on 429, 5xx and timeouts with jittered exponential
// backoff, honouring Retry-After up to MaxRetryDelay, bounds every attempt by
// cfg.Timeout and the response size, and feeds the endpoint's circuit breaker.
type retryTransport struct {
	base     http.RoundTripper
	cfg      Config
	breaker  *breaker.Breaker
	sleep    func(context.Context, time.Duration) error
	attempts *atomic.Int64
}

// errAttemptTimeout marks an attempt that outlived cfg.Timeout.
var errAttemptTimeout = errors.New("model request timed out")

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxRequestBytes+1))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if len(b) > maxRequestBytes {
			return nil, fmt.Errorf("request of more than %d bytes refused", maxRequestBytes)
		}
		body = b
	}
	if err := t.breaker.Allow(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		resp, err := t.once(req, body)
		t.attempts.Add(1)
		if egress.IsDenied(err) {
			// The operator's policy refused the address: nothing about the endpoint's
			// health, and no retry would be allowed either.
			t.breaker.Release()
			return nil, err
		}
		if req.Context().Err() != nil {
			// The caller gave up: says nothing about the endpoint's health.
			t.breaker.Release()
			return nil, req.Context().Err()
		}
		retryable, wait := t.classify(resp, err, attempt)
		if !retryable {
			t.breaker.Record(err != nil || (resp != nil && resp.StatusCode >= 500))
			return resp, err
		}
		if attempt >= t.cfg.MaxRetries || wait < 0 || !fits(req.Context(), wait) {
			t.breaker.Record(true)
			return resp, err
		}
		if sleepErr := t.sleep(req.Context(), wait); sleepErr != nil {
			t.breaker.Release()
			return nil, sleepErr
		}
	}
}

// once sends one attempt and reads the whole bounded response before its deadline ends.
func (t *retryTransport) once(req *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.cfg.Timeout)
	defer cancel()
	r := req.Clone(ctx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && req.Context().Err() == nil {
			return nil, fmt.Errorf("%w after %s", errAttemptTimeout, t.cfg.Timeout)
		}
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && req.Context().Err() == nil {
			return nil, fmt.Errorf("%w after %s", errAttemptTimeout, t.cfg.Timeout)
		}
		return nil, err
	}
	if len(raw) > maxResponseBytes {
		return nil, fmt.Errorf("model response larger than %d bytes", maxResponseBytes)
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	return resp, nil
}

// classify says whether an attempt is worth repeating and after how long; a negative
// wait means the server asked for longer than MaxRetryDelay.
func (t *retryTransport) classify(resp *http.Response, err error, attempt int) (bool, time.Duration) {
	if err != nil {
		var ne net.Error
		if errors.Is(err, errAttemptTimeout) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return true, t.backoff(attempt)
		}
		return false, 0
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusRequestTimeout, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, 529:
	default:
		return false, 0
	}
	if ra, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		if ra > t.cfg.MaxRetryDelay {
			return true, -1
		}
		return true, ra
	}
	return true, t.backoff(attempt)
}

// backoff is full-jitter exponential: a random wait in [d/2, d], d = base·2^attempt.
func (t *retryTransport) backoff(attempt int) time.Duration {
	d := t.cfg.RetryBaseDelay << min(attempt, 10)
	if d > maxBackoff || d <= 0 {
		d = maxBackoff
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	return min(d, t.cfg.MaxRetryDelay)
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && n < 1e6 {
		return time.Duration(n * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// fits reports whether waiting d still leaves the context time for an attempt.
func fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > d
}
