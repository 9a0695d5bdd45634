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

// Package notify delivers notifications about KubAge's findings to Slack, signed webhooks
// and CloudEvents receivers: it encodes messages, signs them, rate-limits each sink, sends
// through the egress guard with credentials redacted, and keeps the outbox of deliveries
// that an object's status persists so that an operator restart neither loses nor repeats one.
package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/egress"
	"github.com/kubage/kubage/internal/redact"
)

// Headers of Webhook and CloudEvents deliveries.
const (
	// HeaderDelivery carries the message id, the same on every attempt.
	HeaderDelivery = "X-Kubage-Delivery"
	// HeaderTimestamp is the Unix time the signature covers.
	HeaderTimestamp = "X-Kubage-Timestamp"
	// HeaderSignature is "sha256=" + hex(HMAC-SHA256(key, timestamp + "." + body)).
	HeaderSignature = "X-Kubage-Signature"
)

// Events a message may be about.
const (
	EventNewProblem      = kubagev1alpha1.NewProblemReason
	EventProblemResolved = kubagev1alpha1.ProblemResolvedReason
	// EventSessionCompleted and EventSessionFailed tell a Troubleshoot's outcome (spec.notify).
	EventSessionCompleted = kubagev1alpha1.SessionCompletedEvent
	EventSessionFailed    = kubagev1alpha1.SessionFailedEvent
)

// maxResponse bounds what is read of a sink's answer (for the error message).
const maxResponse = 4 << 10

// Sink is a NotificationSink with its Secrets read.
type Sink struct {
	Name       string
	Type       kubagev1alpha1.SinkType
	URL        string
	Token      string
	SigningKey string
	MaxPerHour int32
}

// Message is one notification, built only from what an object's status persists.
type Message struct {
	ID string
	// Event is EventNewProblem or EventProblemResolved (a schedule), EventSessionCompleted or
	// EventSessionFailed (a Troubleshoot).
	Event string
	// Kind, Namespace and Name identify the object the message is about (a TroubleshootSchedule
	// or a Troubleshoot).
	Kind, Namespace, Name string
	// Troubleshoot is the run that found (or no longer found) the problem.
	Troubleshoot string
	Problem      *kubagev1alpha1.ScheduledProblem
	Time         time.Time
}

// Document is the JSON a Webhook sink receives and the data of a CloudEvent.
type Document struct {
	ID           string    `json:"id"`
	Event        string    `json:"event"`
	Kind         string    `json:"kind"`
	Namespace    string    `json:"namespace"`
	Name         string    `json:"name"`
	Troubleshoot string    `json:"troubleshoot,omitempty"`
	Time         time.Time `json:"time"`
	Problem      *Problem  `json:"problem,omitempty"`
}

// Problem is the part of a Document that describes the root cause.
type Problem struct {
	Fingerprint string `json:"fingerprint"`
	Category    string `json:"category,omitempty"`
	Summary     string `json:"summary,omitempty"`
}

// document builds the Document of m with credentials removed from the free text.
func document(m Message) Document {
	d := Document{ID: m.ID, Event: m.Event, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, Troubleshoot: m.Troubleshoot, Time: m.Time.UTC()}
	if m.Problem != nil {
		d.Problem = &Problem{Fingerprint: m.Problem.Fingerprint, Category: m.Problem.Category, Summary: redact.Default().Secrets(m.Problem.Summary)}
	}
	return d
}

// Sign returns the X-Kubage-Signature value for body sent at timestamp ts.
func Sign(key []byte, ts string, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks a signature as a receiver would, in constant time.
func Verify(key []byte, ts string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(key, ts, body)), []byte(signature))
}

// Encode builds the request body and headers of m for sink s at time now.
func Encode(s Sink, m Message, now time.Time) ([]byte, http.Header, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "kubage")
	doc := document(m)
	var body []byte
	var err error
	switch s.Type {
	case kubagev1alpha1.SinkSlack:
		body, err = json.Marshal(slackMessage(doc))
	case kubagev1alpha1.SinkWebhook:
		body, err = json.Marshal(doc)
		h.Set(HeaderDelivery, m.ID)
		if s.SigningKey != "" {
			ts := strconv.FormatInt(now.Unix(), 10)
			h.Set(HeaderTimestamp, ts)
			h.Set(HeaderSignature, Sign([]byte(s.SigningKey), ts, body))
		}
	case kubagev1alpha1.SinkCloudEvents:
		// Binary content mode: the attributes travel as ce- headers, the data as the body.
		body, err = json.Marshal(doc)
		h.Set("Ce-Specversion", "1.0")
		h.Set("Ce-Id", m.ID)
		h.Set("Ce-Source", fmt.Sprintf("/apis/kubage.io/v1alpha1/namespaces/%s/%ss/%s", m.Namespace, strings.ToLower(m.Kind), m.Name))
		h.Set("Ce-Type", "io.kubage."+strings.ToLower(m.Event))
		h.Set("Ce-Time", m.Time.UTC().Format(time.RFC3339))
		if m.Troubleshoot != "" {
			h.Set("Ce-Subject", m.Troubleshoot)
		}
		h.Set(HeaderDelivery, m.ID)
	default:
		return nil, nil, fmt.Errorf("unknown sink type %q", s.Type)
	}
	if err != nil {
		return nil, nil, err
	}
	if s.Token != "" && s.Type != kubagev1alpha1.SinkSlack {
		h.Set("Authorization", "Bearer "+s.Token)
	}
	return body, h, nil
}

// slackMessage is a Block Kit message with a plain-text fallback.
func slackMessage(d Document) map[string]any {
	title := fmt.Sprintf("New problem in %s/%s", d.Namespace, d.Name)
	text := "The scheduled check found a problem."
	switch d.Event {
	case EventProblemResolved:
		title = fmt.Sprintf("Resolved in %s/%s", d.Namespace, d.Name)
		text = "The scheduled check found no problem any more."
	case EventSessionCompleted:
		title = fmt.Sprintf("Troubleshoot %s/%s concluded", d.Namespace, d.Name)
		text = "The session completed without naming a root cause."
	case EventSessionFailed:
		title = fmt.Sprintf("Troubleshoot %s/%s failed", d.Namespace, d.Name)
		text = "The session failed."
	}
	if d.Problem != nil {
		if d.Problem.Category != "" {
			title += ": " + d.Problem.Category
		}
		if d.Problem.Summary != "" {
			text = d.Problem.Summary
		}
	}
	context := fmt.Sprintf("%s `%s/%s`", d.Kind, d.Namespace, d.Name)
	if d.Troubleshoot != "" {
		context += fmt.Sprintf(" · run `%s`", d.Troubleshoot)
	}
	if d.Problem != nil {
		context += fmt.Sprintf(" · fingerprint `%s`", d.Problem.Fingerprint)
	}
	return map[string]any{
		"text": title + ": " + text,
		"blocks": []any{
			map[string]any{"type": "header", "text": map[string]any{"type": "plain_text", "text": clip(title, 150)}},
			map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": clip(text, 3000)}},
			map[string]any{"type": "context", "elements": []any{map[string]any{"type": "mrkdwn", "text": clip(context, 3000)}}},
		},
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// PermanentError is a failure that retrying will not fix: the sink refused the message
// (a 4xx other than 408 and 429), the egress guard refused the address, or the sink is misconfigured.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err should not be retried.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p) || egress.IsDenied(err)
}

// Sender sends messages and rate-limits each sink. It is safe for concurrent use.
type Sender struct {
	// Client sends the requests; a guarded client with a 10s timeout when nil.
	Client *http.Client

	mu       sync.Mutex
	limiters map[string]*limiter
}

type limiter struct {
	perHour int32
	lim     *rate.Limiter
}

// Wait returns how long sink key must wait before its next message, taking the turn when it is zero.
func (s *Sender) Wait(key string, perHour int32, now time.Time) time.Duration {
	if perHour <= 0 {
		perHour = 60
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limiters == nil {
		s.limiters = map[string]*limiter{}
	}
	l, ok := s.limiters[key]
	if !ok || l.perHour != perHour {
		l = &limiter{perHour: perHour, lim: rate.NewLimiter(rate.Limit(float64(perHour)/3600), int(min(perHour, 10)))}
		s.limiters[key] = l
	}
	r := l.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d
	}
	return 0
}

// Send delivers m to s once; nil means the sink answered 2xx.
func (s *Sender) Send(ctx context.Context, sink Sink, m Message, now time.Time) error {
	u, err := url.Parse(sink.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &PermanentError{Err: errors.New("the sink URL is not an http(s) URL")}
	}
	body, h, err := Encode(sink, m, now)
	if err != nil {
		return &PermanentError{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sink.URL, bytes.NewReader(body))
	if err != nil {
		return &PermanentError{Err: errors.New("the sink URL cannot be requested")}
	}
	req.Header = h
	c := s.Client
	if c == nil {
		c = egress.NewHTTPClient(10 * time.Second)
	}
	resp, err := c.Do(req)
	if err != nil {
		// The error quotes the URL, which for Slack is the credential itself.
		return redacted(err, sink)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	err = fmt.Errorf("the sink answered %s: %s", resp.Status, strings.TrimSpace(redact.Default().Secrets(string(answer))))
	if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
		return &PermanentError{Err: err}
	}
	return err
}

// redacted rewrites a transport error without the sink's URL, keeping whether it is permanent.
func redacted(err error, sink Sink) error {
	msg := strings.ReplaceAll(err.Error(), sink.URL, "<sink url>")
	if u, perr := url.Parse(sink.URL); perr == nil && u.RawQuery != "" {
		msg = strings.ReplaceAll(msg, u.RawQuery, "<redacted>")
	}
	out := errors.New(redact.Default().Secrets(msg))
	if egress.IsDenied(err) {
		return &PermanentError{Err: fmt.Errorf("%w (%w)", out, errEgressDenied)}
	}
	return out
}

// errEgressDenied marks a refusal by the egress guard.
var errEgressDenied = errors.New("egress denied")

// IsEgressDenied reports whether err is the egress guard's refusal.
func IsEgressDenied(err error) bool { return errors.Is(err, errEgressDenied) || egress.IsDenied(err) }
