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
	"hash/fnv"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/retrieval"
)

// knowledgeService is the knowledge service of the suite's manager; specs search it.
var knowledgeService = knowledge.NewService(knowledge.Options{})

// runbookRepo is a real git repository on disk, filled from the shared runbooks corpus
// and served over HTTP by git http-backend behind basic auth.
type runbookRepo struct {
	dir   string
	repo  *git.Repository
	when  time.Time
	url   string
	files []string
}

const (
	gitUser     = "reader"
	gitPassword = "s3cret"
	// runbookCount keeps the repository small enough for a fast suite.
	runbookCount = 20
)

// newRunbookRepo commits runbookCount runbooks and serves the repository; it skips the
// spec when the shared corpus or the git binary is missing.
func newRunbookRepo() *runbookRepo {
	corpus := filepath.Join(repoRoot, "..", "shared", "corpus", "runbooks", "kubernetes")
	entries, err := os.ReadDir(corpus)
	if err != nil {
		Skip("the shared runbooks corpus is not at " + corpus + " (a checkout of ../shared next to the repository): " + err.Error())
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		Skip("the git binary is not installed; git http-backend serves the test repository")
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") && !strings.HasPrefix(e.Name(), "_") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	// KubePodCrashLooping must be among them: specs search for it.
	var chosen []string
	for _, n := range names {
		if n == "KubePodCrashLooping.md" || len(chosen) < runbookCount-1 {
			chosen = append(chosen, n)
		}
		if len(chosen) == runbookCount {
			break
		}
	}
	Expect(chosen).To(ContainElement("KubePodCrashLooping.md"))

	dir := filepath.Join(GinkgoT().TempDir(), "runbooks")
	repo, err := git.PlainInit(dir, false)
	Expect(err).NotTo(HaveOccurred())
	r := &runbookRepo{dir: dir, repo: repo, when: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	files := map[string][]byte{}
	for _, n := range chosen {
		b, err := os.ReadFile(filepath.Join(corpus, n))
		Expect(err).NotTo(HaveOccurred())
		files["kubernetes/"+n] = b
		r.files = append(r.files, "kubernetes/"+n)
	}
	// Files the default path filter leaves out.
	files["LICENSE"] = []byte("Apache License 2.0\n")
	files["hack/lint.sh"] = []byte("#!/bin/sh\nexit 0\n")
	r.commit("runbooks", files)

	r.url = serveGitRepo(gitBin, dir)
	return r
}

// newGitRepo commits files into a new repository served over HTTP (basic auth gitUser /
// gitPassword); it skips the spec when the git binary is missing.
func newGitRepo(files map[string][]byte) *runbookRepo {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		Skip("the git binary is not installed; git http-backend serves the test repository")
	}
	dir := filepath.Join(GinkgoT().TempDir(), "docs")
	repo, err := git.PlainInit(dir, false)
	Expect(err).NotTo(HaveOccurred())
	r := &runbookRepo{dir: dir, repo: repo, when: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r.commit("docs", files)
	r.url = serveGitRepo(gitBin, dir)
	return r
}

// serveGitRepo serves the repository at dir with git http-backend behind basic auth and
// returns its clone URL.
func serveGitRepo(gitBin, dir string) string {
	backend := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + filepath.Dir(dir), "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if u, p, ok := req.BasicAuth(); !ok || u != gitUser || p != gitPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, req)
	}))
	DeferCleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(dir)
}

// commit writes files (nil content deletes one) and returns the new commit hash.
func (r *runbookRepo) commit(msg string, files map[string][]byte) string {
	wt, err := r.repo.Worktree()
	Expect(err).NotTo(HaveOccurred())
	for p, content := range files {
		if content == nil {
			_, err := wt.Remove(p)
			Expect(err).NotTo(HaveOccurred())
			continue
		}
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		Expect(os.MkdirAll(filepath.Dir(full), 0o755)).To(Succeed())
		Expect(os.WriteFile(full, content, 0o644)).To(Succeed())
		_, err := wt.Add(p)
		Expect(err).NotTo(HaveOccurred())
	}
	r.when = r.when.Add(time.Minute)
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &gitobject.Signature{Name: "t", Email: "t@example.com", When: r.when}})
	Expect(err).NotTo(HaveOccurred())
	return h.String()
}

// expectedChunks indexes the repository's Markdown files directly with kbbuild, the
// oracle for the counts the controller must report.
func (r *runbookRepo) expectedChunks(ctx context.Context) (docs, chunks int) {
	st, err := kbbuild.Index(ctx, &kbbuild.DirSource{Root: r.dir, Filter: kbbuild.PathFilter{Include: []string{"**/*.md"}}},
		retrieval.NewEmbedded(retrieval.DefaultEmbeddedOptions),
		kbbuild.IndexConfig{Source: "oracle", Format: kbbuild.FormatMarkdown, Chunking: kbbuild.DefaultChunking})
	Expect(err).NotTo(HaveOccurred())
	Expect(st.Failed).To(BeEmpty())
	return st.Docs, st.Chunks
}

func ksGitCredentials(ctx context.Context, ns, name, password string) {
	Expect(k8sClient.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		StringData: map[string]string{"username": gitUser, "password": password},
	})).To(Succeed())
}

func gitKnowledgeSource(ns, name, url, ref, secret string) *kubagev1alpha1.KnowledgeSource {
	ks := &kubagev1alpha1.KnowledgeSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"team": "sre"}},
		Spec: kubagev1alpha1.KnowledgeSourceSpec{
			Git:        &kubagev1alpha1.GitSource{URL: url, Ref: ref},
			Domain:     "kubernetes",
			TrustLevel: 4,
		},
	}
	if secret != "" {
		ks.Spec.Git.SecretRef = &kubagev1alpha1.LocalSecretReference{Name: secret}
	}
	return ks
}

// ksRequestReconcile asks for an immediate re-check, as a user would after pushing.
func ksRequestReconcile(ctx context.Context, ks *kubagev1alpha1.KnowledgeSource) {
	Eventually(func() error {
		got := &kubagev1alpha1.KnowledgeSource{}
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(ks), got); err != nil {
			return err
		}
		if got.Annotations == nil {
			got.Annotations = map[string]string{}
		}
		got.Annotations[controllers.ReconcileRequestedAnnotation] = strconv.FormatInt(time.Now().UnixNano(), 10)
		return k8sClient.Update(ctx, got)
	}).Should(Succeed())
}

// ksReadyOf returns the KnowledgeSource and its Ready condition.
func ksReadyOf(g Gomega, ctx context.Context, key client.ObjectKey) (*kubagev1alpha1.KnowledgeSource, *metav1.Condition) {
	ks := &kubagev1alpha1.KnowledgeSource{}
	g.Expect(k8sClient.Get(ctx, key, ks)).To(Succeed())
	ready := meta.FindStatusCondition(ks.Status.Conditions, kubagev1alpha1.ReadyCondition)
	g.Expect(ready).NotTo(BeNil(), "no Ready condition yet")
	g.Expect(ready.ObservedGeneration).To(Equal(ks.Generation))
	return ks, ready
}

func ksExpectReason(ctx context.Context, key client.ObjectKey, status metav1.ConditionStatus, reason string) *kubagev1alpha1.KnowledgeSource {
	var out *kubagev1alpha1.KnowledgeSource
	Eventually(func(g Gomega) {
		ks, ready := ksReadyOf(g, ctx, key)
		g.Expect(ready.Status).To(Equal(status), ready.Message)
		g.Expect(ready.Reason).To(Equal(reason), ready.Message)
		out = ks
	}).Should(Succeed(), "Ready of %s", key)
	return out
}

func ksSearch(ctx context.Context, ns, text string) *knowledge.Answer {
	ans, err := knowledgeService.Search(ctx, knowledge.Query{Namespace: ns, Text: text})
	Expect(err).NotTo(HaveOccurred())
	return ans
}

// fakeEmbeddings serves an OpenAI-compatible /v1/embeddings endpoint with hashed
// bag-of-words vectors; status, when set, is returned instead (400 is not retried).
func fakeEmbeddings(status int, calls *atomic.Int32) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if status != 0 {
			http.Error(w, `{"error":{"message":"model not found"}}`, status)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			v := make([]float32, 16)
			for _, word := range strings.Fields(strings.ToLower(in)) {
				h := fnv.New32a()
				_, _ = h.Write([]byte(word))
				v[h.Sum32()%16]++
			}
			v[0] += 0.01
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	DeferCleanup(srv.Close)
	return srv.URL + "/v1"
}

func embeddingSecret(ctx context.Context, ns, name, baseURL, model string) {
	Expect(k8sClient.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		StringData: map[string]string{"baseURL": baseURL, "model": model, "apiKey": "k"},
	})).To(Succeed())
}

func inlineWithEmbedding(ns, name, secret string) *kubagev1alpha1.KnowledgeSource {
	return &kubagev1alpha1.KnowledgeSource{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kubagev1alpha1.KnowledgeSourceSpec{
			Inline: []kubagev1alpha1.InlineDocument{
				{Name: "disk.md", Content: "# Disk pressure\n\nThe kubelet evicts pods when the node disk fills up; prune images.\n"},
			},
			Embedding: &kubagev1alpha1.EmbeddingSpec{SecretRef: kubagev1alpha1.LocalSecretReference{Name: secret}},
		},
	}
}

var _ = Describe("KnowledgeSource", func() {
	It("indexes a git repository, re-indexes only a changed file and drops a deleted one", func(ctx SpecContext) {
		repo := newRunbookRepo()
		ns := newNamespace(ctx, "ks-git")
		ksGitCredentials(ctx, ns, "git-creds", gitPassword)
		ks := gitKnowledgeSource(ns, "runbooks", repo.url, "master", "git-creds")
		Expect(k8sClient.Create(ctx, ks)).To(Succeed())
		key := client.ObjectKeyFromObject(ks)
		head, err := repo.repo.Head()
		Expect(err).NotTo(HaveOccurred())

		By("reaching Ready with the documents and chunks of the commit")
		docs, chunks := repo.expectedChunks(ctx)
		Expect(docs).To(Equal(runbookCount))
		got := ksExpectReason(ctx, key, metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		Expect(got.Status.Phase).To(Equal(kubagev1alpha1.KnowledgeReady))
		Expect(got.Status.Revision).To(Equal(head.Hash().String()))
		Expect(got.Status.DocumentCount).To(Equal(int32(docs)))
		Expect(got.Status.ChunkCount).To(Equal(int32(chunks)))
		Expect(got.Status.FailedDocuments).To(BeEmpty())
		Expect(got.Status.LastIndexTime).NotTo(BeNil())
		Expect(got.Status.NextIndexTime.Time).To(BeTemporally("~", got.Status.LastIndexTime.Add(time.Hour), time.Second))
		Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		Expect(got.Finalizers).To(ContainElement(controllers.KnowledgeSourceFinalizer))
		Expect(got.Status.Conditions[0].Type).To(Equal(kubagev1alpha1.ReadyCondition))
		Expect(meta.FindStatusCondition(got.Status.Conditions, kubagev1alpha1.ReconcilingCondition)).To(BeNil())
		Eventually(func(g Gomega) {
			list := &eventsv1.EventList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			var reasons []string
			for _, e := range list.Items {
				if e.Regarding.Kind == "KnowledgeSource" && e.Regarding.Name == ks.Name {
					reasons = append(reasons, e.Reason)
				}
			}
			g.Expect(reasons).To(ConsistOf(kubagev1alpha1.IndexedReason))
		}).Should(Succeed())

		By("answering a search for KubePodCrashLooping with a cited runbook")
		ans := ksSearch(ctx, ns, "KubePodCrashLooping")
		Expect(ans.Snippets).NotTo(BeEmpty())
		top := ans.Snippets[0].Citation
		Expect(top.Source).To(Equal("runbooks"))
		Expect(top.Path).To(Equal("kubernetes/KubePodCrashLooping.md"))
		Expect(top.TrustLevel).To(Equal(4))
		Expect(top.String()).To(HavePrefix("runbooks:kubernetes/KubePodCrashLooping.md"))
		Expect(ksSearch(ctx, "default", "KubePodCrashLooping").Snippets).To(BeEmpty(), "other namespaces do not see the source")

		By("re-indexing only the runbook a new commit changed")
		crash := filepath.Join(repo.dir, "kubernetes", "KubePodCrashLooping.md")
		old, err := os.ReadFile(crash)
		Expect(err).NotTo(HaveOccurred())
		head2 := repo.commit("crash loop: add a step", map[string][]byte{
			"kubernetes/KubePodCrashLooping.md": append(old, []byte("\n## Escalation\n\nPage the owning team when the zebra-unicorn canary crashes.\n")...),
		})
		ksRequestReconcile(ctx, ks)
		Eventually(func(g Gomega) {
			ks, ready := ksReadyOf(g, ctx, key)
			g.Expect(ks.Status.Revision).To(Equal(head2))
			g.Expect(ready.Reason).To(Equal(kubagev1alpha1.IndexedReason))
		}).Should(Succeed())
		info, ok := knowledgeService.Source(ns, "runbooks")
		Expect(ok).To(BeTrue())
		Expect(info.Stats.Updated).To(Equal(1))
		Expect(info.Stats.Unchanged).To(Equal(runbookCount - 1))
		Expect(info.Stats.Added + info.Stats.Removed).To(BeZero())
		ans = ksSearch(ctx, ns, "zebra-unicorn canary")
		Expect(ans.Snippets).NotTo(BeEmpty())
		Expect(ans.Snippets[0].Citation.Path).To(Equal("kubernetes/KubePodCrashLooping.md"))

		By("dropping the chunks of a runbook a commit deleted")
		gone := repo.files[0]
		Expect(gone).NotTo(Equal("kubernetes/KubePodCrashLooping.md"))
		head3 := repo.commit("remove a runbook", map[string][]byte{gone: nil})
		docs, chunks = repo.expectedChunks(ctx)
		ksRequestReconcile(ctx, ks)
		Eventually(func(g Gomega) {
			ks, _ := ksReadyOf(g, ctx, key)
			g.Expect(ks.Status.Revision).To(Equal(head3))
			g.Expect(ks.Status.DocumentCount).To(Equal(int32(runbookCount - 1)))
			g.Expect(ks.Status.ChunkCount).To(Equal(int32(chunks)))
		}).Should(Succeed())
		Expect(docs).To(Equal(runbookCount - 1))
		info, _ = knowledgeService.Source(ns, "runbooks")
		Expect(info.Stats.Removed).To(Equal(1))
		Expect(info.Stats.Updated + info.Stats.Added).To(BeZero())
		alert := strings.TrimSuffix(filepath.Base(gone), ".md")
		for _, sn := range ksSearch(ctx, ns, alert).Snippets {
			Expect(sn.Citation.Path).NotTo(Equal(gone))
		}

		By("removing every chunk when the source is deleted")
		Expect(k8sClient.Delete(ctx, ks)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, key, &kubagev1alpha1.KnowledgeSource{}))
		}).Should(BeTrue())
		_, ok = knowledgeService.Source(ns, "runbooks")
		Expect(ok).To(BeFalse())
		Expect(ksSearch(ctx, ns, "KubePodCrashLooping").Snippets).To(BeEmpty())
	})

	It("names why a git source cannot be fetched and keeps serving the last good index", func(ctx SpecContext) {
		repo := newRunbookRepo()
		ns := newNamespace(ctx, "ks-fail")
		ksGitCredentials(ctx, ns, "wrong-creds", "not-the-password")
		ksGitCredentials(ctx, ns, "git-creds", gitPassword)

		By("reporting AuthFailed, RefNotFound and FetchFailed without an index")
		bad := gitKnowledgeSource(ns, "bad-creds", repo.url, "", "wrong-creds")
		noRef := gitKnowledgeSource(ns, "no-ref", repo.url, "release-9", "git-creds")
		down := gitKnowledgeSource(ns, "down", "http://127.0.0.1:1/runbooks", "", "")
		for _, ks := range []*kubagev1alpha1.KnowledgeSource{bad, noRef, down} {
			Expect(k8sClient.Create(ctx, ks)).To(Succeed())
		}
		for ks, reason := range map[*kubagev1alpha1.KnowledgeSource]string{
			bad: kubagev1alpha1.AuthFailedReason, noRef: kubagev1alpha1.RefNotFoundReason, down: kubagev1alpha1.FetchFailedReason,
		} {
			got := ksExpectReason(ctx, client.ObjectKeyFromObject(ks), metav1.ConditionFalse, reason)
			Expect(got.Status.Phase).To(Equal(kubagev1alpha1.KnowledgeFailed))
			Expect(got.Status.ChunkCount).To(BeZero())
			Expect(got.Status.NextIndexTime).NotTo(BeNil(), "a failed source is retried")
			Expect(meta.FindStatusCondition(got.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())
		}
		Expect(meta.FindStatusCondition(ksExpectReason(ctx, client.ObjectKeyFromObject(noRef), metav1.ConditionFalse,
			kubagev1alpha1.RefNotFoundReason).Status.Conditions, kubagev1alpha1.ReadyCondition).Message).To(ContainSubstring("release-9"))

		By("indexing a good source, then breaking its credentials: the Secret change, seen by the Secret poller, re-reconciles it")
		good := gitKnowledgeSource(ns, "good", repo.url, "", "git-creds")
		Expect(k8sClient.Create(ctx, good)).To(Succeed())
		key := client.ObjectKeyFromObject(good)
		indexed := ksExpectReason(ctx, key, metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		secret := &corev1.Secret{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "git-creds"}, secret)).To(Succeed())
		secret.Data["password"] = []byte("rotated-wrong")
		Expect(k8sClient.Update(ctx, secret)).To(Succeed())
		failed := ksExpectReason(ctx, key, metav1.ConditionFalse, kubagev1alpha1.AuthFailedReason)
		Expect(failed.Status.Revision).To(Equal(indexed.Status.Revision))
		Expect(failed.Status.ChunkCount).To(Equal(indexed.Status.ChunkCount))
		degraded := meta.FindStatusCondition(failed.Status.Conditions, kubagev1alpha1.DegradedCondition)
		Expect(degraded).NotTo(BeNil())
		Expect(degraded.Reason).To(Equal(kubagev1alpha1.ServingLastIndexReason))
		ans := ksSearch(ctx, ns, "KubePodCrashLooping")
		Expect(ans.Snippets).NotTo(BeEmpty())
		Expect(ans.Snippets[0].Citation.Source).To(Equal("good"), "the last good index keeps serving")

		By("recovering when the credentials are fixed")
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "git-creds"}, secret)).To(Succeed())
		secret.Data["password"] = []byte(gitPassword)
		Expect(k8sClient.Update(ctx, secret)).To(Succeed())
		recovered := ksExpectReason(ctx, key, metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		Expect(meta.FindStatusCondition(recovered.Status.Conditions, kubagev1alpha1.DegradedCondition)).To(BeNil())
		Expect(meta.FindStatusCondition(recovered.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeNil())

		By("stalling on a missing Secret until it appears")
		missing := gitKnowledgeSource(ns, "missing-secret", repo.url, "", "not-yet")
		Expect(k8sClient.Create(ctx, missing)).To(Succeed())
		stalled := ksExpectReason(ctx, client.ObjectKeyFromObject(missing), metav1.ConditionFalse, kubagev1alpha1.SecretNotFoundReason)
		Expect(meta.IsStatusConditionTrue(stalled.Status.Conditions, kubagev1alpha1.StalledCondition)).To(BeTrue())
		ksGitCredentials(ctx, ns, "not-yet", gitPassword)
		ksExpectReason(ctx, client.ObjectKeyFromObject(missing), metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
	})

	It("indexes inline documents and ConfigMaps, and follows ConfigMap changes", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ks-static")

		By("indexing inline documents")
		inline := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "oncall"},
			Spec: kubagev1alpha1.KnowledgeSourceSpec{
				TrustLevel: 5,
				Inline: []kubagev1alpha1.InlineDocument{
					{Name: "oncall/db-failover.md", Content: "# Database failover\n\n## Steps {#steps}\n\nPromote the replica with pgctl promote, then repoint the checkout service.\n"},
					{Name: "oncall/cache.md", Content: "# Cache flush\n\nFlush redis with FLUSHALL only after paging the cache owners.\n"},
				},
			},
		}
		Expect(k8sClient.Create(ctx, inline)).To(Succeed())
		got := ksExpectReason(ctx, client.ObjectKeyFromObject(inline), metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		Expect(got.Status.DocumentCount).To(Equal(int32(2)))
		Expect(got.Status.ChunkCount).To(BeNumerically(">=", 2))
		Expect(got.Status.Revision).NotTo(BeEmpty())
		ans := ksSearch(ctx, ns, "promote the database replica")
		Expect(ans.Snippets).NotTo(BeEmpty())
		Expect(ans.Snippets[0].Citation.String()).To(Equal("oncall:oncall/db-failover.md#steps"))
		Expect(ans.Snippets[0].Citation.TrustLevel).To(Equal(5))

		By("stalling on a missing ConfigMap, then indexing it once it exists")
		fromCM := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "from-configmap"},
			Spec: kubagev1alpha1.KnowledgeSourceSpec{
				ConfigMapRef: &kubagev1alpha1.LocalConfigMapReference{Name: "runbooks"},
			},
		}
		Expect(k8sClient.Create(ctx, fromCM)).To(Succeed())
		key := client.ObjectKeyFromObject(fromCM)
		ksExpectReason(ctx, key, metav1.ConditionFalse, kubagev1alpha1.ConfigMapNotFoundReason)
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "runbooks"},
			Data:       map[string]string{"disk.md": "# Disk full\n\nDelete old snapshots from /var/lib/backup.\n"},
		}
		Expect(k8sClient.Create(ctx, cm)).To(Succeed())
		first := ksExpectReason(ctx, key, metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		Expect(first.Status.DocumentCount).To(Equal(int32(1)))

		By("re-indexing when the ConfigMap changes")
		cm.Data["certs.md"] = "# Certificate expiry\n\nRenew with cert-manager renew.\n"
		Expect(k8sClient.Update(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) {
			ks, ready := ksReadyOf(g, ctx, key)
			g.Expect(ready.Reason).To(Equal(kubagev1alpha1.IndexedReason))
			g.Expect(ks.Status.DocumentCount).To(Equal(int32(2)))
			g.Expect(ks.Status.Revision).NotTo(Equal(first.Status.Revision))
		}).Should(Succeed())

		By("reporting NoDocuments for a ConfigMap without data")
		empty := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "empty"}}
		Expect(k8sClient.Create(ctx, empty)).To(Succeed())
		emptyKS := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "empty"},
			Spec:       kubagev1alpha1.KnowledgeSourceSpec{ConfigMapRef: &kubagev1alpha1.LocalConfigMapReference{Name: "empty"}},
		}
		Expect(k8sClient.Create(ctx, emptyKS)).To(Succeed())
		ksExpectReason(ctx, client.ObjectKeyFromObject(emptyKS), metav1.ConditionFalse, kubagev1alpha1.NoDocumentsReason)
	})

	It("embeds chunks with the model of its Secret and reports an embedding endpoint that fails", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ks-embed")
		var good, bad atomic.Int32
		embeddingSecret(ctx, ns, "embed-ok", fakeEmbeddings(0, &good), "fake-embed")
		embeddingSecret(ctx, ns, "embed-broken", fakeEmbeddings(http.StatusBadRequest, &bad), "no-such-model")
		embeddingSecret(ctx, ns, "embed-no-model", "https://llm.example.com/v1", "")

		By("indexing with dense vectors and embedding queries")
		ok := inlineWithEmbedding(ns, "dense", "embed-ok")
		Expect(k8sClient.Create(ctx, ok)).To(Succeed())
		ksExpectReason(ctx, client.ObjectKeyFromObject(ok), metav1.ConditionTrue, kubagev1alpha1.IndexedReason)
		indexCalls := good.Load()
		Expect(indexCalls).To(BeNumerically(">=", 1))
		ans := ksSearch(ctx, ns, "node disk fills up")
		Expect(ans.Snippets).NotTo(BeEmpty())
		Expect(ans.Snippets[0].Citation.Path).To(Equal("disk.md"))
		Expect(good.Load()).To(BeNumerically(">", indexCalls), "the query was embedded too")

		By("failing every document when the endpoint refuses")
		broken := inlineWithEmbedding(ns, "broken", "embed-broken")
		Expect(k8sClient.Create(ctx, broken)).To(Succeed())
		got := ksExpectReason(ctx, client.ObjectKeyFromObject(broken), metav1.ConditionFalse, kubagev1alpha1.IndexFailedReason)
		Expect(got.Status.FailedDocuments).To(HaveLen(1))
		Expect(got.Status.FailedDocuments[0].Path).To(Equal("disk.md"))
		Expect(got.Status.FailedDocuments[0].Error).To(ContainSubstring("embed"))
		Expect(bad.Load()).To(BeNumerically(">=", 1))

		By("stalling on an embedding Secret without a model")
		noModel := inlineWithEmbedding(ns, "no-model", "embed-no-model")
		Expect(k8sClient.Create(ctx, noModel)).To(Succeed())
		stalled := ksExpectReason(ctx, client.ObjectKeyFromObject(noModel), metav1.ConditionFalse, kubagev1alpha1.InvalidSpecReason)
		Expect(meta.FindStatusCondition(stalled.Status.Conditions, kubagev1alpha1.ReadyCondition).Message).To(ContainSubstring("model"))
	})

	It("indexes HTTP pages and keeps the source Ready when one page fails", func(ctx SpecContext) {
		ns := newNamespace(ctx, "ks-http")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/oom.md":
				_, _ = w.Write([]byte("# OOMKilled\n\n## Fix {#fix}\n\nRaise the memory limit of the container or fix the leak.\n"))
			case "/evictions.md":
				_, _ = w.Write([]byte("# Evictions\n\nThe kubelet evicts pods under node memory pressure.\n"))
			default:
				http.NotFound(w, r)
			}
		}))
		DeferCleanup(srv.Close)
		ks := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pages"},
			Spec: kubagev1alpha1.KnowledgeSourceSpec{
				HTTP: &kubagev1alpha1.HTTPSource{URLs: []string{srv.URL + "/oom.md", srv.URL + "/evictions.md", srv.URL + "/gone.md"}},
			},
		}
		Expect(k8sClient.Create(ctx, ks)).To(Succeed())
		got := ksExpectReason(ctx, client.ObjectKeyFromObject(ks), metav1.ConditionTrue, kubagev1alpha1.PartiallyIndexedReason)
		Expect(got.Status.Phase).To(Equal(kubagev1alpha1.KnowledgeReady))
		Expect(got.Status.DocumentCount).To(Equal(int32(2)))
		Expect(got.Status.FailedDocuments).To(HaveLen(1))
		Expect(got.Status.FailedDocuments[0].Path).To(Equal(srv.URL + "/gone.md"))
		Expect(got.Status.FailedDocuments[0].Error).To(ContainSubstring("404"))
		degraded := meta.FindStatusCondition(got.Status.Conditions, kubagev1alpha1.DegradedCondition)
		Expect(degraded).NotTo(BeNil())
		Expect(degraded.Reason).To(Equal(kubagev1alpha1.PartiallyIndexedReason))
		ans := ksSearch(ctx, ns, "container OOMKilled memory limit")
		Expect(ans.Snippets).NotTo(BeEmpty())
		Expect(ans.Snippets[0].Citation.URL).To(Equal(srv.URL + "/oom.md#fix"))
	})
})
