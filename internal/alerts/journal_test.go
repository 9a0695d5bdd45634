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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

func journalSession(i int) *kubagev1alpha1.Troubleshoot {
	ts := &kubagev1alpha1.Troubleshoot{}
	ts.Namespace, ts.Name = "shop", fmt.Sprintf("alert-s-%d", i)
	ts.Labels = map[string]string{LabelAlertFingerprint: fmt.Sprintf("%016x", i)}
	ts.Spec.Problem = fmt.Sprintf("problem %d", i)
	return ts
}

func pendingNames(j *Journal) []string {
	sessions, _ := j.Pending()
	var out []string
	for _, ts := range sessions {
		out = append(out, ts.Name)
	}
	return out
}

func TestJournalReplaysWhatWasNotFinished(t *testing.T) {
	dir := t.TempDir()
	j, err := OpenJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := testNow
	for i := range 4 {
		if err := j.Accept(journalSession(i), at); err != nil {
			t.Fatal(err)
		}
	}
	j.Finish("shop", "alert-s-1")
	// The process dies here: the finish may or may not be on disk, and a record being
	// written when it died (never acknowledged) is torn.
	raw, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	killed := t.TempDir()
	if err := os.WriteFile(filepath.Join(killed, journalFile), append(raw, []byte(`{"at":"2026-03-14T09:00:00Z","add":{"metadata":{"name":"alert-torn"`)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	re, err := OpenJournal(killed)
	if err != nil {
		t.Fatal(err)
	}
	got := pendingNames(re)
	if len(got) < 3 || got[0] != "alert-s-0" || got[len(got)-1] != "alert-s-3" {
		t.Fatalf("replayed %v: every accepted session in order, the torn one dropped", got)
	}
	sessions, when := re.Pending()
	if !when[0].Equal(at) || sessions[0].Spec.Problem != "problem 0" || sessions[0].Labels[LabelAlertFingerprint] == "" {
		t.Fatalf("the replayed session lost data: %+v at %v", sessions[0], when[0])
	}
	// The file was rewritten without the torn line: appends after it parse again.
	if err := re.Accept(journalSession(9), at); err != nil {
		t.Fatal(err)
	}
	_ = re.Close()
	again, err := OpenJournal(killed)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = again.Close() }()
	if got := pendingNames(again); got[len(got)-1] != "alert-s-9" {
		t.Fatalf("after the rewrite: %v", got)
	}

	// A clean close keeps the finish.
	closed, err := OpenJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = closed.Close() }()
	if got := pendingNames(closed); len(got) != 3 || got[1] != "alert-s-2" {
		t.Fatalf("after a clean close: %v", got)
	}
}

func TestJournalGroupCommitsAndCompacts(t *testing.T) {
	dir := t.TempDir()
	j, err := OpenJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	j.compact = 50
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			if err := j.Accept(journalSession(i), testNow); err != nil {
				t.Error(err)
			}
			if i%10 != 0 {
				j.Finish("shop", fmt.Sprintf("alert-s-%d", i))
			}
		})
	}
	wg.Wait()
	if err := j.Accept(journalSession(1000), testNow); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	re, err := OpenJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = re.Close() }()
	if got := pendingNames(re); len(got) != 21 {
		t.Fatalf("%d pending after compaction, want the 20 unfinished and the last: %v", len(got), got)
	}
	// 201 accepted and 180 finished records were written; compaction dropped most.
	if lines := bytes.Count(raw, []byte("\n")); lines >= 200 {
		t.Fatalf("the journal was not compacted: %d lines", lines)
	}
	if err := re.Accept(journalSession(0), testNow); err != nil {
		t.Fatal(err)
	}
	if got := pendingNames(re); len(got) != 21 {
		t.Fatalf("accepting a pending session again must not list it twice: %v", got)
	}
}

// journaledReceiver is a Processor with a journal in dir over a fake API with the
// namespace "shop" (shared by the "replicas" of one test).
func journaledReceiver(t *testing.T, c client.Client, dir string, now func() time.Time) *Processor {
	t.Helper()
	j, err := OpenJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, DefaultPolicy())},
		ProcessorOptions{Now: now, Journal: j, Sessions: c, SessionsIndexed: true})
}

// runProcessor starts p's workers; the returned function stops them (as the test's end does).
func runProcessor(t *testing.T, p *Processor) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("processor: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func waitPending(t *testing.T, p *Processor) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.Pending() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still pending", p.Pending())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestJournaledIntakeAcknowledgesThenCreatesOnce(t *testing.T) {
	now := testNow
	var failures atomic.Int32
	failures.Store(2)
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}).
		WithIndex(&kubagev1alpha1.Troubleshoot{}, FingerprintIndex, IndexFingerprint).
		WithInterceptorFuncs(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			if failures.Add(-1) >= 0 {
				return apierrors.NewServiceUnavailable("the API server is overloaded")
			}
			o.SetCreationTimestamp(metav1.NewTime(now))
			return c.Create(ctx, o, opts...)
		}}).Build()
	dir := t.TempDir()
	ctx := context.Background()
	p := parseFile(t, "crashloop_firing.json")

	// The first replica acknowledges and dies before any worker ran.
	first := journaledReceiver(t, c, dir, func() time.Time { return now })
	s, err := first.Process(ctx, p)
	if err != nil || s.Created != 1 || s.Queued != 1 || first.Pending() != 1 {
		t.Fatalf("accepted into the journal: %+v %v (pending %d)", s, err, first.Pending())
	}
	if n := countSessions(t, c, "shop"); n != 0 {
		t.Fatalf("%d sessions before any worker ran", n)
	}
	if _, err := OpenJournal(dir); err == nil {
		t.Fatal("a second process opened a journal in use")
	}
	// The kill releases the directory; what was acknowledged is on disk already.
	_ = first.intake.journal.Close()

	// Restarted on the same volume: the sender's retry is a duplicate, and the workers
	// create the session once despite the API server failing twice.
	again := journaledReceiver(t, c, dir, func() time.Time { return now })
	if s, err := again.Process(ctx, p); err != nil || s.Duplicates != 1 {
		t.Fatalf("retry after the restart: %+v %v", s, err)
	}
	stop := runProcessor(t, again)
	waitPending(t, again)
	if n := countSessions(t, c, "shop"); n != 1 {
		t.Fatalf("%d sessions", n)
	}
	stop()

	// A third start replays nothing, and finds the session for the cooldown in the cluster.
	third := journaledReceiver(t, c, dir, func() time.Time { return now })
	if third.Pending() != 0 {
		t.Fatalf("%d pending after the workers finished", third.Pending())
	}
	p.Alerts[0].StartsAt = p.Alerts[0].StartsAt.Add(10 * time.Minute)
	now = now.Add(10 * time.Minute)
	if s, err := third.Process(ctx, p); err != nil || s.Skipped != 1 || s.Alerts[0].Reason != ReasonCooldown {
		t.Fatalf("inside the cooldown: %+v %v", s, err)
	}
}

func TestJournaledIntakeRecordsResolutionOfPendingSession(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}).
		WithIndex(&kubagev1alpha1.Troubleshoot{}, FingerprintIndex, IndexFingerprint).Build()
	proc := journaledReceiver(t, c, t.TempDir(), func() time.Time { return testNow })
	ctx := context.Background()
	p := parseFile(t, "crashloop_firing.json")
	s, err := proc.Process(ctx, p)
	if err != nil || s.Created != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	// Resolved before any worker created the session: it is created, then marked.
	p.Alerts[0].Status = StatusResolved
	p.Alerts[0].EndsAt = testNow
	if s, err := proc.Process(ctx, p); err != nil || s.Resolved != 1 {
		t.Fatalf("resolution of a pending session: %+v %v", s, err)
	}
	var ts kubagev1alpha1.Troubleshoot
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: s.Alerts[0].Session}, &ts); err != nil {
		t.Fatal(err)
	}
	if ts.Labels[LabelAlertStatus] != StatusResolved || proc.Pending() != 0 {
		t.Fatalf("labels %v, pending %d", ts.Labels, proc.Pending())
	}
}

func TestJournaledIntakeRefusesWhenTheBacklogIsFull(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}).Build()
	j, err := OpenJournal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	proc := NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, DefaultPolicy())}, ProcessorOptions{Journal: j, MaxPending: 1})
	ctx := context.Background()
	p := parseFile(t, "crashloop_firing.json")
	if s, err := proc.Process(ctx, p); err != nil || s.Created != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	p.Alerts[0].Fingerprint = "0123456789abcdef"
	var transient *TransientError
	if _, err := proc.Process(ctx, p); !errors.As(err, &transient) {
		t.Fatalf("a full backlog asks the sender to retry: %v", err)
	}
}

func TestIntakeHoldsExtraWorkersBackDuringAStorm(t *testing.T) {
	in := &intake{}
	start := time.Now()
	in.waitQuiet(context.Background())
	if d := time.Since(start); d > quietAfter/2 {
		t.Fatalf("an idle receiver held a worker back for %s", d)
	}
	in.received()
	start = time.Now()
	in.waitQuiet(context.Background())
	if d := time.Since(start); d < quietAfter*9/10 {
		t.Fatalf("a worker went on %s after a payload", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in.received()
	start = time.Now()
	in.waitQuiet(ctx)
	if d := time.Since(start); d > quietAfter/2 {
		t.Fatalf("a stopping receiver held a worker back for %s", d)
	}
}
