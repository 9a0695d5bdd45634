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
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/alerts"
)

// High availability: two replicas elect a leader; killing the leader during a burst of
// sessions hands over within the lease duration, and every session completes. The alert
// receiver answers on both replicas, and its cooldown is kept in the cluster.
var _ = Describe("Two operator replicas", Ordered, func() {
	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	const (
		// Short, so the handover is quick, yet long enough that a loaded machine's slow
		// API server does not cost the leader its lease.
		lease = 6 * time.Second
		renew = 4 * time.Second
		retry = 1 * time.Second
	)

	It("hand over when the leader is killed during a burst, and share the alert cooldown", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		replica := func() (*managerProcess, string) {
			recv, url := receiverArgs()
			return startManager(append(recv, "--agent-image="+agentImage, "--leader-elect", "--leader-election-namespace="+ns,
				"--leader-elect-lease-duration="+lease.String(), "--leader-elect-renew-deadline="+renew.String(),
				"--leader-elect-retry-period="+retry.String())...), url
		}
		a, urlA := replica()
		Eventually(a.IsLeader).WithContext(ctx).Should(BeTrue(), "the first replica leads")
		b, urlB := replica()

		By("opening a session for an alert on the follower, and seeing the leader's receiver agree")
		startsAt := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
		first := postAlert(ctx, urlB, ns, "e2e0000000000001", startsAt, nil)
		Expect(first.Outcome).To(Equal(alerts.OutcomeCreated))
		Expect(postAlert(ctx, urlA, ns, "e2e0000000000001", startsAt, nil).Outcome).To(Equal(alerts.OutcomeDuplicate), "one session per occurrence, whichever replica is asked")

		By("creating a burst of sessions and killing the leader while they run")
		const burst = 8
		var sessions []*kubagev1alpha1.Troubleshoot
		for i := 0; i < burst; i++ {
			sessions = append(sessions, createTroubleshoot(ctx, ns, fmt.Sprintf("api-down-%d", i), func(ts *kubagev1alpha1.Troubleshoot) {
				ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
				ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerInProcess
			}))
		}
		Eventually(func(g Gomega) {
			started := 0
			for _, ts := range sessions {
				cur := &kubagev1alpha1.Troubleshoot{}
				g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), cur)).To(Succeed())
				if cur.Status.Phase != "" {
					started++
				}
			}
			g.Expect(started).To(BeNumerically(">", 0))
		}).WithContext(ctx).WithPolling(10 * time.Millisecond).Should(Succeed())
		holder := leaseHolder(ctx, ns)
		a.Kill()
		killed := time.Now()

		By("waiting for the follower to take the lease")
		Eventually(func() string { return leaseHolder(ctx, ns) }).WithContext(ctx).WithPolling(100 * time.Millisecond).
			ShouldNot(Equal(holder))
		takeover := time.Since(killed)
		GinkgoWriter.Printf("leader killed; the follower led after %s (lease %s, retry %s)\n", takeover.Round(time.Millisecond), lease, retry)
		// A killed leader never releases the lease: the follower acquires it once the lease
		// has run out since it *observed* the last renewal (client-go's isLeaseValid counts from
		// its own observedTime), at its next try. The follower tries every retry period
		// jittered by client-go's JitterFactor 1.2, so each wait is between 1 and 2.2 periods:
		// up to 2.2 periods to observe the last renewal (made before the kill) and up to 2.2
		// more to try after the lease ran out; plus a second for this spec's 100ms polling and
		// the API round trips of a loaded 2-core machine. A follower that waited for a second
		// lease, or for the dead leader's renew deadline on top, would still fail here.
		Expect(takeover).To(BeNumerically("<=", lease+22*retry/5+time.Second), "the follower takes over once the lease runs out")
		Eventually(b.IsLeader).WithContext(ctx).Should(BeTrue())

		for _, ts := range sessions {
			ts = waitForTerminal(ctx, ts)
			expectConfigMapMissing(ctx, ts)
		}

		By("restarting the killed replica: its receiver remembers the cooldown from the cluster")
		_, urlA = replica()
		again := postAlert(ctx, urlA, ns, "e2e0000000000001", startsAt.Add(5*time.Minute), nil)
		Expect(again.Outcome).To(Equal(alerts.OutcomeSkipped), "a new occurrence inside the cooldown: %+v", again)
		Expect(again.Reason).To(Equal(alerts.ReasonCooldown))
		list := &kubagev1alpha1.TroubleshootList{}
		Expect(kube.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{alerts.LabelAlertFingerprint: "e2e0000000000001"})).To(Succeed())
		Expect(list.Items).To(HaveLen(1), "one session for the alert across replicas and restarts")
	}, SpecTimeout(5*time.Minute))
})

// leaseHolder is the holder of the manager's leader-election Lease in ns ("" before one).
func leaseHolder(ctx context.Context, ns string) string {
	l := &coordinationv1.Lease{}
	if err := kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: "manager.kubage.io"}, l); err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
