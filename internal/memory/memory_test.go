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

package memory

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func entry(i int, at time.Time, fp Fingerprint) Entry {
	return Entry{Session: fmt.Sprintf("s%d", i), UID: fmt.Sprintf("uid-%d", i), At: at, Fingerprint: fp, RootCause: "cause", Fix: "fix"}
}

func TestRecordBoundsAndFinds(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	now := t0
	s := &Store{Client: fake.NewClientset(), MaxEntries: 3, Now: func() time.Time { return now }}
	crash := NewFingerprint("CrashLoopBackOff@Deployment", "crash-loop:Pod>Pod", "rule:crash-loop")
	quota := NewFingerprint("QuotaExceeded@ResourceQuota", "quota:ReplicaSet>ResourceQuota")

	m, err := s.Find(ctx, "ns", crash, "", "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m).To(BeNil(), "no memory yet")

	for i := 0; i < 5; i++ {
		fp := crash
		if i%2 == 1 {
			fp = quota
		}
		g.Expect(s.Record(ctx, "ns", entry(i, now.Add(time.Duration(i)*time.Minute), fp))).To(Succeed())
	}
	all, err := s.Entries(ctx, "ns")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(all).To(HaveLen(3), "MaxEntries bounds the namespace's memory; the oldest go")
	g.Expect([]string{all[0].Session, all[1].Session, all[2].Session}).To(Equal([]string{"s4", "s3", "s2"}))

	m, err = s.Find(ctx, "ns", crash, "", "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.Entry.Session).To(Equal("s4"))
	g.Expect(m.Similarity).To(Equal(100))
	g.Expect(m.Occurrences).To(Equal(2))

	By := "the session's own entry is never its own precedent"
	m, err = s.Find(ctx, "ns", crash, "uid-4", "")
	g.Expect(err).NotTo(HaveOccurred(), By)
	g.Expect(m.Entry.Session).To(Equal("s2"))

	By = "recording the same run again replaces its entry"
	again := entry(4, now.Add(10*time.Minute), crash)
	again.Fix = "another fix"
	g.Expect(s.Record(ctx, "ns", again)).To(Succeed(), By)
	all, _ = s.Entries(ctx, "ns")
	g.Expect(all).To(HaveLen(3))
	g.Expect(all[0].Fix).To(Equal("another fix"))

	By = "namespaces do not share memory"
	m, err = s.Find(ctx, "other", crash, "", "")
	g.Expect(err).NotTo(HaveOccurred(), By)
	g.Expect(m).To(BeNil())

	By = "entries past the retention are neither found nor kept"
	now = now.Add(DefaultRetention + time.Hour)
	m, err = s.Find(ctx, "ns", crash, "", "")
	g.Expect(err).NotTo(HaveOccurred(), By)
	g.Expect(m).To(BeNil())
	g.Expect(s.Record(ctx, "ns", entry(9, now, quota))).To(Succeed())
	all, _ = s.Entries(ctx, "ns")
	g.Expect(all).To(HaveLen(1))
}

func TestRecordIsBoundedInBytes(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	s := &Store{Client: cs, Now: func() time.Time { return t0 }}
	huge := strings.Repeat("x", 1<<20)
	signals := make([]string, 200)
	for i := range signals {
		signals[i] = fmt.Sprintf("%d-%s", i, huge[:500])
	}
	for i := 0; i < 80; i++ {
		e := Entry{Session: huge, UID: fmt.Sprintf("u%d", i), At: t0, RootCause: huge, Fix: huge, Culprit: huge, Category: huge,
			Fingerprint: Fingerprint{Root: huge, Signals: signals}}
		g.Expect(s.Record(ctx, "ns", e)).To(Succeed())
	}
	cm, err := cs.CoreV1().ConfigMaps("ns").Get(ctx, MemoryName, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(len(cm.Data[entriesKey])).To(BeNumerically("<", 900<<10), "the default bounds keep the memory well inside one ConfigMap")
	all, _ := s.Entries(ctx, "ns")
	g.Expect(all).To(HaveLen(DefaultMaxEntries))
	g.Expect(all[0].Fingerprint.Signals).To(HaveLen(maxSignals))
}

func TestForeignOrDamagedConfigMap(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: MemoryName, Namespace: "mine"}, Data: map[string]string{entriesKey: "[]"}}
	damaged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: MemoryName, Namespace: "broken",
		Labels: map[string]string{LabelComponent: ComponentMemory, LabelManagedBy: ManagedBy}}, Data: map[string]string{entriesKey: "{not json"}}
	s := &Store{Client: fake.NewClientset(foreign, damaged), Now: func() time.Time { return t0 }}
	fp := NewFingerprint("A@B")

	_, err := s.Find(ctx, "mine", fp, "", "")
	g.Expect(err).To(MatchError(ErrNotManaged), "a user's ConfigMap of that name is neither read nor overwritten")
	g.Expect(s.Record(ctx, "mine", entry(1, t0, fp))).To(MatchError(ErrNotManaged))

	m, err := s.Find(ctx, "broken", fp, "", "")
	g.Expect(err).NotTo(HaveOccurred(), "a damaged memory reads as empty")
	g.Expect(m).To(BeNil())
	g.Expect(s.Record(ctx, "broken", entry(1, t0, fp))).To(Succeed(), "and the next write repairs it")
	all, _ := s.Entries(ctx, "broken")
	g.Expect(all).To(HaveLen(1))
}

func TestSimilarity(t *testing.T) {
	g := NewWithT(t)
	a := NewFingerprint("R@K", "x", "y", "z", "w")
	g.Expect(a.Similarity(a)).To(Equal(100))
	g.Expect(a.Similarity(NewFingerprint("R@K", "x", "y"))).To(Equal(75))
	g.Expect(a.Similarity(NewFingerprint("R@K"))).To(Equal(50))
	g.Expect(a.Similarity(NewFingerprint("Q@K", "x", "y", "z", "w"))).To(Equal(0))
	g.Expect(Fingerprint{}.Similarity(Fingerprint{})).To(Equal(0))
	g.Expect(NewFingerprint("R@K", "b", "a", "a").Signals).To(Equal([]string{"a", "b"}))
}

// Entries recorded while a write is under way are stored together by the next write,
// and every caller returns once its own entry is stored.
func TestRecordsDuringAWriteShareTheNextOne(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cs := fake.NewClientset()
	gate := make(chan struct{})
	var writes atomic.Int32
	cs.PrependReactor("*", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() == "create" || a.GetVerb() == "update" {
			if writes.Add(1) == 1 {
				<-gate
			}
		}
		return false, nil, nil
	})
	s := &Store{Client: cs, Now: func() time.Time { return t0 }}
	fp := NewFingerprint("CrashLoopBackOff@Deployment", "rule:crash-loop")
	errs := make(chan error, 10)
	go func() { errs <- s.Record(ctx, "ns", entry(0, t0, fp)) }()
	g.Eventually(writes.Load).Should(Equal(int32(1)), "the first write is under way")
	for i := 1; i < 10; i++ {
		go func() { errs <- s.Record(ctx, "ns", entry(i, t0.Add(time.Duration(i)*time.Second), fp)) }()
	}
	m := s.ns("ns")
	g.Eventually(func() int {
		m.queueMu.Lock()
		defer m.queueMu.Unlock()
		return len(m.queue)
	}).Should(Equal(9))
	close(gate)
	for i := 0; i < 10; i++ {
		g.Expect(<-errs).To(Succeed())
	}
	g.Expect(writes.Load()).To(Equal(int32(2)), "nine entries in one write")
	all, err := s.Entries(ctx, "ns")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(all).To(HaveLen(10))
	g.Expect(all[0].Session).To(Equal("s9"))
}
