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
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// StormOptions describe a synthetic alert storm: Alerts firing alerts over Fingerprints
// distinct label sets, sent by Clients concurrent senders, AlertsPerRequest per payload.
type StormOptions struct {
	// URL of the receiver endpoint, e.g. http://127.0.0.1:9090/alerts/alertmanager.
	URL string `json:"-"`
	// Token is the bearer token.
	Token string `json:"-"`
	// Namespace the alerts name in their namespace label.
	Namespace        string `json:"namespace"`
	Alerts           int    `json:"alerts"`
	Fingerprints     int    `json:"fingerprints"`
	Clients          int    `json:"clients"`
	AlertsPerRequest int    `json:"alertsPerRequest"`
	// HTTPClient sends the requests (default: a client with a 60s timeout).
	HTTPClient *http.Client `json:"-"`
}

// StormResult is what the senders saw.
type StormResult struct {
	Requests          int           `json:"requests"`
	Answered          int           `json:"answered"`
	TransportErrors   int           `json:"transportErrors"`
	Codes             map[int]int   `json:"codes"`
	Created           int           `json:"created"`
	Duplicates        int           `json:"duplicates"`
	Elapsed           time.Duration `json:"-"`
	P50               time.Duration `json:"-"`
	P95               time.Duration `json:"-"`
	P99               time.Duration `json:"-"`
	Max               time.Duration `json:"-"`
	ElapsedSeconds    float64       `json:"elapsedSeconds"`
	AlertsPerSecond   float64       `json:"alertsPerSecond"`
	RequestsPerSecond float64       `json:"requestsPerSecond"`
	P50Millis         float64       `json:"p50Ms"`
	P95Millis         float64       `json:"p95Ms"`
	P99Millis         float64       `json:"p99Ms"`
	MaxMillis         float64       `json:"maxMs"`
}

func (o *StormOptions) defaults() {
	if o.Alerts <= 0 {
		o.Alerts = 5000
	}
	if o.Fingerprints <= 0 {
		o.Fingerprints = 200
	}
	if o.Clients <= 0 {
		o.Clients = 20
	}
	if o.AlertsPerRequest <= 0 {
		o.AlertsPerRequest = 1
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients}}
	}
}

// StormPayloads builds the storm's payloads. Alert i carries fingerprint i mod
// Fingerprints, so every label set repeats Alerts/Fingerprints times, interleaved as
// Alertmanager's retries and repeat intervals would interleave them.
func StormPayloads(o StormOptions) ([][]byte, error) {
	o.defaults()
	startsAt := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	var out [][]byte
	for first := 0; first < o.Alerts; first += o.AlertsPerRequest {
		p := Payload{Version: "4", Status: StatusFiring, Receiver: "kubage", GroupKey: "{}:{alertname=\"StormAlert\"}"}
		for i := first; i < first+o.AlertsPerRequest && i < o.Alerts; i++ {
			f := i % o.Fingerprints
			p.Alerts = append(p.Alerts, Alert{
				Status: StatusFiring,
				Labels: map[string]string{
					"alertname": "StormAlert", "namespace": o.Namespace, "severity": "warning",
					"pod": fmt.Sprintf("storm-%d", f),
				},
				Annotations: map[string]string{"summary": "Synthetic alert of the storm benchmark.", "runbook_url": "https://example.com/runbooks/storm"},
				StartsAt:    startsAt.Add(time.Duration(f) * time.Second),
				Fingerprint: fmt.Sprintf("%016x", 0x5707_0000_0000_0000+uint64(f)),
			})
		}
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// RunStorm sends the storm and measures it from the senders' side.
func RunStorm(ctx context.Context, o StormOptions) (StormResult, error) {
	o.defaults()
	if o.URL == "" || o.Namespace == "" {
		return StormResult{}, errors.New("storm needs a URL and a namespace")
	}
	payloads, err := StormPayloads(o)
	if err != nil {
		return StormResult{}, err
	}
	work := make(chan []byte)
	type sample struct {
		d       time.Duration
		code    int
		summary Summary
		err     bool
	}
	samples := make(chan sample, len(payloads))
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < o.Clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for body := range work {
				t0 := time.Now()
				s := sample{}
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL, bytes.NewReader(body))
				if err == nil {
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+o.Token)
					var res *http.Response
					if res, err = o.HTTPClient.Do(req); err == nil {
						s.code = res.StatusCode
						if res.StatusCode == http.StatusOK {
							_ = json.NewDecoder(io.LimitReader(res.Body, 4<<20)).Decode(&s.summary)
						}
						_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 4<<20))
						_ = res.Body.Close()
					}
				}
				s.d, s.err = time.Since(t0), err != nil
				samples <- s
			}
		}()
	}
	for _, p := range payloads {
		select {
		case work <- p:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	close(samples)

	r := StormResult{Requests: len(payloads), Codes: map[int]int{}, Elapsed: time.Since(start)}
	lat := make([]time.Duration, 0, len(payloads))
	for s := range samples {
		if s.err {
			r.TransportErrors++
			continue
		}
		r.Answered++
		r.Codes[s.code]++
		r.Created += s.summary.Created
		r.Duplicates += s.summary.Duplicates
		lat = append(lat, s.d)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	r.P50, r.P95, r.P99, r.Max = pct(0.50), pct(0.95), pct(0.99), pct(1)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	r.P50Millis, r.P95Millis, r.P99Millis, r.MaxMillis = ms(r.P50), ms(r.P95), ms(r.P99), ms(r.Max)
	r.ElapsedSeconds = r.Elapsed.Seconds()
	if secs := r.Elapsed.Seconds(); secs > 0 {
		r.AlertsPerSecond = float64(o.Alerts) / secs
		r.RequestsPerSecond = float64(r.Requests) / secs
	}
	return r, ctx.Err()
}

// IntakeOptions choose how the benchmarked receiver stores sessions.
type IntakeOptions struct {
	// Journal makes the receiver answer once a session is in its journal (a temporary
	// directory), with Workers creating the sessions; otherwise it creates them first.
	Journal bool `json:"journal"`
	Workers int  `json:"workers,omitempty"`
}

// BenchResult is one storm against a receiver running in this process.
type BenchResult struct {
	Options        StormOptions  `json:"options"`
	Intake         IntakeOptions `json:"intake"`
	Storm          StormResult   `json:"storm"`
	Sessions       int           `json:"sessions"`
	APIWrites      int64         `json:"apiWrites"`
	WritesPerAlert float64       `json:"writesPerAlert"`
	// AllSessionsSeconds is the time from the storm's first request until every accepted
	// session existed in the API server.
	AllSessionsSeconds float64 `json:"allSessionsSeconds"`
	// FingerprintsWithSessions counts the fingerprints with at least one session, and
	// DuplicateSessions the sessions beyond the first of a fingerprint: after a storm of
	// one occurrence per fingerprint they are Fingerprints and 0.
	FingerprintsWithSessions int  `json:"fingerprintsWithSessions"`
	DuplicateSessions        int  `json:"duplicateSessions"`
	ExactlyOnePerFingerprint bool `json:"exactlyOnePerFingerprint"`
}

// BenchIntake starts a receiver on loopback against the API server of cfg (envtest or a
// real cluster with the CRDs installed), sends a storm into a fresh namespace, and counts
// the sessions it created. For `make bench`: vary Fingerprints to vary the ratio of
// distinct alerts.
func BenchIntake(ctx context.Context, cfg *rest.Config, o StormOptions, iopts IntakeOptions) (BenchResult, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return BenchResult{}, err
	}
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		return BenchResult{}, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return BenchResult{}, err
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	o.Namespace = "kubage-bench-" + hex.EncodeToString(suffix)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.Namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return BenchResult{}, err
	}
	token := hex.EncodeToString(append(suffix, suffix...)) + "-bench-token"
	pol, err := DefaultPolicy().Compile()
	if err != nil {
		return BenchResult{}, err
	}
	srvCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	// The receiver is wired as the manager wires it: the cooldown read from a metadata
	// cache of the alert sessions, and optionally the journal.
	sessions, err := NewSessionCache(ctx, cfg, scheme)
	if err != nil {
		return BenchResult{}, err
	}
	wg.Go(func() { _ = sessions.Start(srvCtx) })
	if !sessions.WaitForCacheSync(ctx) {
		return BenchResult{}, errors.New("the alert session cache did not sync")
	}
	popts := ProcessorOptions{Sessions: sessions, SessionsIndexed: true, Workers: iopts.Workers}
	if iopts.Journal {
		dir, err := os.MkdirTemp("", "kubage-alert-journal-")
		if err != nil {
			return BenchResult{}, err
		}
		defer func() { _ = os.RemoveAll(dir) }()
		if popts.Journal, err = OpenJournal(dir); err != nil {
			return BenchResult{}, err
		}
	}
	proc := NewProcessor(c, c, StaticPolicy{P: pol}, popts)
	wg.Go(func() { _ = proc.Start(srvCtx) })
	srv := NewServer(NewHandler(proc, StaticToken(token), HandlerOptions{}), ServerOptions{Address: "127.0.0.1:0"})
	wg.Go(func() { _ = srv.Start(srvCtx) })
	addr := srv.Addr(ctx)
	if addr == nil {
		return BenchResult{}, errors.New("receiver did not start")
	}
	o.URL, o.Token = "http://"+addr.String()+Path, token
	start := time.Now()
	storm, err := RunStorm(ctx, o)
	if err != nil {
		return BenchResult{}, err
	}
	for proc.Pending() > 0 {
		select {
		case <-ctx.Done():
			return BenchResult{}, fmt.Errorf("%d sessions still pending: %w", proc.Pending(), ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	allSessions := time.Since(start)
	list := sessionMetadataList()
	if err := c.List(ctx, list, client.InNamespace(o.Namespace)); err != nil {
		return BenchResult{}, err
	}
	o.defaults()
	res := BenchResult{Options: o, Intake: iopts, Storm: storm, Sessions: len(list.Items), APIWrites: proc.Writes(),
		AllSessionsSeconds: allSessions.Seconds()}
	res.WritesPerAlert = float64(res.APIWrites) / float64(o.Alerts)
	perFingerprint := map[string]int{}
	for _, ts := range list.Items {
		perFingerprint[ts.Labels[LabelAlertFingerprint]]++
	}
	res.FingerprintsWithSessions = len(perFingerprint)
	res.DuplicateSessions = len(list.Items) - len(perFingerprint)
	res.ExactlyOnePerFingerprint = res.FingerprintsWithSessions == o.Fingerprints && res.DuplicateSessions == 0
	return res, nil
}
