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

package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/redact"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func message() Message {
	return Message{ID: "abc123", Event: EventNewProblem, Kind: "TroubleshootSchedule", Namespace: "shop", Name: "hourly",
		Troubleshoot: "hourly-1772366400", Time: now,
		Problem: &kubagev1alpha1.ScheduledProblem{Fingerprint: "f00d", Category: "CrashLoopBackOff",
			Summary: "web crashes; its env has password=hunter2hunter2 in it"}}
}

func TestWebhookSignatureVerifies(t *testing.T) {
	s := Sink{Type: kubagev1alpha1.SinkWebhook, URL: "http://x", SigningKey: "k3y", Token: "t0k"}
	body, h, err := Encode(s, message(), now)
	if err != nil {
		t.Fatal(err)
	}
	ts, sig := h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if ts != "1772366400" || !strings.HasPrefix(sig, "sha256=") || !Verify([]byte("k3y"), ts, body, sig) {
		t.Fatalf("signature %q over %q does not verify", sig, ts)
	}
	if Verify([]byte("other"), ts, body, sig) || Verify([]byte("k3y"), ts, append(body, ' '), sig) {
		t.Error("a wrong key or a changed body verified")
	}
	if h.Get(HeaderDelivery) != "abc123" || h.Get("Authorization") != "Bearer t0k" {
		t.Errorf("headers %v", h)
	}
	var doc Document
	if err := json.Unmarshal(body, &doc); err != nil || doc.Problem.Fingerprint != "f00d" || doc.Troubleshoot != "hourly-1772366400" {
		t.Fatalf("document %s: %v", body, err)
	}
	if strings.Contains(string(body), "hunter2") {
		t.Errorf("a credential left in the body: %s", body)
	}
}

func TestSlackIsBlockKit(t *testing.T) {
	body, h, err := Encode(Sink{Type: kubagev1alpha1.SinkSlack, URL: "http://x", Token: "never-sent"}, message(), now)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Blocks) != 3 || m.Blocks[0].Type != "header" || m.Blocks[1].Type != "section" || m.Blocks[2].Type != "context" {
		t.Errorf("blocks %+v", m.Blocks)
	}
	if !strings.Contains(m.Text, "CrashLoopBackOff") || strings.Contains(string(body), "hunter2") || h.Get("Authorization") != "" {
		t.Errorf("text %q, headers %v", m.Text, h)
	}
}

func TestCloudEventsBinaryMode(t *testing.T) {
	_, h, err := Encode(Sink{Type: kubagev1alpha1.SinkCloudEvents, URL: "http://x"}, message(), now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Ce-Specversion": "1.0", "Ce-Id": "abc123", "Ce-Type": "io.kubage.newproblem",
		"Ce-Source": "/apis/kubage.io/v1alpha1/namespaces/shop/troubleshootschedules/hourly", "Ce-Subject": "hourly-1772366400",
		"Ce-Time": "2026-03-01T12:00:00Z", "Content-Type": "application/json"}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v)
		}
	}
}

func TestSendClassifiesAnswers(t *testing.T) {
	var code atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(int(code.Load()))
		_, _ = w.Write([]byte("no such channel, token=abcdefabcdefabcdef123456"))
	}))
	defer srv.Close()
	s := &Sender{Client: srv.Client()}
	sink := Sink{Type: kubagev1alpha1.SinkSlack, URL: srv.URL + "/services/T000/B000/SECRETPART"}
	for _, c := range []struct {
		code     int32
		ok, perm bool
	}{{200, true, false}, {204, true, false}, {500, false, false}, {429, false, false}, {404, false, true}, {400, false, true}} {
		code.Store(c.code)
		err := s.Send(context.Background(), sink, message(), now)
		if (err == nil) != c.ok || (err != nil && IsPermanent(err) != c.perm) {
			t.Errorf("answer %d: err %v, permanent %t", c.code, err, err != nil && IsPermanent(err))
		}
		if err != nil && strings.Contains(err.Error(), "abcdefabcdef") {
			t.Errorf("the answer's credential is in the error: %v", err)
		}
	}
	srv.Close()
	err := s.Send(context.Background(), sink, message(), now)
	if err == nil || IsPermanent(err) || strings.Contains(err.Error(), "SECRETPART") {
		t.Errorf("unreachable sink: %v", err)
	}
	if err := s.Send(context.Background(), Sink{Type: kubagev1alpha1.SinkSlack, URL: "file:///etc/passwd"}, message(), now); !IsPermanent(err) {
		t.Errorf("a file URL was not refused for good: %v", err)
	}
}

func TestRateLimitPerSink(t *testing.T) {
	var s Sender
	for i := 0; i < 2; i++ {
		if w := s.Wait("ns/a", 2, now); w != 0 {
			t.Fatalf("message %d waited %s within the burst", i, w)
		}
	}
	if w := s.Wait("ns/a", 2, now); w < 29*time.Minute {
		t.Errorf("third message in an hour at 2/h waits %s", w)
	}
	if w := s.Wait("ns/b", 2, now); w != 0 {
		t.Errorf("another sink waited %s", w)
	}
}

func TestOutboxRetriesThenGivesUp(t *testing.T) {
	b := Backoff{Base: time.Second, Max: 4 * time.Second, Attempts: 4}
	var list []kubagev1alpha1.NotificationDelivery
	id := DeliveryID("shop", "hourly", "run-1", EventNewProblem, "slack")
	if !Enqueue(&list, kubagev1alpha1.NotificationDelivery{ID: id, Sink: "slack", Event: EventNewProblem}, now) ||
		Enqueue(&list, kubagev1alpha1.NotificationDelivery{ID: id, Sink: "slack", Event: EventNewProblem}, now) || len(list) != 1 {
		t.Fatalf("the same message was recorded twice: %+v", list)
	}
	if id != DeliveryID("shop", "hourly", "run-1", EventNewProblem, "slack") || id == DeliveryID("shop", "hourly", "run-2", EventNewProblem, "slack") {
		t.Error("ids are not deterministic per run")
	}
	at := now
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		if due := Due(list, at); len(due) != 1 {
			t.Fatalf("attempt %d not due", i+1)
		}
		Record(&list[0], errors.New("the sink answered 500"), b, at)
		if got := list[0].NextAttemptTime.Time.Sub(at); got != want {
			t.Errorf("wait after attempt %d = %s, want %s", i+1, got, want)
		}
		if ok, reason, _ := Summary(list); ok || reason != kubagev1alpha1.DeliveryRetryingReason {
			t.Errorf("summary while retrying: %t %s", ok, reason)
		}
		if len(Due(list, at)) != 0 {
			t.Error("due again before its backoff")
		}
		at = list[0].NextAttemptTime.Time
	}
	Record(&list[0], nil, b, at)
	if list[0].State != kubagev1alpha1.DeliveryDelivered || list[0].Attempts != 4 {
		t.Errorf("after success: %+v", list[0])
	}
	if ok, reason, _ := Summary(list); !ok || reason != kubagev1alpha1.DeliveredReason {
		t.Errorf("summary after delivery: %t %s", ok, reason)
	}
	if _, ok := NextWake(list, at); ok {
		t.Error("a delivered message still wakes the controller")
	}

	Enqueue(&list, kubagev1alpha1.NotificationDelivery{ID: "x", Sink: "hook"}, at)
	for i := 0; i < 4; i++ {
		Record(&list[1], errors.New("connection refused"), b, at)
	}
	if list[1].State != kubagev1alpha1.DeliveryFailed {
		t.Errorf("not given up after %d attempts: %+v", b.Attempts, list[1])
	}
	if ok, reason, msg := Summary(list); ok || reason != kubagev1alpha1.DeliveryFailedReason || !strings.Contains(msg, "connection refused") {
		t.Errorf("summary after giving up: %t %s %s", ok, reason, msg)
	}
}

func TestTrimKeepsPending(t *testing.T) {
	var list []kubagev1alpha1.NotificationDelivery
	for i := 0; i < 6; i++ {
		Enqueue(&list, kubagev1alpha1.NotificationDelivery{ID: string(rune('a' + i))}, now.Add(time.Duration(i)*time.Minute))
		if i != 0 {
			Record(&list[i], nil, DefaultBackoff, now)
		}
	}
	Trim(&list, 3)
	ids := ""
	for _, d := range list {
		ids += d.ID
	}
	if ids != "aef" {
		t.Errorf("kept %q, want the pending a and the newest e, f", ids)
	}
}

// Every credential format the redactor knows, planted in a problem summary, leaves no
// credential in the body any sink type sends: each body carries the summary only as the
// redactor leaves it.
func TestEveryFormatIsRedactedFromEverySink(t *testing.T) {
	planted := 0
	for _, f := range redact.Formats {
		m := message()
		m.Problem.Summary = "web crashes; its config says " + f.Positive
		cleaned := redact.Default().Secrets(m.Problem.Summary)
		if cleaned == m.Problem.Summary {
			t.Fatalf("%s: the redactor leaves its own example alone", f.Name)
		}
		var secret string
		if f.Pattern != "" {
			found := regexp.MustCompile(f.Pattern).FindStringSubmatch(f.Positive)
			if found == nil {
				t.Fatalf("%s: the pattern misses its own example", f.Name)
			}
			secret = found[len(found)-1]
			if secret == "" {
				secret = found[0]
			}
		}
		for _, typ := range []kubagev1alpha1.SinkType{kubagev1alpha1.SinkWebhook, kubagev1alpha1.SinkSlack, kubagev1alpha1.SinkCloudEvents} {
			body, _, err := Encode(Sink{Type: typ, URL: "http://x"}, m, now)
			if err != nil {
				t.Fatal(err)
			}
			planted++
			if strings.Contains(string(body), f.Positive) || (len(secret) >= 8 && strings.Contains(string(body), secret)) {
				t.Errorf("%s sink leaks the %s credential: %s", typ, f.Name, body)
			}
			if typ == kubagev1alpha1.SinkWebhook {
				var doc Document
				if err := json.Unmarshal(body, &doc); err != nil || doc.Problem.Summary != cleaned {
					t.Errorf("%s: the webhook summary %q is not the redacted %q (%v)", f.Name, doc.Problem.Summary, cleaned, err)
				}
			}
		}
	}
	if len(redact.Formats) < 40 {
		t.Fatalf("%d formats, want at least 40", len(redact.Formats))
	}
	t.Logf("planted %d credentials (%d formats x 3 sink types); 0 leaks", planted, len(redact.Formats))
}
