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

package controllers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/notify"
)

// An operator told to stop while a webhook request is in flight finishes that attempt and
// records it, and begins no other: otherwise a receiver that accepted the message would get
// it again from the next operator (the outbox persists before and after each send).
func TestOutboxFinishesAndRecordsTheAttemptInFlightAtShutdown(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		stop() // the operator is told to stop while the receiver handles the message
		time.Sleep(50 * time.Millisecond)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "hook"}, Data: map[string][]byte{"url": []byte(srv.URL + "/kubage")}}
	sink := &kubagev1alpha1.NotificationSink{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "hook"},
		Spec: kubagev1alpha1.NotificationSinkSpec{Type: kubagev1alpha1.SinkWebhook, URL: kubagev1alpha1.SecretKeyReference{Name: "hook", Key: "url"}}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(sec, sink).Build()
	now := time.Now()
	o := &outbox{sinks: &sinkResolver{client: c, apiReader: c}, sender: &notify.Sender{Client: srv.Client()},
		backoff: notify.Backoff{Base: time.Second, Max: time.Minute, Attempts: 3}, clock: time.Now}

	obj := &kubagev1alpha1.TroubleshootSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-check"}}
	for _, id := range []string{"first", "second"} {
		notify.Enqueue(&obj.Status.Notifications, kubagev1alpha1.NotificationDelivery{ID: id, Sink: "hook", Event: "NewProblem"}, now)
	}
	var recorded []kubagev1alpha1.NotificationDelivery
	persist := func(ctx context.Context) error {
		if err := ctx.Err(); err != nil {
			return err // what the API server client does with a cancelled context
		}
		recorded = append(recorded[:0], obj.Status.Notifications...)
		return nil
	}

	_, err := o.deliver(ctx, "TroubleshootSchedule", obj, &obj.Status.Notifications, now, persist)
	if err == nil {
		t.Fatal("deliver went on after the operator was told to stop")
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("the receiver got %d requests, want 1: the second message must wait for the next operator", n)
	}
	if len(recorded) != 2 {
		t.Fatalf("recorded %d deliveries, want 2", len(recorded))
	}
	if d := recorded[0]; d.State != kubagev1alpha1.DeliveryDelivered || d.Attempts != 1 {
		t.Fatalf("the attempt in flight was recorded as %s after %d attempt(s) (%s), want Delivered after 1", d.State, d.Attempts, d.LastError)
	}
	if d := recorded[1]; d.State != kubagev1alpha1.DeliveryPending || d.Attempts != 0 {
		t.Fatalf("the message not begun was recorded as %s after %d attempt(s), want Pending and untouched", d.State, d.Attempts)
	}
}

// The outcome of a send is written again when the API server is briefly unavailable (else the
// next reconcile repeats the attempt), and not when the API server refuses the status.
func TestPersistAttemptTriesAgainOnlyWhileTheAPIServerIsUnavailable(t *testing.T) {
	calls := 0
	err := persistAttempt(context.Background(), func(context.Context) error {
		calls++
		if calls == 1 {
			return apierrors.NewServiceUnavailable("etcd leader changed")
		}
		return nil
	})
	if err != nil || calls != 2 {
		t.Fatalf("persistAttempt = %v after %d call(s), want nil after 2", err, calls)
	}
	calls = 0
	invalid := apierrors.NewInvalid(kubagev1alpha1.GroupVersion.WithKind("TroubleshootSchedule").GroupKind(), "web-check", nil)
	err = persistAttempt(context.Background(), func(context.Context) error { calls++; return invalid })
	if !apierrors.IsInvalid(err) || calls != 1 {
		t.Fatalf("persistAttempt = %v after %d call(s), want the Invalid error after 1", err, calls)
	}
}

// An operator told to stop while it reads a message's sink has sent nothing: the message
// keeps its attempts, so the next operator does not give up one attempt early.
func TestOutboxCountsNoAttemptWhenStoppedBeforeSending(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	scheme := runtime.NewScheme()
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, _ client.WithWatch, _ client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
			stop() // the operator is told to stop while the sink is read
			return ctx.Err()
		},
	}).Build()
	o := &outbox{sinks: &sinkResolver{client: c, apiReader: c}, sender: &notify.Sender{},
		backoff: notify.Backoff{Base: time.Second, Max: time.Minute, Attempts: 3}, clock: time.Now}
	obj := &kubagev1alpha1.TroubleshootSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-check"}}
	now := time.Now()
	notify.Enqueue(&obj.Status.Notifications, kubagev1alpha1.NotificationDelivery{ID: "first", Sink: "hook", Event: "NewProblem"}, now)
	writes := 0
	persist := func(context.Context) error { writes++; return nil }

	if _, err := o.deliver(ctx, "TroubleshootSchedule", obj, &obj.Status.Notifications, now, persist); err == nil {
		t.Fatal("deliver went on after the operator was told to stop")
	}
	if d := obj.Status.Notifications[0]; d.State != kubagev1alpha1.DeliveryPending || d.Attempts != 0 || d.LastError != "" {
		t.Fatalf("the message is %s after %d attempt(s) (%q), want Pending and untouched", d.State, d.Attempts, d.LastError)
	}
	if writes != 1 {
		t.Fatalf("the status was written %d times, want once (before the first send)", writes)
	}
}
