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
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/schedule"
	fx "github.com/kubage/kubage/test/fixtures"
)

// These specs run schedules every few seconds (the test-only seconds field) on testShard,
// with a manager that runs both the schedules and their sessions.
var _ = Describe("TroubleshootSchedules", func() {
	var cs kubernetes.Interface

	BeforeEach(func() {
		var err error
		cs, err = kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
	})

	It("reports a fault once over three runs, again when it changes, and keeps the history limits", func(ctx SpecContext) {
		ns := newNamespace(ctx, "schedule")
		createCrashLoopApp(ctx, ns)
		startScheduleManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
		slack := newReceiver(func(int) int { return http.StatusOK })
		createSink(ctx, ns, "team-slack", kubagev1alpha1.SinkSlack, slack.URL+"/services/T0/B0/XYZ", "")

		s := newSchedule(ns, "web-check", "*/2 * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.SuccessfulRunsHistoryLimit = ptr.To[int32](2)
			s.Spec.Notify = &kubagev1alpha1.Notify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "team-slack"}}}
		})
		createSchedule(ctx, s)

		By("finding the crash loop in three runs in a row and reporting it once")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.LastProblem).NotTo(BeNil())
			g.Expect(s.Status.LastProblem.Runs).To(BeNumerically(">=", 3))
		}, 90*time.Second).Should(Succeed())
		Expect(s.Status.LastProblem.Category).To(Equal("CrashLoopBackOff"))
		Expect(meta.IsStatusConditionTrue(s.Status.Conditions, kubagev1alpha1.ProblemFoundCondition)).To(BeTrue())
		Expect(s.Status.LastScheduleTime).NotTo(BeNil())
		Expect(s.Status.NextScheduleTime).NotTo(BeNil())
		Expect(scheduleEvents(ctx, ns, s.Name, kubagev1alpha1.NewProblemReason)).To(Equal(1))
		Eventually(slack.count).Should(Equal(1))
		Consistently(slack.count, 3*time.Second).Should(Equal(1), "the same problem again is not news")
		msg := slack.requests()[0]
		Expect(msg.body).To(ContainSubstring(`"type":"header"`))
		Expect(msg.body).To(ContainSubstring("CrashLoopBackOff"))
		Expect(meta.FindStatusCondition(s.Status.Conditions, kubagev1alpha1.NotifiedCondition)).NotTo(BeNil())

		By("keeping at most two runs with a problem besides the active one")
		Consistently(func(g Gomega) {
			finished := 0
			for _, ts := range scheduleRuns(ctx, ns, s.Name) {
				if ts.Status.Phase.IsTerminal() {
					finished++
				}
				g.Expect(metav1.IsControlledBy(&ts, s)).To(BeTrue())
			}
			g.Expect(finished).To(BeNumerically("<=", 2+1), "a run may finish just before the prune that follows")
		}, 4*time.Second, 200*time.Millisecond).Should(Succeed())

		By("reporting again when the fault changes to an image that cannot be pulled")
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
		for i := range pods.Items {
			p := &pods.Items[i]
			fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.example/web:1.1"`)
			p.Status.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{}
			p.Status.ContainerStatuses[0].RestartCount = 0
			Expect(k8sClient.Status().Update(ctx, p)).To(Succeed())
		}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.LastProblem).NotTo(BeNil())
			g.Expect(s.Status.LastProblem.Category).NotTo(Equal("CrashLoopBackOff"))
			g.Expect(s.Status.LastProblem.Runs).To(BeNumerically(">=", 2))
		}, 90*time.Second).Should(Succeed())
		Expect(scheduleEvents(ctx, ns, s.Name, kubagev1alpha1.NewProblemReason)).To(Equal(2))
		Eventually(slack.count).Should(Equal(2))
		Expect(slack.requests()[1].body).NotTo(ContainSubstring("CrashLoopBackOff"))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(meta.FindStatusCondition(s.Status.Conditions, kubagev1alpha1.NotifiedCondition)).To(HaveField("Reason", kubagev1alpha1.DeliveredReason))
		}).Should(Succeed())
	})

	It("retries a webhook that fails three times, across an operator restart, and delivers it once, signed", func(ctx SpecContext) {
		ns := newNamespace(ctx, "webhook")
		createCrashLoopApp(ctx, ns)
		hook := newReceiver(func(n int) int {
			if n <= 3 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		createSink(ctx, ns, "hook", kubagev1alpha1.SinkWebhook, hook.URL+"/kubage", "s3cret-signing-key")
		opts := controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond,
			NotifyBackoff: notify.Backoff{Base: 500 * time.Millisecond, Max: time.Second, Attempts: 8}}
		stop := startScheduleManager(ctx, opts)
		s := newSchedule(ns, "web-check", "*/2 * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.Notify = &kubagev1alpha1.Notify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "hook"}}}
		})
		createSchedule(ctx, s)

		By("recording the failed first attempt and saying so in a condition")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.Notifications).To(HaveLen(1))
			g.Expect(s.Status.Notifications[0].Attempts).To(BeNumerically(">=", 1))
			c := meta.FindStatusCondition(s.Status.Conditions, kubagev1alpha1.NotifiedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(kubagev1alpha1.DeliveryRetryingReason))
			g.Expect(c.Message).To(ContainSubstring("500"))
		}, 60*time.Second).Should(Succeed())

		By("restarting the operator between attempts")
		stop()
		before := hook.count()
		Expect(before).To(BeNumerically("<", 4))
		startScheduleManager(ctx, opts)

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.Notifications).To(HaveLen(1))
			g.Expect(s.Status.Notifications[0].State).To(Equal(kubagev1alpha1.DeliveryDelivered))
		}, 30*time.Second).Should(Succeed())
		Consistently(hook.count, 3*time.Second).Should(Equal(4), "three 500s, then one delivery, and nothing after")
		Expect(s.Status.Notifications[0].Attempts).To(Equal(int32(4)))

		By("signing every attempt of the one message with the same id")
		for _, r := range hook.requests() {
			Expect(r.header.Get(notify.HeaderDelivery)).To(Equal(s.Status.Notifications[0].ID))
			Expect(notify.Verify([]byte("s3cret-signing-key"), r.header.Get(notify.HeaderTimestamp), []byte(r.body), r.header.Get(notify.HeaderSignature))).To(BeTrue())
		}
		var doc notify.Document
		Expect(json.Unmarshal([]byte(hook.requests()[3].body), &doc)).To(Succeed())
		Expect(doc.Event).To(Equal(kubagev1alpha1.NewProblemReason))
		Expect(doc.Problem.Category).To(Equal("CrashLoopBackOff"))
		Expect(scheduleEvents(ctx, ns, s.Name, kubagev1alpha1.NewProblemReason)).To(Equal(1))
	})

	It("says so when a sink is unreachable or its Secret is missing", func(ctx SpecContext) {
		ns := newNamespace(ctx, "badsink")
		createCrashLoopApp(ctx, ns)
		// Nothing listens on port 1; the egress guard allows 127.0.0.1 in this suite.
		createSink(ctx, ns, "down", kubagev1alpha1.SinkCloudEvents, "http://127.0.0.1:1/events", "")
		missing := &kubagev1alpha1.NotificationSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-secret"},
			Spec: kubagev1alpha1.NotificationSinkSpec{Type: kubagev1alpha1.SinkSlack, URL: kubagev1alpha1.SecretKeyReference{Name: "absent", Key: "url"}}}
		Expect(k8sClient.Create(ctx, missing)).To(Succeed())
		startScheduleManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond,
			NotifyBackoff: notify.Backoff{Base: 200 * time.Millisecond, Max: time.Second, Attempts: 50}})
		s := newSchedule(ns, "web-check", "*/2 * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.Notify = &kubagev1alpha1.Notify{Sinks: []kubagev1alpha1.LocalSinkReference{{Name: "down"}}}
		})
		createSchedule(ctx, s)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			c := meta.FindStatusCondition(s.Status.Conditions, kubagev1alpha1.NotifiedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(kubagev1alpha1.DeliveryRetryingReason))
			g.Expect(c.Message).To(ContainSubstring("connection refused"))
		}, 60*time.Second).Should(Succeed())

		By("marking the sink whose Secret does not exist (the suite's manager checks sinks)")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(missing), missing)).To(Succeed())
			ready := meta.FindStatusCondition(missing.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(kubagev1alpha1.SecretNotFoundReason))
		}).Should(Succeed())
	})

	It("keeps failed runs to failedRunsHistoryLimit and a run that found nothing only until the next", func(ctx SpecContext) {
		ns := newNamespace(ctx, "history")
		startScheduleManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
		failing := newSchedule(ns, "ghost-check", "*/2 * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.FailedRunsHistoryLimit = ptr.To[int32](1)
			s.Spec.TroubleshootTemplate.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "absent"}
		})
		clean := newSchedule(ns, "clean-check", "*/2 * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.TroubleshootTemplate.Spec.Target = nil
		})
		createSchedule(ctx, failing)
		createSchedule(ctx, clean)
		finished := func(name string, phase kubagev1alpha1.TroubleshootPhase) func() int {
			return func() int {
				n := 0
				for _, ts := range scheduleRuns(ctx, ns, name) {
					if ts.Status.Phase == phase {
						n++
					}
				}
				return n
			}
		}
		By("letting several runs of each finish")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(failing), failing)).To(Succeed())
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(clean), clean)).To(Succeed())
			g.Expect(failing.Status.LastJudgedScheduleTime).NotTo(BeNil())
			g.Expect(clean.Status.LastJudgedScheduleTime).NotTo(BeNil())
			g.Expect(time.Since(failing.CreationTimestamp.Time)).To(BeNumerically(">", 7*time.Second))
		}, 30*time.Second).Should(Succeed())
		Expect(finished("ghost-check", kubagev1alpha1.PhaseFailed)()).To(BeNumerically(">=", 1))
		Eventually(finished("clean-check", kubagev1alpha1.PhaseCompleted)).Should(BeNumerically(">=", 1))
		Consistently(func(g Gomega) {
			g.Expect(finished("ghost-check", kubagev1alpha1.PhaseFailed)()).To(BeNumerically("<=", 1+1), "a run may fail just before the prune that follows")
			g.Expect(finished("clean-check", kubagev1alpha1.PhaseCompleted)()).To(BeNumerically("<=", 1+1), "a clean run is kept only until a newer one finishes")
		}, 4*time.Second, 200*time.Millisecond).Should(Succeed())
		Expect(clean.Status.LastProblem).To(BeNil(), "the namespace has no fault")
	})

	It("starts nothing while suspended", func(ctx SpecContext) {
		ns := newNamespace(ctx, "suspended")
		startScheduleManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
		s := newSchedule(ns, "paused", "* * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) { s.Spec.Suspend = true })
		createSchedule(ctx, s)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			ready := meta.FindStatusCondition(s.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(kubagev1alpha1.SuspendedReason))
		}).Should(Succeed())
		Consistently(func() []kubagev1alpha1.Troubleshoot { return scheduleRuns(ctx, ns, s.Name) }, 3*time.Second).Should(BeEmpty())
		Expect(s.Status.NextScheduleTime).To(BeNil())
		Expect(s.Status.LastScheduleTime).To(BeNil())
	})

	It("stalls on a schedule it cannot read and refuses zones in the schedule at the API", func(ctx SpecContext) {
		ns := newNamespace(ctx, "badcron")
		// The suite's manager (no shard, no seconds field) handles unlabelled schedules.
		s := newSchedule(ns, "bad", "61 * * * *", nil)
		delete(s.Labels, kubagev1alpha1.ShardingKeyLabel)
		createSchedule(ctx, s)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			ready := meta.FindStatusCondition(s.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(kubagev1alpha1.InvalidScheduleReason))
			g.Expect(ready.Message).To(ContainSubstring("61"))
			g.Expect(meta.IsStatusConditionTrue(s.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeTrue())
		}).Should(Succeed())

		By("reading six fields only where the test-only option allows them")
		six := newSchedule(ns, "six", "*/5 * * * * *", nil)
		delete(six.Labels, kubagev1alpha1.ShardingKeyLabel)
		Expect(k8sClient.Create(ctx, six)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(six), six)).To(Succeed())
			g.Expect(meta.FindStatusCondition(six.Status.Conditions, kubagev1alpha1.ReadyCondition)).To(HaveField("Reason", kubagev1alpha1.InvalidScheduleReason))
		}).Should(Succeed())

		By("rejecting a time zone inside the schedule, an unknown zone's shape and an overlong name")
		tz := newSchedule(ns, "tz", "TZ=UTC 0 * * * *", nil)
		Expect(k8sClient.Create(ctx, tz)).To(MatchError(ContainSubstring("use spec.timeZone")))
		long := newSchedule(ns, "a-very-long-schedule-name-that-leaves-no-room-for-the-run-suffix", "0 * * * *", nil)
		Expect(k8sClient.Create(ctx, long)).To(MatchError(ContainSubstring("at most 52 characters")))
		alert := newSchedule(ns, "alert", "0 * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.TroubleshootTemplate.Spec.Alert = &kubagev1alpha1.AlertSource{Fingerprint: "ab", AlertName: "X", StartsAt: metav1.Now()}
		})
		Expect(k8sClient.Create(ctx, alert)).To(MatchError(ContainSubstring("template.spec.alert is not allowed")))
	})
})

// createSchedule creates s and deletes it when the spec ends: envtest deletes no namespaces,
// and a schedule left behind keeps starting runs in every later manager of the test shard.
func createSchedule(ctx context.Context, s *kubagev1alpha1.TroubleshootSchedule) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, s)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, s))).To(Succeed())
	})
}

func newSchedule(ns, name, cron string, mutate func(*kubagev1alpha1.TroubleshootSchedule)) *kubagev1alpha1.TroubleshootSchedule {
	s := &kubagev1alpha1.TroubleshootSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{kubagev1alpha1.ShardingKeyLabel: testShard}},
		Spec: kubagev1alpha1.TroubleshootScheduleSpec{
			Schedule: cron,
			TroubleshootTemplate: kubagev1alpha1.TroubleshootTemplate{
				Metadata: kubagev1alpha1.TemplateMetadata{Labels: map[string]string{kubagev1alpha1.ShardingKeyLabel: testShard}},
				Spec: kubagev1alpha1.TroubleshootSpec{
					Problem: "Routine check of web",
					Target:  &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"},
				},
			},
		},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

// startScheduleManager runs Troubleshoots and TroubleshootSchedules of testShard, with
// schedules read with the seconds field, until the spec ends.
func startScheduleManager(ctx context.Context, opts controllers.Options) (stop func()) {
	mgr := newManager()
	opts.MaxConcurrentReconciles = 2
	opts.WatchSelector = labels.SelectorFromSet(labels.Set{kubagev1alpha1.ShardingKeyLabel: testShard})
	opts.ScheduleSeconds = true
	Expect(controllers.SetupTroubleshoot(mgr, opts)).To(Succeed())
	r := &controllers.TroubleshootScheduleReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("kubage")}
	Expect(r.SetupWithManager(mgr, opts)).To(Succeed())
	return runManager(mgr)
}

// scheduleRuns lists the Troubleshoots a schedule has created.
func scheduleRuns(ctx context.Context, ns, name string) []kubagev1alpha1.Troubleshoot {
	list := &kubagev1alpha1.TroubleshootList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{schedule.LabelSchedule: name})).To(Succeed())
	return list.Items
}

// scheduleEvents counts the Events of one reason about a schedule.
func scheduleEvents(ctx context.Context, ns, name, reason string) int {
	list := &eventsv1.EventList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, e := range list.Items {
		if e.Regarding.Kind == "TroubleshootSchedule" && e.Regarding.Name == name && e.Reason == reason {
			n++
		}
	}
	return n
}

// receiver is a local HTTP sink that answers with status(n) for its n-th request and
// records every request.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []receivedRequest
}

type receivedRequest struct {
	header http.Header
	body   string
}

func newReceiver(status func(n int) int) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, receivedRequest{header: req.Header.Clone(), body: string(body)})
		n := len(r.reqs)
		r.mu.Unlock()
		w.WriteHeader(status(n))
	}))
	DeferCleanup(r.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func (r *receiver) requests() []receivedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receivedRequest(nil), r.reqs...)
}

// createSink creates a NotificationSink whose URL (and signing key) live in a Secret.
func createSink(ctx context.Context, ns, name string, typ kubagev1alpha1.SinkType, url, signingKey string) {
	GinkgoHelper()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-sink"}, Data: map[string][]byte{"url": []byte(url)}}
	sink := &kubagev1alpha1.NotificationSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kubagev1alpha1.NotificationSinkSpec{Type: typ, URL: kubagev1alpha1.SecretKeyReference{Name: sec.Name, Key: "url"}}}
	if signingKey != "" {
		sec.Data["key"] = []byte(signingKey)
		sink.Spec.SigningKey = &kubagev1alpha1.SecretKeyReference{Name: sec.Name, Key: "key"}
	}
	Expect(k8sClient.Create(ctx, sec)).To(Succeed())
	Expect(k8sClient.Create(ctx, sink)).To(Succeed())
}
