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

package controllers_test

import (
	"encoding/json"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/session"
)

// One-off sessions tell spec.notify's sinks their outcome through the schedules' outbox.
var _ = Describe("Troubleshoot notifications", func() {
	var cs kubernetes.Interface

	BeforeEach(func() {
		var err error
		cs, err = kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
	})

	It("tells each sink once, retries a failing webhook across a restart, and tells a rerun again", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ts-notify")
		createCrashLoopApp(ctx, ns)
		hook := newReceiver(func(n int) int {
			if n <= 3 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		slack := newReceiver(func(int) int { return http.StatusOK })
		createSink(ctx, ns, "hook", kubagev1alpha1.SinkWebhook, hook.URL+"/kubage", "s3cret-signing-key")
		createSink(ctx, ns, "slack", kubagev1alpha1.SinkSlack, slack.URL+"/services/T0/B0/x", "")
		opts := controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond,
			NotifyBackoff: notify.Backoff{Base: 700 * time.Millisecond, Max: time.Second, Attempts: 8}}
		stop := startManager(ctx, opts)

		ts := newSession(ns, "web-restarts", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
			ts.Spec.Notify = &kubagev1alpha1.SessionNotify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "hook"}, {Name: "slack"}}}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)

		By("recording the failed attempt before the operator restarts")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Notifications).To(HaveLen(2))
			c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.NotifiedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(kubagev1alpha1.DeliveryRetryingReason))
			g.Expect(c.Message).To(ContainSubstring("500"))
		}).Should(Succeed())
		stop()
		Expect(hook.count()).To(BeNumerically("<", 4))
		startManager(ctx, opts)

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Notifications).To(HaveEach(HaveField("State", kubagev1alpha1.DeliveryDelivered)))
			g.Expect(meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.NotifiedCondition)).To(BeTrue())
		}).Should(Succeed())
		Consistently(func() []int { return []int{hook.count(), slack.count()} }, 2*time.Second).Should(Equal([]int{4, 1}),
			"three 500s then one delivery to the webhook, one Block Kit message to Slack, nothing after")

		By("signing every attempt of the one message with the same id")
		first := hook.requests()
		for _, r := range first {
			Expect(r.header.Get(notify.HeaderDelivery)).To(Equal(first[0].header.Get(notify.HeaderDelivery)))
			Expect(notify.Verify([]byte("s3cret-signing-key"), r.header.Get(notify.HeaderTimestamp), []byte(r.body), r.header.Get(notify.HeaderSignature))).To(BeTrue())
		}
		var doc notify.Document
		Expect(json.Unmarshal([]byte(first[3].body), &doc)).To(Succeed())
		Expect(doc.Event).To(Equal(kubagev1alpha1.SessionCompletedEvent))
		Expect(doc.Kind).To(Equal("Troubleshoot"))
		Expect(doc.Name).To(Equal(ts.Name))
		Expect(doc.Problem).NotTo(BeNil())
		Expect(doc.Problem.Category).To(Equal("CrashLoopBackOff"))
		Expect(slack.requests()[0].body).To(ContainSubstring(`"blocks"`))
		Expect(slack.requests()[0].body).To(ContainSubstring("concluded: CrashLoopBackOff"))

		By("telling a rerun's outcome as a new message")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
		ts.Annotations = map[string]string{session.RerunAnnotation: "again"}
		Expect(k8sClient.Update(ctx, ts)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(hook.count()).To(Equal(5))
			g.Expect(slack.count()).To(Equal(2))
		}, 30*time.Second).Should(Succeed())
		Expect(hook.requests()[4].header.Get(notify.HeaderDelivery)).NotTo(Equal(first[0].header.Get(notify.HeaderDelivery)))
		Consistently(func() []int { return []int{hook.count(), slack.count()} }, 2*time.Second).Should(Equal([]int{5, 2}))
	})

	It("tells a failed session's reason, and is refused on a schedule's template", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ts-notify-failed")
		slack := newReceiver(func(int) int { return http.StatusOK })
		createSink(ctx, ns, "slack", kubagev1alpha1.SinkSlack, slack.URL+"/services/T0/B0/x", "")
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
		ts := newSession(ns, "ghost", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "does-not-exist"}
			ts.Spec.Notify = &kubagev1alpha1.SessionNotify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "slack"}}}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseFailed)
		Eventually(slack.count).Should(Equal(1))
		Expect(slack.requests()[0].body).To(ContainSubstring("failed: " + kubagev1alpha1.TargetNotFoundReason))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Notifications).To(ConsistOf(HaveField("Event", kubagev1alpha1.SessionFailedEvent)))
		}).Should(Succeed())

		sched := newSchedule(ns, "nightly", "0 3 * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.TroubleshootTemplate.Spec.Notify = &kubagev1alpha1.SessionNotify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "slack"}}}
		})
		err := k8sClient.Create(ctx, sched)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("set notify on the schedule"))
	})
})
