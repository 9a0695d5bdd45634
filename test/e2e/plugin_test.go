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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/test/testcluster"
)

// The kubectl plugin end to end: the real kubectl finds kubage on PATH as kubectl-kubage and
// runs its verbs against the local cluster, with the operator running.
var _ = Describe("kubectl plugin", Label("plugin"), Ordered, func() {
	var pluginDir string

	BeforeAll(func(ctx SpecContext) {
		setupKubage(ctx)
		// How users install it: the binary (here a link to it) named kubectl-kubage on PATH.
		pluginDir = GinkgoT().TempDir()
		Expect(os.Symlink(kubageBin, filepath.Join(pluginDir, "kubectl-kubage"))).To(Succeed())
		startManager("--agent-image=" + agentImage)
	})

	It("diagnose --follow prints the phases and the root cause and exits 0; report prints the report", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)

		out, code := kubectlKubage(ctx, pluginDir, "diagnose", "deploy/api", "-n", ns, "--follow", "--runner", "InProcess", "--timeout", "2m")
		GinkgoWriter.Printf("--- kubectl kubage diagnose deploy/api --follow ---\n%s\n", out)
		Expect(code).To(Equal(0), out)
		Expect(out).To(And(
			ContainSubstring("phase Investigating"),
			ContainSubstring("phase Completed"),
			MatchRegexp(`(?m)^task \S+ Succeeded: `),
			MatchRegexp(`(?m)^evidence \S+: `),
			ContainSubstring("Root cause: "),
			ContainSubstring("Category:   ConfigMapMissing"),
			ContainSubstring("api-flags"),
		))
		name := regexp.MustCompile(`troubleshoot\.kubage\.io/(\S+) created`).FindStringSubmatch(out)
		Expect(name).To(HaveLen(2), out)

		By("printing the Markdown report")
		report, code := kubectlKubage(ctx, pluginDir, "report", name[1], "-n", ns)
		Expect(code).To(Equal(0), report)
		GinkgoWriter.Printf("--- kubectl kubage report (head) ---\n%s\n", head(report, 12))
		Expect(report).To(And(HavePrefix("# Troubleshoot "+ns+"/"+name[1]), ContainSubstring("\n## Root cause\n"), ContainSubstring("ConfigMapMissing")))
		Expect(report).NotTo(ContainSubstring("\x1b"), "plain when piped")

		jsonReport, code := kubectlKubage(ctx, pluginDir, "report", name[1], "-n", ns, "-o", "json")
		Expect(code).To(Equal(0), jsonReport)
		Expect(json.Valid([]byte(jsonReport))).To(BeTrue(), jsonReport)

		By("listing it")
		table, code := kubectlKubage(ctx, pluginDir, "get", "-n", ns)
		Expect(code).To(Equal(0), table)
		Expect(table).To(MatchRegexp(`(?m)^` + name[1] + ` +Completed +ConfigMapMissing +\d+%`))
	})

	It("exits non-zero with a clear message on a healthy target", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		createDeployment(ctx, ns, "web", "nginx:1.27", 1, nil)
		Eventually(func(g Gomega) {
			d, err := clients.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(1))
		}).WithContext(ctx).Should(Succeed())

		out, code := kubectlKubage(ctx, pluginDir, "diagnose", "deploy/web", "-n", ns, "--follow", "--runner", "InProcess", "--timeout", "2m")
		GinkgoWriter.Printf("--- kubectl kubage diagnose deploy/web --follow (healthy) ---\n%s\n", out)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("phase Completed"))
		Expect(out).To(ContainSubstring("no problem found on deployment/web: "))
	})

	It("says what is wrong when the target does not exist", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		out, code := kubectlKubage(ctx, pluginDir, "diagnose", "deploy/nope", "-n", ns)
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("deployment/nope not found in namespace " + ns))
	})
})

// kubectlKubage runs `kubectl kubage args...` with the plugin on PATH; it returns stdout and
// stderr together and the exit code.
func kubectlKubage(ctx context.Context, pluginDir string, args ...string) (string, int) {
	GinkgoHelper()
	root, err := testcluster.FindRepoRoot()
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.CommandContext(ctx, filepath.Join(root, "bin", "k8s", "kubectl"), append([]string{"kubage", "--kubeconfig", cluster.Kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+pluginDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode()
	}
	Expect(err).NotTo(HaveOccurred())
	return out.String(), 0
}

func head(s string, lines int) string {
	all := strings.SplitN(s, "\n", lines+1)
	if len(all) > lines {
		all = all[:lines]
	}
	return strings.Join(all, "\n")
}
