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

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/notify"
)

// A webhook sink end to end: the operator binary tells a session's outcome to a signed
// webhook on loopback (allowed by startManager's --egress-allow-cidrs) that fails three times,
// and is killed between two attempts.
var _ = Describe("Webhook notifications", Ordered, func() {
	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	It("delivers a signed payload once after three 500s, with the operator killed between attempts", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)

		var (
			mu   sync.Mutex
			reqs []*http.Request
			body [][]byte
			oks  int
		)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			defer mu.Unlock()
			reqs, body = append(reqs, r), append(body, b)
			if len(reqs) <= 3 {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			oks++
		}))
		DeferCleanup(hook.Close)
		count := func() int { mu.Lock(); defer mu.Unlock(); return len(reqs) }

		_, err := clients.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hook"},
			Data: map[string][]byte{"url": []byte(hook.URL + "/kubage"), "key": []byte("e2e-signing-key")}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(kube.Create(ctx, &kubagev1alpha1.NotificationSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook"},
			Spec: kubagev1alpha1.NotificationSinkSpec{Type: kubagev1alpha1.SinkWebhook,
				URL:        kubagev1alpha1.SecretKeyReference{Name: "hook", Key: "url"},
				SigningKey: &kubagev1alpha1.SecretKeyReference{Name: "hook", Key: "key"}}})).To(Succeed())

		// Attempts 2 s, 4 s and 8 s apart: room to kill the operator between two of them.
		args := []string{"--agent-image=" + agentImage, "--notify-retry-base=2s"}
		first := startManager(args...)
		ts := createTroubleshoot(ctx, ns, "api-down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerInProcess
			ts.Spec.Notify = &kubagev1alpha1.SessionNotify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "hook"}}}
		})
		ts = waitForTerminal(ctx, ts)
		expectConfigMapMissing(ctx, ts)

		By("killing the operator once the first failed attempt is recorded")
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Notifications).To(HaveLen(1))
			g.Expect(ts.Status.Notifications[0].Attempts).To(Equal(int32(1)))
			c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.NotifiedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(kubagev1alpha1.DeliveryRetryingReason))
		}).WithContext(ctx).WithPolling(100 * time.Millisecond).Should(Succeed())
		first.Kill()
		Expect(count()).To(Equal(1))

		By("starting a new operator, which resumes the outbox")
		startManager(args...)
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Notifications).To(ConsistOf(HaveField("State", kubagev1alpha1.DeliveryDelivered)))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		Consistently(count, 3*time.Second).Should(Equal(4), "three 500s, then one delivery, nothing after")
		Expect(ts.Status.Notifications[0].Attempts).To(Equal(int32(4)))
		mu.Lock()
		defer mu.Unlock()
		Expect(oks).To(Equal(1), "delivered once")

		By("signing every attempt of the one message, which a receiver verifies")
		for i, r := range reqs {
			Expect(r.Header.Get(notify.HeaderDelivery)).To(Equal(ts.Status.Notifications[0].ID))
			ts := r.Header.Get(notify.HeaderTimestamp)
			Expect(notify.Verify([]byte("e2e-signing-key"), ts, body[i], r.Header.Get(notify.HeaderSignature))).To(BeTrue(), "attempt %d", i+1)
			Expect(notify.Verify([]byte("another-key"), ts, body[i], r.Header.Get(notify.HeaderSignature))).To(BeFalse())
		}
		var doc notify.Document
		Expect(json.Unmarshal(body[3], &doc)).To(Succeed())
		Expect(doc.Event).To(Equal(kubagev1alpha1.SessionCompletedEvent))
		Expect(doc.Kind + "/" + doc.Namespace + "/" + doc.Name).To(Equal("Troubleshoot/" + ns + "/api-down"))
		Expect(doc.Problem).NotTo(BeNil())
		Expect(doc.Problem.Category).To(Equal("ConfigMapMissing"))
	})
})
