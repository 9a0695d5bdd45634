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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/notify"
)

// laggingCache is a manager's cache that has not seen any write since it was frozen: it
// answers Gets of the frozen schedule with that old copy, and everything else from the API.
type laggingCache struct {
	client.Client
	frozen *kubagev1alpha1.TroubleshootSchedule
}

func (c laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if s, ok := obj.(*kubagev1alpha1.TroubleshootSchedule); ok && key == client.ObjectKeyFromObject(c.frozen) {
		c.frozen.DeepCopyInto(s)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// A reconcile that starts before the cache has seen the previous one's status (the run it
// created, or the one that finished, enqueues the schedule at once) must not send again a
// message that status records as sent: the receiver would count it twice.
func TestScheduleReconcileDoesNotResendWhatTheCacheHasNotSeen(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
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
	now := time.Now()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "hook"}, Data: map[string][]byte{"url": []byte(srv.URL + "/kubage")}}
	sink := &kubagev1alpha1.NotificationSink{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "hook"},
		Spec: kubagev1alpha1.NotificationSinkSpec{Type: kubagev1alpha1.SinkWebhook, URL: kubagev1alpha1.SecretKeyReference{Name: "hook", Key: "url"}}}
	s := &kubagev1alpha1.TroubleshootSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-check", UID: types.UID("web-check-uid")},
		Spec: kubagev1alpha1.TroubleshootScheduleSpec{Schedule: "0 0 1 1 *", Suspend: true,
			Notify: &kubagev1alpha1.Notify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "hook"}}}},
	}
	notify.Enqueue(&s.Status.Notifications, kubagev1alpha1.NotificationDelivery{ID: "first", Sink: "hook", Event: kubagev1alpha1.NewProblemReason}, now)
	api := fake.NewClientBuilder().WithScheme(scheme).WithObjects(sec, sink, s).WithStatusSubresource(s).Build()
	frozen := &kubagev1alpha1.TroubleshootSchedule{}
	if err := api.Get(context.Background(), client.ObjectKeyFromObject(s), frozen); err != nil {
		t.Fatal(err)
	}

	r := &TroubleshootScheduleReconciler{Client: laggingCache{Client: api, frozen: frozen}, APIReader: api,
		Sender: &notify.Sender{Client: srv.Client()}, Backoff: notify.Backoff{Base: time.Second, Max: time.Minute, Attempts: 3},
		sinks: &sinkResolver{client: api, apiReader: api}, Now: func() time.Time { return now }}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(s)}
	for i := range 2 {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			t.Fatalf("reconcile %d: %v", i+1, err)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("the receiver got %d requests, want 1: the second reconcile read the status from before the send", n)
	}
	got := &kubagev1alpha1.TroubleshootSchedule{}
	if err := api.Get(context.Background(), req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if d := got.Status.Notifications[0]; d.State != kubagev1alpha1.DeliveryDelivered || d.Attempts != 1 {
		t.Fatalf("the message is recorded as %s after %d attempt(s), want Delivered after 1", d.State, d.Attempts)
	}
}
