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
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubage/kubage/internal/text"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Path is where Alertmanager posts its webhook payloads.
const Path = "/alerts/alertmanager"

// Defaults of HandlerOptions.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultMaxInFlight    = 64
	DefaultRequestTimeout = 30 * time.Second
)

// HandlerOptions tune a Handler; zero values take the defaults.
type HandlerOptions struct {
	// MaxBodyBytes bounds a request body (default 1 MiB); larger bodies get 413.
	MaxBodyBytes int64
	// MaxAlerts bounds the alerts in one payload (default 1000).
	MaxAlerts int
	// MaxInFlight bounds requests processed at once (default 64); others wait briefly,
	// then get 503.
	MaxInFlight int
	// RequestTimeout bounds the API writes of one request (default 30s).
	RequestTimeout time.Duration
	// RateLimiter limits requests per client address; nil disables limiting.
	RateLimiter *RateLimiter
}

// Handler serves POST /alerts/alertmanager: it authenticates, bounds and parses the
// request, hands the payload to the Processor, and answers only once the writes are done.
type Handler struct {
	processor *Processor
	token     TokenSource
	opts      HandlerOptions
	inFlight  chan struct{}
}

// NewHandler builds the receiver's HTTP handler.
func NewHandler(p *Processor, token TokenSource, opts HandlerOptions) *Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxAlerts <= 0 {
		opts.MaxAlerts = DefaultMaxAlerts
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	return &Handler{processor: p, token: token, opts: opts, inFlight: make(chan struct{}, opts.MaxInFlight)}
}

// ErrorBody is the JSON body of every 4xx and 5xx answer.
type ErrorBody struct {
	Error   string   `json:"error"`
	Reason  string   `json:"reason"`
	Summary *Summary `json:"summary,omitempty"`
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		requestDuration.Observe(time.Since(start).Seconds())
		requestsTotal.WithLabelValues(strconv.Itoa(rec.code())).Inc()
	}()
	h.serve(rec, r)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		writeError(w, http.StatusNotFound, ReasonNotFound, "no such endpoint; alerts go to POST "+Path)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, ReasonMethodNotAllowed, "use POST")
		return
	}
	if ok, wait := h.opts.RateLimiter.Allow(clientAddress(r), time.Now()); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		writeError(w, http.StatusTooManyRequests, ReasonRateLimited, "too many requests from this address")
		return
	}
	if !h.authorized(w, r) {
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, ReasonUnsupportedMedia, "Content-Type must be application/json")
		return
	}
	if r.ContentLength > h.opts.MaxBodyBytes {
		writeError(w, http.StatusRequestEntityTooLarge, ReasonBodyTooLarge, "body is larger than "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, ReasonBodyTooLarge, "body is larger than "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes")
			return
		}
		writeError(w, http.StatusBadRequest, ReasonMalformedJSON, "reading the body failed")
		return
	}
	payload, err := ParsePayload(body, h.opts.MaxAlerts)
	if err != nil {
		var pe *PayloadError
		if !errors.As(err, &pe) {
			pe = &PayloadError{Reason: ReasonMalformedJSON, Message: "invalid payload"}
		}
		code := http.StatusBadRequest
		if pe.Reason == ReasonTooManyAlerts {
			code = http.StatusRequestEntityTooLarge
		}
		writeError(w, code, pe.Reason, pe.Message)
		return
	}
	h.process(w, r, payload)
}

// authorized checks the bearer token; it answers 401 (or 503 when no token is available)
// itself and returns false when the request must stop.
func (h *Handler) authorized(w http.ResponseWriter, r *http.Request) bool {
	want, err := h.token.Token(r.Context())
	if err != nil {
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusServiceUnavailable, ReasonUnavailable, "the receiver has no usable token configured")
		return false
	}
	got, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok || !tokenEqual(got, want) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="kubage-alerts"`)
		writeError(w, http.StatusUnauthorized, ReasonUnauthorized, "missing or wrong bearer token")
		return false
	}
	return true
}

func (h *Handler) process(w http.ResponseWriter, r *http.Request, payload *Payload) {
	// Wait a little for a slot rather than fail at once: bursts are normal for Alertmanager.
	wait := time.NewTimer(5 * time.Second)
	defer wait.Stop()
	select {
	case h.inFlight <- struct{}{}:
		defer func() { <-h.inFlight }()
	case <-wait.C:
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, ReasonBusy, "too many requests in progress")
		return
	case <-r.Context().Done():
		writeError(w, http.StatusServiceUnavailable, ReasonBusy, "the client went away while waiting")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.RequestTimeout)
	defer cancel()
	ctx = ctrl.LoggerInto(ctx, ctrl.Log.WithName("alerts").WithValues("receiver", text.Clip(payload.Receiver, 64)))
	summary, err := h.processor.Process(ctx, payload)
	var transient *TransientError
	switch {
	case errors.As(err, &transient):
		ctrl.LoggerFrom(ctx).Error(err, "Alert payload not fully recorded; asking the sender to retry")
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, ErrorBody{Error: "some alerts could not be recorded; retry", Reason: ReasonUnavailable, Summary: summary})
	case err != nil:
		writeError(w, http.StatusInternalServerError, ReasonUnavailable, "processing failed")
	case summary.Rejected == summary.Received:
		writeJSON(w, http.StatusUnprocessableEntity, ErrorBody{Error: firstRejection(summary), Reason: ReasonAllRejected, Summary: summary})
	default:
		writeJSON(w, http.StatusOK, summary)
	}
}

func firstRejection(s *Summary) string {
	for _, a := range s.Alerts {
		if a.Outcome == OutcomeRejected {
			return "every alert was rejected; first: " + a.Reason + ": " + a.Message
		}
	}
	return "every alert was rejected"
}

// bearerToken extracts the token of an `Authorization: Bearer <token>` header.
func bearerToken(h string) ([]byte, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, false
	}
	tok = strings.TrimSpace(tok)
	return []byte(tok), tok != ""
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// clientAddress is the connection's IP. Forwarded headers are not trusted: anyone can set
// them, and the limiter's point is to bound what one connection source can do.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func writeError(w http.ResponseWriter, code int, reason, msg string) {
	alertsRejected.WithLabelValues(reason).Inc()
	writeJSON(w, code, ErrorBody{Error: msg, Reason: reason})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// statusRecorder remembers the response code for the metrics.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}
