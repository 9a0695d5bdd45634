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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

const testToken = "s3cret-token-for-tests-0123456789"

func testScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := kubagev1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeReceiver serves a Handler over a fake API with the namespace "shop".
func fakeReceiver(t *testing.T, opts HandlerOptions, funcs *interceptor.Funcs) (*httptest.Server, client.Client) {
	t.Helper()
	b := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}})
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	c := b.Build()
	proc := NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, DefaultPolicy())}, ProcessorOptions{})
	srv := httptest.NewServer(NewHandler(proc, StaticToken(testToken), opts))
	t.Cleanup(srv.Close)
	return srv, c
}

type response struct {
	code    int
	header  http.Header
	errBody ErrorBody
	summary Summary
}

func post(t testing.TB, url, token, contentType string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	r := response{code: res.StatusCode, header: res.Header}
	if res.StatusCode >= 400 {
		if err := json.Unmarshal(raw, &r.errBody); err != nil || r.errBody.Reason == "" || r.errBody.Error == "" {
			t.Fatalf("%d without a JSON error body: %q", res.StatusCode, raw)
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("error Content-Type %q", ct)
		}
	} else if err := json.Unmarshal(raw, &r.summary); err != nil {
		t.Fatalf("200 without a JSON summary: %q", raw)
	}
	return r
}

func countSessions(t testing.TB, c client.Reader, ns string) int {
	t.Helper()
	var list kubagev1alpha1.TroubleshootList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

func TestHandlerBadRequests(t *testing.T) {
	srv, c := fakeReceiver(t, HandlerOptions{}, nil)
	url := srv.URL + Path
	good := string(readTestdata(t, "crashloop_firing.json"))
	tenMB := `{"version":"4","status":"firing","receiver":"` + strings.Repeat("x", 10<<20) + `","alerts":[]}`
	for _, tc := range []struct {
		name        string
		method      string
		path        string
		token       string
		contentType string
		body        io.Reader
		code        int
		reason      string
	}{
		{"wrong method", http.MethodGet, Path, testToken, "", nil, http.StatusMethodNotAllowed, ReasonMethodNotAllowed},
		{"wrong path", http.MethodPost, "/alerts", testToken, "application/json", strings.NewReader(good), http.StatusNotFound, ReasonNotFound},
		{"no token", http.MethodPost, Path, "", "application/json", strings.NewReader(good), http.StatusUnauthorized, ReasonUnauthorized},
		{"wrong token", http.MethodPost, Path, testToken + "x", "application/json", strings.NewReader(good), http.StatusUnauthorized, ReasonUnauthorized},
		{"token prefix", http.MethodPost, Path, testToken[:10], "application/json", strings.NewReader(good), http.StatusUnauthorized, ReasonUnauthorized},
		{"wrong content type", http.MethodPost, Path, testToken, "text/plain", strings.NewReader(good), http.StatusUnsupportedMediaType, ReasonUnsupportedMedia},
		{"no content type", http.MethodPost, Path, testToken, "", strings.NewReader(good), http.StatusUnsupportedMediaType, ReasonUnsupportedMedia},
		{"10 MB body", http.MethodPost, Path, testToken, "application/json", strings.NewReader(tenMB), http.StatusRequestEntityTooLarge, ReasonBodyTooLarge},
		{"10 MB body, chunked", http.MethodPost, Path, testToken, "application/json", io.MultiReader(strings.NewReader(tenMB)), http.StatusRequestEntityTooLarge, ReasonBodyTooLarge},
		{"malformed JSON", http.MethodPost, Path, testToken, "application/json", strings.NewReader(good[:100]), http.StatusBadRequest, ReasonMalformedJSON},
		{"wrong version", http.MethodPost, Path, testToken, "application/json", strings.NewReader(strings.Replace(good, `"version": "4"`, `"version": "5"`, 1)), http.StatusBadRequest, ReasonUnsupportedVersion},
		{"missing fields", http.MethodPost, Path, testToken, "application/json", strings.NewReader(`{"version":"4","status":"firing"}`), http.StatusBadRequest, ReasonMissingField},
		{"unknown namespace", http.MethodPost, Path, testToken, "application/json; charset=utf-8", strings.NewReader(strings.ReplaceAll(good, `"namespace": "shop"`, `"namespace": "nowhere"`)), http.StatusUnprocessableEntity, ReasonAllRejected},
		{"invalid namespace", http.MethodPost, Path, testToken, "application/json", strings.NewReader(strings.ReplaceAll(good, `"namespace": "shop"`, `"namespace": "Shop_1"`)), http.StatusUnprocessableEntity, ReasonAllRejected},
		{"control characters", http.MethodPost, Path, testToken, "application/json", strings.NewReader(strings.Replace(good, `"pod": "checkout`, `"pod": "\u0000checkout`, 1)), http.StatusUnprocessableEntity, ReasonAllRejected},
		{"bidi override", http.MethodPost, Path, testToken, "application/json", strings.NewReader(strings.Replace(good, `"pod": "checkout`, `"pod": "\u202echeckout`, 1)), http.StatusUnprocessableEntity, ReasonAllRejected},
		{"invalid target name", http.MethodPost, Path, testToken, "application/json", strings.NewReader(strings.Replace(good, `"pod": "checkout`, `"pod": "Checkout_`, 1)), http.StatusUnprocessableEntity, ReasonAllRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var eb ErrorBody
			if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&eb); err != nil {
				t.Fatalf("%d without JSON body: %v", res.StatusCode, err)
			}
			if res.StatusCode != tc.code || eb.Reason != tc.reason || eb.Error == "" {
				t.Fatalf("got %d %+v, want %d %s", res.StatusCode, eb, tc.code, tc.reason)
			}
			if tc.code == http.StatusMethodNotAllowed && res.Header.Get("Allow") != http.MethodPost {
				t.Error("405 without Allow: POST")
			}
			if tc.code == http.StatusUnauthorized && res.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			if tc.reason == ReasonAllRejected && (eb.Summary == nil || eb.Summary.Rejected != 1 || eb.Summary.Alerts[0].Reason == "") {
				t.Errorf("422 without the per-alert reason: %+v", eb.Summary)
			}
		})
	}
	if n := countSessions(t, c, ""); n != 0 {
		t.Fatalf("bad requests created %d sessions", n)
	}
	_ = url
}

func TestHandlerCreatesThenDeduplicatesThenResolves(t *testing.T) {
	srv, c := fakeReceiver(t, HandlerOptions{}, nil)
	url := srv.URL + Path
	firing := readTestdata(t, "crashloop_firing.json")

	r := post(t, url, testToken, "application/json", bytes.NewReader(firing))
	if r.code != http.StatusOK || r.summary.Created != 1 || r.summary.Alerts[0].Outcome != OutcomeCreated {
		t.Fatalf("first delivery: %d %+v", r.code, r.summary)
	}
	name := r.summary.Alerts[0].Session
	for i := 0; i < 3; i++ {
		r = post(t, url, testToken, "application/json", bytes.NewReader(firing))
		if r.code != http.StatusOK || r.summary.Duplicates != 1 || r.summary.Alerts[0].Session != name {
			t.Fatalf("repeat %d: %d %+v", i, r.code, r.summary)
		}
	}
	r = post(t, url, testToken, "application/json", bytes.NewReader(readTestdata(t, "crashloop_resolved.json")))
	if r.code != http.StatusOK || r.summary.Resolved != 1 {
		t.Fatalf("resolved: %d %+v", r.code, r.summary)
	}
	var ts kubagev1alpha1.Troubleshoot
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: name}, &ts); err != nil {
		t.Fatal(err)
	}
	if ts.Labels[LabelAlertStatus] != StatusResolved || ts.Annotations[AnnotationResolvedAt] != "2026-03-14T10:01:53Z" {
		t.Fatalf("resolution not recorded: labels %v annotations %v", ts.Labels, ts.Annotations)
	}
	// Firing again after resolution (a late retry) must not open a second session.
	r = post(t, url, testToken, "application/json", bytes.NewReader(firing))
	if r.code != http.StatusOK || r.summary.Duplicates != 1 || countSessions(t, c, "shop") != 1 {
		t.Fatalf("late retry: %d %+v", r.code, r.summary)
	}
}

func TestHandlerGroupedPayload(t *testing.T) {
	srv, c := fakeReceiver(t, HandlerOptions{}, nil)
	r := post(t, srv.URL+Path, testToken, "application/json", bytes.NewReader(readTestdata(t, "group_firing.json")))
	// Deployment and Job created; the node alert has no namespace; Watchdog is excluded.
	if r.code != http.StatusOK || r.summary.Created != 2 || r.summary.Rejected != 1 || r.summary.Skipped != 1 {
		t.Fatalf("%d %+v", r.code, r.summary)
	}
	if got := r.summary.Alerts[2]; got.Outcome != OutcomeRejected || got.Reason != ReasonNoNamespace {
		t.Errorf("node alert: %+v", got)
	}
	if got := r.summary.Alerts[3]; got.Outcome != OutcomeSkipped || got.Reason != ReasonPolicyExcluded {
		t.Errorf("watchdog: %+v", got)
	}
	if n := countSessions(t, c, "shop"); n != 2 {
		t.Fatalf("%d sessions", n)
	}
}

func TestHandlerResolvedWithoutSession(t *testing.T) {
	srv, c := fakeReceiver(t, HandlerOptions{}, nil)
	r := post(t, srv.URL+Path, testToken, "application/json", bytes.NewReader(readTestdata(t, "crashloop_resolved.json")))
	if r.code != http.StatusOK || r.summary.ResolvedNoSession != 1 || countSessions(t, c, "") != 0 {
		t.Fatalf("%d %+v", r.code, r.summary)
	}
}

func TestHandlerRateLimit(t *testing.T) {
	srv, _ := fakeReceiver(t, HandlerOptions{RateLimiter: NewRateLimiter(0.5, 2)}, nil)
	body := readTestdata(t, "crashloop_resolved.json")
	for i := 0; i < 2; i++ {
		if r := post(t, srv.URL+Path, testToken, "application/json", bytes.NewReader(body)); r.code != http.StatusOK {
			t.Fatalf("request %d in the burst: %d", i, r.code)
		}
	}
	// Wrong tokens are throttled too, so the limiter also slows guessing.
	r := post(t, srv.URL+Path, "wrong-token-wrong-token", "application/json", bytes.NewReader(body))
	if r.code != http.StatusTooManyRequests || r.errBody.Reason != ReasonRateLimited {
		t.Fatalf("over the limit: %d %+v", r.code, r.errBody)
	}
	if ra := r.header.Get("Retry-After"); ra != "2" {
		t.Fatalf("Retry-After %q, want 2 (one token at 0.5/s)", ra)
	}
}

func TestHandlerTransientErrorsAskForRetry(t *testing.T) {
	failing := true
	funcs := &interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if failing {
			return apierrors.NewServiceUnavailable("etcd is sad")
		}
		return c.Create(ctx, obj, opts...)
	}}
	srv, c := fakeReceiver(t, HandlerOptions{}, funcs)
	body := readTestdata(t, "crashloop_firing.json")
	r := post(t, srv.URL+Path, testToken, "application/json", bytes.NewReader(body))
	if r.code != http.StatusServiceUnavailable || r.errBody.Reason != ReasonUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("API failure: %d %+v", r.code, r.errBody)
	}
	failing = false
	r = post(t, srv.URL+Path, testToken, "application/json", bytes.NewReader(body))
	if r.code != http.StatusOK || r.summary.Created != 1 || countSessions(t, c, "shop") != 1 {
		t.Fatalf("retry: %d %+v", r.code, r.summary)
	}
}

func TestHandlerWithoutUsableToken(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).Build()
	proc := NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, DefaultPolicy())}, ProcessorOptions{})
	srv := httptest.NewServer(NewHandler(proc, StaticToken("short"), HandlerOptions{}))
	defer srv.Close()
	r := post(t, srv.URL+Path, "short", "application/json", bytes.NewReader(readTestdata(t, "crashloop_firing.json")))
	if r.code != http.StatusServiceUnavailable {
		t.Fatalf("a too-short configured token must not authenticate anyone: %d", r.code)
	}
}

func TestCooldownSkipsNewOccurrence(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}).Build()
	now := testNow
	proc := NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, DefaultPolicy())}, ProcessorOptions{Now: func() time.Time { return now }})
	p := parseFile(t, "crashloop_firing.json")
	ctx := context.Background()
	if s, err := proc.Process(ctx, p); err != nil || s.Created != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	// The alert flaps: same labels, new startsAt, ten minutes later.
	p.Alerts[0].StartsAt = p.Alerts[0].StartsAt.Add(10 * time.Minute)
	now = now.Add(10 * time.Minute)
	if s, err := proc.Process(ctx, p); err != nil || s.Skipped != 1 || s.Alerts[0].Reason != ReasonCooldown {
		t.Fatalf("inside the cooldown: %+v %v", s, err)
	}
	now = now.Add(defaultCooldown)
	if s, err := proc.Process(ctx, p); err != nil || s.Created != 1 {
		t.Fatalf("after the cooldown: %+v %v", s, err)
	}
	if n := countSessions(t, c, "shop"); n != 2 {
		t.Fatalf("%d sessions", n)
	}
}

func TestCooldownSurvivesRestartAndHoldsAcrossReplicas(t *testing.T) {
	now := testNow
	// The API server stamps creation times; the fake client does not, so the test does.
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}).
		WithIndex(&kubagev1alpha1.Troubleshoot{}, FingerprintIndex, IndexFingerprint).
		WithInterceptorFuncs(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			o.SetCreationTimestamp(metav1.NewTime(now))
			return c.Create(ctx, o, opts...)
		}}).Build()
	replica := func() *Processor {
		return NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, DefaultPolicy())},
			ProcessorOptions{Now: func() time.Time { return now }, Sessions: c, SessionsIndexed: true})
	}
	p := parseFile(t, "crashloop_firing.json")
	ctx := context.Background()
	if s, err := replica().Process(ctx, p); err != nil || s.Created != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	// A restarted replica (empty memory) meets the same occurrence: a duplicate.
	if s, err := replica().Process(ctx, p); err != nil || s.Duplicates != 1 {
		t.Fatalf("same occurrence after a restart: %+v %v", s, err)
	}
	// The alert flaps ten minutes later and reaches another fresh replica: still cooling down.
	p.Alerts[0].StartsAt = p.Alerts[0].StartsAt.Add(10 * time.Minute)
	now = now.Add(10 * time.Minute)
	if s, err := replica().Process(ctx, p); err != nil || s.Skipped != 1 || s.Alerts[0].Reason != ReasonCooldown {
		t.Fatalf("inside the cooldown after a restart: %+v %v", s, err)
	}
	now = now.Add(defaultCooldown)
	if s, err := replica().Process(ctx, p); err != nil || s.Created != 1 {
		t.Fatalf("after the cooldown: %+v %v", s, err)
	}
	if n := countSessions(t, c, "shop"); n != 2 {
		t.Fatalf("%d sessions", n)
	}
}

func TestProcessorReportsForbiddenAndInvalid(t *testing.T) {
	for _, tc := range []struct {
		err    error
		reason string
	}{
		{apierrors.NewForbidden(schema.GroupResource{Resource: "troubleshoots"}, "x", errors.New("namespace is terminating")), ReasonForbidden},
		{apierrors.NewInvalid(schema.GroupKind{Group: "kubage.io", Kind: "Troubleshoot"}, "x", nil), ReasonInvalidObject},
	} {
		funcs := &interceptor.Funcs{Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error { return tc.err }}
		srv, _ := fakeReceiver(t, HandlerOptions{}, funcs)
		r := post(t, srv.URL+Path, testToken, "application/json", bytes.NewReader(readTestdata(t, "crashloop_firing.json")))
		if r.code != http.StatusUnprocessableEntity || r.errBody.Summary == nil || r.errBody.Summary.Alerts[0].Reason != tc.reason {
			t.Fatalf("%v: %d %+v", tc.err, r.code, r.errBody)
		}
	}
}
