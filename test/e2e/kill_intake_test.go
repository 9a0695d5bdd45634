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
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/alerts"
)

// Kills outside the session loop: while a KnowledgeSource is fetched and indexed, and while
// an alert storm is being received.
var _ = Describe("Kill matrix, intake", Ordered, Label("kill"), func() {
	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	It("indexes a KnowledgeSource completely after kills during its indexing, never serving a partial index", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		// Each document takes a while to fetch, so the indexing spans several seconds.
		docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(400 * time.Millisecond)
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprintf(w, "# Runbook %s\n\n## Symptoms\n\nPods of %s fail with CreateContainerConfigError.\n\n## Fix\n\nCreate the ConfigMap the pods read, then restart the rollout.\n", r.URL.Path, r.URL.Path)
		}))
		DeferCleanup(docs.Close)
		var urls []string
		for i := 0; i < 8; i++ {
			urls = append(urls, fmt.Sprintf("%s/runbook-%d.md", docs.URL, i))
		}
		const controlKey = "ks-control"
		startManager("--watch-label-selector=" + kubagev1alpha1.ShardingKeyLabel + "=" + controlKey)
		killedArgs := []string{"--watch-label-selector=!" + kubagev1alpha1.ShardingKeyLabel}
		op := startManager(killedArgs...)

		wc, err := client.NewWithWatch(cluster.RESTConfig, client.Options{Scheme: kube.Scheme()})
		Expect(err).NotTo(HaveOccurred())
		w, err := wc.Watch(ctx, &kubagev1alpha1.KnowledgeSourceList{}, client.InNamespace(ns))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Stop)
		var mu sync.Mutex
		var readySeen []kubagev1alpha1.KnowledgeSourceStatus
		go func() {
			for ev := range w.ResultChan() {
				if ks, ok := ev.Object.(*kubagev1alpha1.KnowledgeSource); ok && ev.Type != watch.Deleted && ks.Name == "runbooks" && ks.Status.Phase == kubagev1alpha1.KnowledgeReady {
					mu.Lock()
					readySeen = append(readySeen, *ks.Status.DeepCopy())
					mu.Unlock()
				}
			}
		}()

		source := func(name string, labels map[string]string) *kubagev1alpha1.KnowledgeSource {
			ks := &kubagev1alpha1.KnowledgeSource{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
				Spec:       kubagev1alpha1.KnowledgeSourceSpec{HTTP: &kubagev1alpha1.HTTPSource{URLs: urls}},
			}
			Expect(kube.Create(ctx, ks)).To(Succeed())
			return ks
		}
		control := source("runbooks-control", map[string]string{kubagev1alpha1.ShardingKeyLabel: controlKey})
		killed := source("runbooks", nil)

		By("killing the operator while the source is fetched and indexed")
		kills := 0
		for kills < 3 {
			cur := &kubagev1alpha1.KnowledgeSource{}
			Expect(kube.Get(ctx, client.ObjectKeyFromObject(killed), cur)).To(Succeed())
			if cur.Status.Phase == kubagev1alpha1.KnowledgeReady {
				break
			}
			time.Sleep(time.Duration(500+rand.IntN(1500)) * time.Millisecond)
			op.Kill()
			kills++
			GinkgoWriter.Printf("kill %d during indexing (phase then %q)\n", kills, cur.Status.Phase)
			op = startManager(killedArgs...)
		}
		Expect(kills).To(BeNumerically(">=", 1), "the source was indexed before any kill")

		ready := func(ks *kubagev1alpha1.KnowledgeSource) kubagev1alpha1.KnowledgeSourceStatus {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ks), ks)).To(Succeed())
				g.Expect(ks.Status.Phase).To(Equal(kubagev1alpha1.KnowledgeReady), "%v", ks.Status.Conditions)
			}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
			return ks.Status
		}
		want, got := ready(control), ready(killed)
		Expect(want.DocumentCount).To(BeEquivalentTo(len(urls)))
		Expect(got.Revision).To(Equal(want.Revision))
		Expect(got.DocumentCount).To(Equal(want.DocumentCount))
		Expect(got.ChunkCount).To(Equal(want.ChunkCount))
		// The watch delivers the Ready status asynchronously: a GET may see it first.
		Eventually(func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(readySeen)
		}).WithContext(ctx).WithTimeout(20*time.Second).Should(BeNumerically(">", 0), "the watch saw the source Ready")
		mu.Lock()
		defer mu.Unlock()
		for _, st := range readySeen {
			Expect([]any{st.Revision, st.DocumentCount, st.ChunkCount}).To(Equal([]any{want.Revision, want.DocumentCount, want.ChunkCount}),
				"a Ready status never describes a partial index")
		}
		GinkgoWriter.Printf("knowledge source: %d kills during indexing; ready with %d documents, %d chunks, revision %s, as the control\n",
			kills, got.DocumentCount, got.ChunkCount, got.Revision)
	}, SpecTimeout(4*time.Minute))

	It("opens exactly one session per fingerprint when killed during an alert storm", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		recv, url := receiverArgs()
		// The storm's sessions go to a shard no operator runs: the receiver is what is tested.
		// It answers once a session is in its journal, which the restart reads back.
		args := append(recv, "--watch-label-selector=!"+kubagev1alpha1.ShardingKeyLabel, `--alerts-shard=storm-sink:alertname="StormAlert"`,
			"--alerts-journal-dir="+GinkgoT().TempDir())
		op := startManager(args...)
		storm := alerts.StormOptions{URL: url, Token: e2eAlertToken, Namespace: ns, Alerts: 1500, Fingerprints: 150, Clients: 4, AlertsPerRequest: 5}
		// The kill comes once a fifth of the storm's requests were answered: with answers
		// taken from the journal the storm is over within a second, and a kill timed by the
		// sessions it creates would land after it.
		midStorm := make(chan struct{})
		var answered atomic.Int32
		var mid sync.Once
		storm.HTTPClient = &http.Client{Timeout: time.Minute, Transport: answerCounter(func() {
			if answered.Add(1) == int32(storm.Alerts/storm.AlertsPerRequest/5) {
				mid.Do(func() { close(midStorm) })
			}
		})}
		Eventually(func() error {
			_, err := http.Get(url)
			return err
		}).WithContext(ctx).Should(Succeed(), "the receiver listens")

		By("sending the storm and killing the operator in the middle of it")
		done := make(chan alerts.StormResult, 1)
		go func() {
			defer GinkgoRecover()
			r, _ := alerts.RunStorm(context.WithoutCancel(ctx), storm)
			done <- r
		}()
		select {
		case <-midStorm:
		case r := <-done:
			Fail(fmt.Sprintf("the storm ended before a fifth of it was answered: %+v", r))
		case <-ctx.Done():
			Fail("the spec ended before a fifth of the storm was answered")
		}
		op.Kill()
		first := <-done
		GinkgoWriter.Printf("storm with a kill after %d answers: %d requests, %d answered, %d transport errors, %d created\n",
			storm.Alerts/storm.AlertsPerRequest/5, first.Requests, first.Answered, first.TransportErrors, first.Created)
		Expect(first.TransportErrors).To(BeNumerically(">", 0), "the kill came while the storm was still being sent")

		By("restarting the operator: every session acknowledged before the kill is created, then the senders retry the whole storm")
		startManager(args...)
		Eventually(func() error {
			_, err := http.Get(url)
			return err
		}).WithContext(ctx).Should(Succeed(), "the receiver listens again")
		Eventually(func(g Gomega) {
			list := &kubagev1alpha1.TroubleshootList{}
			g.Expect(kube.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			g.Expect(len(list.Items)).To(BeNumerically(">=", first.Created), "acknowledged before the kill")
		}).WithContext(ctx).Should(Succeed())
		again, err := alerts.RunStorm(ctx, storm)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Codes).To(HaveKeyWithValue(http.StatusOK, again.Requests), "every retried payload is accepted: %v", again.Codes)

		// The retry was answered from the journal; its workers may still be creating.
		list := &kubagev1alpha1.TroubleshootList{}
		Eventually(func(g Gomega) {
			g.Expect(kube.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			g.Expect(len(list.Items)).To(BeNumerically(">=", storm.Fingerprints))
		}).WithContext(ctx).Should(Succeed())
		perFingerprint := map[string]int{}
		for _, ts := range list.Items {
			perFingerprint[ts.Labels[alerts.LabelAlertFingerprint]]++
			Expect(ts.Labels).To(HaveKeyWithValue(kubagev1alpha1.ShardingKeyLabel, "storm-sink"))
		}
		Expect(perFingerprint).To(HaveLen(storm.Fingerprints))
		Expect(perFingerprint).To(HaveEach(1), "exactly one session per fingerprint across the kill")
		// A create whose answer the kill cut off is reported as a duplicate on the retry.
		Expect(first.Created+again.Created).To(BeNumerically("<=", storm.Fingerprints), "no session reported created twice")
	}, SpecTimeout(4*time.Minute))
})

// answerCounter is an HTTP transport that calls answered after each request that got a response.
type answerCounter func()

func (a answerCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		a()
	}
	return resp, err
}
