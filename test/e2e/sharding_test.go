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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/alerts"
)

// Sharding: two operators on one cluster, each started with --watch-label-selector on
// sharding.kubage.io/key, reconcile only their own shard's sessions; the alert receiver
// labels the sessions it opens by its shard rules.
var _ = Describe("Sharded operators", Ordered, func() {
	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	It("reconcile only their shard, and the receiver assigns shards by rule", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		shard := func(key string) string {
			return "--watch-label-selector=" + kubagev1alpha1.ShardingKeyLabel + "=" + key
		}
		recv, url := receiverArgs()
		blue := startManager(append(recv, shard("blue"), `--alerts-shard=green:severity="critical"`)...)
		green := startManager(shard("green"))

		session := func(name, key string) *kubagev1alpha1.Troubleshoot {
			return createTroubleshoot(ctx, ns, name, func(ts *kubagev1alpha1.Troubleshoot) {
				if key != "" {
					ts.Labels = map[string]string{kubagev1alpha1.ShardingKeyLabel: key}
				}
				ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
				ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerInProcess
			})
		}
		onBlue, onGreen, unsharded := session("on-blue", "blue"), session("on-green", "green"), session("unsharded", "")

		By("posting a critical alert (green by rule) and a warning (no rule) to the blue operator's receiver")
		startsAt := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
		critical := postAlert(ctx, url, ns, "5a4d000000000001", startsAt, map[string]string{"severity": "critical"})
		warning := postAlert(ctx, url, ns, "5a4d000000000002", startsAt, map[string]string{"severity": "warning"})
		Expect(critical.Outcome).To(Equal(alerts.OutcomeCreated))
		Expect(warning.Outcome).To(Equal(alerts.OutcomeCreated))
		fromAlert := &kubagev1alpha1.Troubleshoot{}
		Expect(kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: critical.Session}, fromAlert)).To(Succeed())
		Expect(fromAlert.Labels).To(HaveKeyWithValue(kubagev1alpha1.ShardingKeyLabel, "green"))
		unrouted := &kubagev1alpha1.Troubleshoot{}
		Expect(kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: warning.Session}, unrouted)).To(Succeed())
		Expect(unrouted.Labels).NotTo(HaveKey(kubagev1alpha1.ShardingKeyLabel))

		expectConfigMapMissing(ctx, waitForTerminal(ctx, onBlue))
		expectConfigMapMissing(ctx, waitForTerminal(ctx, onGreen))
		waitForTerminal(ctx, fromAlert)

		By("checking who advanced what, and that sessions of no shard here stay untouched")
		Expect(blue.Reconciled(ns, onBlue.Name)).To(BeTrue())
		Expect(green.Reconciled(ns, onGreen.Name)).To(BeTrue())
		Expect(green.Reconciled(ns, fromAlert.Name)).To(BeTrue(), "the receiver's rule sent the critical alert to green")
		for _, name := range []string{onGreen.Name, fromAlert.Name, unsharded.Name, unrouted.Name} {
			Expect(blue.Reconciled(ns, name)).To(BeFalse(), "blue advanced %s", name)
		}
		for _, name := range []string{onBlue.Name, unsharded.Name, unrouted.Name} {
			Expect(green.Reconciled(ns, name)).To(BeFalse(), "green advanced %s", name)
		}
		Consistently(func(g Gomega) {
			for _, ts := range []*kubagev1alpha1.Troubleshoot{unsharded, unrouted} {
				cur := &kubagev1alpha1.Troubleshoot{}
				g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), cur)).To(Succeed())
				g.Expect(cur.Status.Phase).To(BeEmpty(), "%s belongs to the main operator, which is not running", ts.Name)
			}
		}).WithContext(ctx).WithTimeout(2 * time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))
})
