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

package mcp

import (
	"context"
	"io"
	"mime"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubage/kubage/internal/egress"
)

// observer records what the HTTP layer saw during one operation (or one
// session's long-lived stream): the last error status and whether the size cap
// was hit. mcp-go turns both into generic errors, so classification reads them here.
type observer struct {
	limit    int64
	status   atomic.Int32
	tooLarge atomic.Bool
	tripOnce sync.Once
	onTrip   func()
}

func (o *observer) trip() {
	o.tooLarge.Store(true)
	o.tripOnce.Do(func() {
		if o.onTrip != nil {
			o.onTrip()
		}
	})
}

type observerKey struct{}

// withObserver makes requests sent under ctx report to o.
func withObserver(ctx context.Context, o *observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observerFrom(ctx context.Context) *observer {
	o, _ := ctx.Value(observerKey{}).(*observer)
	return o
}

// boundedTransport caps every response body and records error statuses.
type boundedTransport struct {
	base     http.RoundTripper
	limit    int64
	fallback *observer
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	obs := observerFrom(req.Context())
	if obs == nil {
		obs = t.fallback
	}
	if resp.StatusCode >= 400 && obs != nil {
		obs.status.Store(int32(resp.StatusCode))
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &limitedBody{
		rc:        resp.Body,
		limit:     t.limit,
		perEvent:  mediaType == "text/event-stream",
		observer:  obs,
		remaining: t.limit,
	}
	return resp, nil
}

// limitedBody fails with ErrResponseTooLarge once more than limit bytes were
// read. On an event stream the budget is per event (reset at each blank line),
// so a long-lived SSE stream is not cut for carrying many small messages.
type limitedBody struct {
	rc        io.ReadCloser
	limit     int64
	remaining int64
	perEvent  bool
	prevNL    bool
	observer  *observer
	err       error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if !b.perEvent {
		if b.remaining <= 0 {
			// Over the cap unless the body ends exactly here.
			var one [1]byte
			m, err := b.rc.Read(one[:])
			if m > 0 {
				return 0, b.fail()
			}
			if err != nil {
				b.err = err
			}
			return 0, err
		}
		if int64(len(p)) > b.remaining {
			p = p[:b.remaining]
		}
		n, err := b.rc.Read(p)
		b.remaining -= int64(n)
		return n, err
	}
	n, err := b.rc.Read(p)
	for i := 0; i < n; i++ {
		switch c := p[i]; {
		case c == '\r':
			continue
		case c == '\n':
			if b.prevNL {
				b.remaining = b.limit
			}
			b.prevNL = true
		default:
			b.prevNL = false
		}
		b.remaining--
		if b.remaining < 0 {
			return i, b.fail()
		}
	}
	return n, err
}

func (b *limitedBody) fail() error {
	b.err = ErrResponseTooLarge
	if b.observer != nil {
		b.observer.trip()
	}
	_ = b.rc.Close()
	return b.err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// newHTTPClient returns a client whose connections are bounded in time (dial,
// TLS, response headers) and whose responses are bounded in size. Whole requests
// are bounded by their contexts, not by http.Client.Timeout, which would also
// cut SSE streams that are meant to stay open.
func newHTTPClient(base http.RoundTripper, timeout time.Duration, limit int64, fallback *observer) *http.Client {
	if base == nil {
		dial := min(timeout, 10*time.Second)
		base = &http.Transport{
			// Dialed through the egress guard; no proxy, which would dial out of its sight.
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				ctx, cancel := context.WithTimeout(ctx, dial)
				defer cancel()
				return egress.DialContext(ctx, network, addr)
			},
			TLSHandshakeTimeout:   dial,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
			ForceAttemptHTTP2:     true,
		}
	}
	return &http.Client{Transport: &boundedTransport{base: base, limit: limit, fallback: fallback}, CheckRedirect: egress.CheckRedirect}
}
