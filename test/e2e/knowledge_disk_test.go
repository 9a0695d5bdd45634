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
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// Bounded knowledge memory, measured on the operator process: a git source twice the
// per-source cap ends TooLarge while the manager's resident memory stays far below the
// container limit of config/manager (512Mi), and a source beside it is indexed as usual.
var _ = Describe("Knowledge memory", Ordered, func() {
	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	It("stops a git source twice its cap at the cap, with the manager's RSS far below its limit", func(ctx SpecContext) {
		const (
			sourceCap      = 32 << 20
			containerLimit = 512 << 20
		)
		gitBin, err := exec.LookPath("git")
		if err != nil {
			Skip("the git binary is not installed; git http-backend serves the test repository")
		}
		root := GinkgoT().TempDir()
		By("generating a repository of incompressible Markdown twice the cap")
		big := filepath.Join(root, "big")
		for i := 0; i < 32; i++ {
			writeFile(filepath.Join(big, "docs", fmt.Sprintf("noise-%02d.md", i)), noiseMarkdown(2*sourceCap/32))
		}
		gitCommitAll(ctx, gitBin, big)
		small := filepath.Join(root, "small")
		writeFile(filepath.Join(small, "runbook.md"), []byte("# Disk full\n\n## Fix\n\nDelete old logs from the volume.\n"))
		gitCommitAll(ctx, gitBin, small)
		srv := httptest.NewServer(&cgi.Handler{Path: gitBin, Args: []string{"http-backend"},
			Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
		DeferCleanup(srv.Close)

		dir := GinkgoT().TempDir()
		op := startManager("--knowledge-dir="+dir, fmt.Sprintf("--knowledge-max-source-bytes=%d", sourceCap),
			fmt.Sprintf("--knowledge-max-total-bytes=%d", 2*sourceCap))
		pid := op.cmd.Process.Pid
		time.Sleep(3 * time.Second) // let the manager settle before the baseline
		baseline := procStatusKiB(pid, "VmRSS") << 10

		var peak atomic.Int64
		stopSampling := make(chan struct{})
		go func() {
			for {
				select {
				case <-stopSampling:
					return
				case <-time.After(50 * time.Millisecond):
				}
				if rss := procStatusKiB(pid, "VmRSS") << 10; rss > peak.Load() {
					peak.Store(rss)
				}
			}
		}()
		ns := newNamespace(ctx)
		for name, url := range map[string]string{"big": srv.URL + "/big", "small": srv.URL + "/small"} {
			Expect(kube.Create(ctx, &kubagev1alpha1.KnowledgeSource{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec:       kubagev1alpha1.KnowledgeSourceSpec{Git: &kubagev1alpha1.GitSource{URL: url}},
			})).To(Succeed())
		}
		readyOf := func(g Gomega, name string) *metav1.Condition {
			ks := &kubagev1alpha1.KnowledgeSource{}
			g.Expect(kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, ks)).To(Succeed())
			c := meta.FindStatusCondition(ks.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(c).NotTo(BeNil())
			return c
		}
		Eventually(func(g Gomega) {
			c := readyOf(g, "big")
			g.Expect(c.Reason).To(Equal(kubagev1alpha1.TooLargeReason), c.Message)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		}).WithContext(ctx).WithTimeout(3 * time.Minute).Should(Succeed())
		Eventually(func(g Gomega) {
			c := readyOf(g, "small")
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), c.Message)
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		close(stopSampling)
		hwm := procStatusKiB(pid, "VmHWM") << 10
		clones, err := filepath.Glob(filepath.Join(dir, "git", "clone-*"))
		Expect(err).NotTo(HaveOccurred())
		Expect(clones).To(BeEmpty(), "the partial clone is removed")

		mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
		GinkgoWriter.Printf("knowledge memory: repository %s (cap %s): RSS before %s, peak sampled %s, VmHWM %s; container limit %s\n",
			mib(2*sourceCap), mib(sourceCap), mib(baseline), mib(peak.Load()), mib(hwm), mib(containerLimit))
		AddReportEntry("manager peak RSS with a source twice its cap", mib(hwm))
		Expect(hwm).To(BeNumerically("<", containerLimit/2), "peak RSS stays far below the container limit")
		// The clone went to disk: the manager did not grow by the size of the repository.
		Expect(peak.Load()-baseline).To(BeNumerically("<", sourceCap), "RSS grew by less than the cap")
	}, SpecTimeout(6*time.Minute))
})

// noiseMarkdown is about n bytes of Markdown no pack can compress.
func noiseMarkdown(n int) []byte {
	raw := make([]byte, n*3/4)
	_, _ = rand.Read(raw)
	return []byte("# Noise\n\n" + base64.StdEncoding.EncodeToString(raw) + "\n")
}

func writeFile(path string, b []byte) {
	GinkgoHelper()
	Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
	Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
}

// gitCommitAll makes dir a repository with one commit of everything in it.
func gitCommitAll(ctx context.Context, gitBin, dir string) {
	GinkgoHelper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "content"}} {
		cmd := exec.CommandContext(ctx, gitBin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "git %s: %s", strings.Join(args, " "), out)
	}
}

// procStatusKiB reads one "kB" field of /proc/<pid>/status (VmRSS, VmHWM).
func procStatusKiB(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}
