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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
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

		s := newSchedule(ns, "web-check", "*/2 * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) {
			s.Spec.SuccessfulRunsHistoryLimit = ptr.To[int32](2)
		})
		Expect(k8sClient.Create(ctx, s)).To(Succeed())

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
	})

	It("starts nothing while suspended", func(ctx SpecContext) {
		ns := newNamespace(ctx, "suspended")
		startScheduleManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond})
		s := newSchedule(ns, "paused", "* * * * * *", func(s *kubagev1alpha1.TroubleshootSchedule) { s.Spec.Suspend = true })
		Expect(k8sClient.Create(ctx, s)).To(Succeed())
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
		delete(s.Labels, controllers.ShardLabel)
		Expect(k8sClient.Create(ctx, s)).To(Succeed())
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
		delete(six.Labels, controllers.ShardLabel)
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

func newSchedule(ns, name, cron string, mutate func(*kubagev1alpha1.TroubleshootSchedule)) *kubagev1alpha1.TroubleshootSchedule {
	s := &kubagev1alpha1.TroubleshootSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{controllers.ShardLabel: testShard}},
		Spec: kubagev1alpha1.TroubleshootScheduleSpec{
			Schedule: cron,
			TroubleshootTemplate: kubagev1alpha1.TroubleshootTemplate{
				Metadata: kubagev1alpha1.TemplateMetadata{Labels: map[string]string{controllers.ShardLabel: testShard}},
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
	opts.Shard = testShard
	opts.ScheduleSeconds = true
	Expect(controllers.SetupTroubleshoot(mgr, opts)).To(Succeed())
	r := &controllers.TroubleshootScheduleReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("kubage")}
	Expect(r.SetupWithManager(mgr, opts)).To(Succeed())
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		defer GinkgoRecover()
		done <- mgr.Start(mctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			Eventually(done).Should(Receive(BeNil()))
		})
	}
	DeferCleanup(stop)
	return stop
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
