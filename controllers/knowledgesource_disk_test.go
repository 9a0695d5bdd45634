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
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/knowledge"
)

// Knowledge on disk: git sources are cloned into a directory under a per-source cap, and
// the embedded index is persisted there so that a restarted manager answers at once.

// The shards of the KnowledgeSources these specs run their own managers for, one per
// spec so that no manager picks up the other spec's sources.
const (
	tooLargeShard = "knowledge-too-large"
	restartShard  = "knowledge-restart"
)

// gitServer serves the repositories under one directory with git http-backend. While
// gated, requests wait until the gate opens (or the client gives up); it counts the
// requests it completed and the upload-pack requests (what a clone or fetch sends, as
// opposed to the ref listing every check sends).
type gitServer struct {
	root      string
	url       string
	gate      atomic.Pointer[chan struct{}]
	waiting   atomic.Int32
	completed atomic.Int32
	mu        sync.Mutex
	packs     map[string]int // repository → upload-pack POSTs
}

func newGitServer() *gitServer {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		Skip("the git binary is not installed; git http-backend serves the test repositories")
	}
	s := &gitServer{root: GinkgoT().TempDir(), packs: map[string]int{}}
	backend := &cgi.Handler{Path: gitBin, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + s.root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if gate := s.gate.Load(); gate != nil {
			s.waiting.Add(1)
			select {
			case <-*gate:
			case <-req.Context().Done():
				s.waiting.Add(-1)
				return
			}
			s.waiting.Add(-1)
		}
		if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git-upload-pack") {
			s.mu.Lock()
			s.packs[strings.Split(strings.TrimPrefix(req.URL.Path, "/"), "/")[0]]++
			s.mu.Unlock()
		}
		backend.ServeHTTP(w, req)
		s.completed.Add(1)
	}))
	DeferCleanup(func() {
		s.open()
		srv.Close()
	})
	s.url = srv.URL
	return s
}

func (s *gitServer) block() {
	ch := make(chan struct{})
	s.gate.Store(&ch)
}

func (s *gitServer) open() {
	if ch := s.gate.Swap(nil); ch != nil {
		close(*ch)
	}
}

func (s *gitServer) uploadPacks(repo string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.packs[repo]
}

// repo commits files into a new repository name under the server's root and returns its URL.
func (s *gitServer) repo(name string, files map[string][]byte) string {
	dir := filepath.Join(s.root, name)
	r, err := git.PlainInit(dir, false)
	Expect(err).NotTo(HaveOccurred())
	s.commit(r, dir, files)
	return s.url + "/" + name
}

func (s *gitServer) commit(r *git.Repository, dir string, files map[string][]byte) {
	wt, err := r.Worktree()
	Expect(err).NotTo(HaveOccurred())
	for p, content := range files {
		Expect(os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, p), content, 0o644)).To(Succeed())
		_, err := wt.Add(p)
		Expect(err).NotTo(HaveOccurred())
	}
	_, err = wt.Commit("update", &git.CommitOptions{Author: &gitobject.Signature{Name: "t", Email: "t@example.com", When: time.Now()}})
	Expect(err).NotTo(HaveOccurred())
}

// startDiskManager runs a KnowledgeSource reconciler for one shard over svc.
// Its cache holds the shard's objects only, as the manager's does in production: sources of
// other specs must not reach it through the ConfigMap watch or the Secret poller.
func startDiskManager(shard string, svc *knowledge.Service) (stop func()) {
	watch := labels.SelectorFromSet(labels.Set{kubagev1alpha1.ShardingKeyLabel: shard})
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 k8sClient.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		Cache:                  cache.Options{ByObject: controllers.WatchCacheOptions(watch)},
	})
	Expect(err).NotTo(HaveOccurred())
	r := &controllers.KnowledgeSourceReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("kubage"), Knowledge: svc}
	Expect(r.SetupWithManager(mgr, controllers.Options{MaxConcurrentReconciles: 2, SecretPollInterval: time.Second, WatchSelector: watch})).To(Succeed())
	return runManager(mgr)
}

func diskSource(shard, ns, name, url string) *kubagev1alpha1.KnowledgeSource {
	return &kubagev1alpha1.KnowledgeSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{kubagev1alpha1.ShardingKeyLabel: shard}},
		Spec:       kubagev1alpha1.KnowledgeSourceSpec{Git: &kubagev1alpha1.GitSource{URL: url}, TrustLevel: 3},
	}
}

// noise is incompressible Markdown of about n bytes: a pack cannot shrink it.
func noise(n int) []byte {
	raw := make([]byte, n*3/4)
	_, _ = rand.Read(raw)
	return []byte("# Noise\n\n" + base64.StdEncoding.EncodeToString(raw) + "\n")
}

func runbookOf(i int) []byte {
	return []byte(fmt.Sprintf("# Frobnicator %d overheats\n\n## Symptoms\n\nThe frobnicator of shard %d overheats and its pods restart.\n\n## Fix\n\nLower the frobnication rate of shard %d.\n", i, i, i))
}

var _ = Describe("KnowledgeSource on disk", func() {
	It("marks a git source twice its cap TooLarge, removes the partial clone and leaves other sources alone", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ks-too-large")
		const limit = 2 << 20
		srv := newGitServer()
		big := map[string][]byte{}
		for i := 0; i < 16; i++ {
			big[fmt.Sprintf("docs/noise-%02d.md", i)] = noise(2 * limit / 16) // twice the cap in all
		}
		bigURL := srv.repo("big", big)
		smallURL := srv.repo("small", map[string][]byte{"runbook.md": runbookOf(1)})

		ws, err := kbbuild.NewGitWorkspace(filepath.Join(GinkgoT().TempDir(), "git"), limit, 2*limit)
		Expect(err).NotTo(HaveOccurred())
		startDiskManager(tooLargeShard, knowledge.NewService(knowledge.Options{GitWorkspace: ws}))
		Expect(k8sClient.Create(ctx, diskSource(tooLargeShard, ns, "big", bigURL))).To(Succeed())
		Expect(k8sClient.Create(ctx, diskSource(tooLargeShard, ns, "small", smallURL))).To(Succeed())

		tooLarge := ksExpectReason(ctx, client.ObjectKey{Namespace: ns, Name: "big"}, metav1.ConditionFalse, kubagev1alpha1.TooLargeReason)
		ready := ksExpectReason(ctx, client.ObjectKey{Namespace: ns, Name: "small"}, metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		Expect(tooLarge.Status.Phase).To(Equal(kubagev1alpha1.KnowledgeFailed))
		Expect(tooLarge.Status.ChunkCount).To(BeZero())
		Expect(ready.Status.DocumentCount).To(BeEquivalentTo(1))
		Eventually(func(g Gomega) {
			list := &eventsv1.EventList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			var reasons []string
			for _, e := range list.Items {
				if e.Regarding.Name == "big" {
					reasons = append(reasons, e.Reason)
				}
			}
			g.Expect(reasons).To(ContainElement(kubagev1alpha1.TooLargeReason))
		}).Should(Succeed())
		clones, err := ws.Clones()
		Expect(err).NotTo(HaveOccurred())
		Expect(clones).To(BeEmpty(), "the partial clone is removed")
		// Memory-bounded by construction: the clone stopped at the cap on disk, never in memory.
		Expect(srv.uploadPacks("big")).To(BeNumerically(">=", 1))
	})

	It("serves three indexed sources right after a restart, before any fetch completes, and re-fetches only the changed one", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ks-restart")
		srv := newGitServer()
		names := []string{"alpha", "bravo", "charlie"}
		for i, n := range names {
			Expect(k8sClient.Create(ctx, diskSource(restartShard, ns, n, srv.repo(n, map[string][]byte{"runbook.md": runbookOf(i)})))).To(Succeed())
		}
		dir := GinkgoT().TempDir()
		service := func() *knowledge.Service {
			ws, err := kbbuild.NewGitWorkspace(filepath.Join(dir, "git"), 0, 0)
			Expect(err).NotTo(HaveOccurred())
			return knowledge.NewService(knowledge.Options{GitWorkspace: ws, SnapshotDir: filepath.Join(dir, "snapshots")})
		}
		stop := startDiskManager(restartShard, service())
		revisions := map[string]string{}
		for _, n := range names {
			ks := ksExpectReason(ctx, client.ObjectKey{Namespace: ns, Name: n}, metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
			revisions[n] = ks.Status.Revision
		}
		stop()

		By("restarting with the git server blocked: nothing can be fetched")
		srv.block()
		completedBefore := srv.completed.Load()
		start := time.Now()
		svc := service()
		restored, err := svc.Restore(ctx)
		restoreTook := time.Since(start)
		Expect(err).NotTo(HaveOccurred())
		Expect(restored).To(Equal(3))
		startDiskManager(restartShard, svc)
		Eventually(srv.waiting.Load).Should(BeNumerically(">=", 1), "the restarted manager checks its sources")
		ans, err := svc.Search(ctx, knowledge.Query{Namespace: ns, Text: "frobnicator overheats", K: 5})
		firstAnswer := time.Since(start)
		Expect(err).NotTo(HaveOccurred())
		cited := map[string]bool{}
		for _, s := range ans.Snippets {
			cited[s.Citation.Source] = true
		}
		Expect(cited).To(HaveLen(3), "every restored source answers: %+v", ans.Snippets)
		Expect(srv.completed.Load()).To(Equal(completedBefore), "no request to the git server completed before the answer")
		GinkgoWriter.Printf("restart: %d sources restored in %s, first answer %s after the restart (the manager started and its checks waiting), while %d fetches waited on the git server\n",
			restored, restoreTook, firstAnswer, srv.waiting.Load())
		AddReportEntry("time to first answer after restart", firstAnswer.String())

		By("opening the git server: unchanged sources are checked by their refs alone")
		packs := map[string]int{}
		for _, n := range names {
			packs[n] = srv.uploadPacks(n)
		}
		srv.open()
		for _, n := range names {
			Eventually(func(g Gomega) {
				ks := &kubagev1alpha1.KnowledgeSource{}
				g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: n}, ks)).To(Succeed())
				g.Expect(ks.Status.LastIndexTime).NotTo(BeNil())
				g.Expect(ks.Status.LastIndexTime.Time).To(BeTemporally(">", start.Add(-time.Second)))
				g.Expect(ks.Status.Revision).To(Equal(revisions[n]))
			}).Should(Succeed())
		}
		for _, n := range names {
			Expect(srv.uploadPacks(n)).To(Equal(packs[n]), "%s was not fetched again", n)
		}

		By("a new commit in one repository re-fetches that one only")
		r, err := git.PlainOpen(filepath.Join(srv.root, "bravo"))
		Expect(err).NotTo(HaveOccurred())
		srv.commit(r, filepath.Join(srv.root, "bravo"), map[string][]byte{"more.md": runbookOf(7)})
		for _, n := range names {
			ksRequestReconcile(ctx, &kubagev1alpha1.KnowledgeSource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n}})
		}
		Eventually(func(g Gomega) {
			ks := &kubagev1alpha1.KnowledgeSource{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "bravo"}, ks)).To(Succeed())
			g.Expect(ks.Status.DocumentCount).To(BeEquivalentTo(2))
		}).Should(Succeed())
		Expect(srv.uploadPacks("bravo")).To(BeNumerically(">", packs["bravo"]))
		Consistently(func() []int { return []int{srv.uploadPacks("alpha"), srv.uploadPacks("charlie")} }, 2*time.Second).
			Should(Equal([]int{packs["alpha"], packs["charlie"]}))
	})
})
