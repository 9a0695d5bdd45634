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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/test/testcluster"
)

// Helpers of the KubAge specs (the operator, its agent Jobs, sessions) on top of the local
// cluster of the suite: CRDs and agent roles, the kubelet harness, a manager subprocess.

// agentImage is the image name task Jobs get; the kubelet harness runs bin/kubage for it.
const agentImage = "kubage:e2e"

var (
	kubageSetup sync.Once
	kubageErr   error
	// kube is a controller-runtime client that knows the kubage.io kinds.
	kube client.Client
	// kubageBin is the kubage binary the manager and the harness run.
	kubageBin string
)

// setupKubage installs the CRDs and the agent ClusterRoles once, and finds (or builds) the
// kubage binary.
func setupKubage(ctx context.Context) {
	GinkgoHelper()
	kubageSetup.Do(func() { kubageErr = installKubage(ctx) })
	Expect(kubageErr).NotTo(HaveOccurred())
}

func installKubage(ctx context.Context) error {
	root, err := testcluster.FindRepoRoot()
	if err != nil {
		return err
	}
	kubageBin = os.Getenv(testcluster.EnvKubageBin)
	if kubageBin == "" {
		// Outside `make test-e2e`: build the binary of this tree, never trust a stale one.
		kubageBin = filepath.Join(GinkgoT().TempDir(), "kubage")
		By("building " + kubageBin)
		build := exec.CommandContext(ctx, "go", "build", "-o", kubageBin, "./cmd/kubage")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/kubage: %v\n%s", err, out)
		}
	}
	if kubageBin, err = filepath.Abs(kubageBin); err != nil {
		return err
	}
	// Retried: another process may be regenerating config/crd at this very moment.
	var applyErr error
	if err := wait.PollUntilContextTimeout(ctx, 2*time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, applyErr = kubectl(ctx, "apply", "--server-side", "--force-conflicts", "-f", filepath.Join(root, "config", "crd", "bases"))
		return applyErr == nil, nil
	}); err != nil {
		return fmt.Errorf("installing CRDs: %w (last: %v)", err, applyErr)
	}
	// Retried too: right after an apply, kubectl wait can fail on a CRD whose status has no
	// conditions yet instead of waiting for them.
	var waitErr error
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, waitErr = kubectl(ctx, "wait", "--for=condition=Established", "--timeout=30s",
			"crd/troubleshoots.kubage.io", "crd/knowledgesources.kubage.io", "crd/toolservers.kubage.io")
		return waitErr == nil, nil
	}); err != nil {
		return fmt.Errorf("waiting for the CRDs: %w (last: %v)", err, waitErr)
	}
	if err := installAgentRoles(ctx, root); err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	kube, err = client.New(cluster.RESTConfig, client.Options{Scheme: scheme})
	return err
}

// installAgentRoles creates (or updates) the agent's ClusterRoles from config/rbac, named as
// config/default's namePrefix names them.
func installAgentRoles(ctx context.Context, root string) error {
	for _, f := range []string{"agent_role.yaml", "agent_result_role.yaml", "agent_result_cluster_role.yaml"} {
		raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", f))
		if err != nil {
			return err
		}
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(raw, &role); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		role.Name = "kubage-" + role.Name
		roles := clients.RbacV1().ClusterRoles()
		_, err = roles.Create(ctx, &role, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var cur *rbacv1.ClusterRole
			if cur, err = roles.Get(ctx, role.Name, metav1.GetOptions{}); err == nil {
				cur.Rules = role.Rules
				_, err = roles.Update(ctx, cur, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("installing ClusterRole %s: %w", role.Name, err)
		}
	}
	return nil
}

// kubectl runs bin/k8s/kubectl against the suite's cluster.
func kubectl(ctx context.Context, args ...string) (string, error) {
	root, err := testcluster.FindRepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(root, "bin", "k8s", "kubectl"), append([]string{"--kubeconfig", cluster.Kubeconfig}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// startKubelet starts the kubelet harness for the agent pods until the end of the container.
func startKubelet(ctx context.Context) *testcluster.Kubelet {
	GinkgoHelper()
	k, err := testcluster.StartKubelet(ctx, testcluster.KubeletOptions{
		Client:     clients,
		RESTConfig: cluster.RESTConfig,
		Binary:     kubageBin,
		Log:        GinkgoWriter,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(k.Stop()).To(Succeed())
		Expect(k.Active()).To(BeZero(), "the harness may leave no process behind")
	})
	return k
}

// createTroubleshoot creates a Troubleshoot in ns, adjusted by mutate.
func createTroubleshoot(ctx context.Context, ns, name string, mutate func(*kubagev1alpha1.Troubleshoot)) *kubagev1alpha1.Troubleshoot {
	GinkgoHelper()
	ts := &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       kubagev1alpha1.TroubleshootSpec{Problem: "the application does not work"},
	}
	if mutate != nil {
		mutate(ts)
	}
	Expect(kube.Create(ctx, ts)).To(Succeed())
	return ts
}

// managerProcess is `kubage manager` running against the suite's cluster.
type managerProcess struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startManager runs the operator as a subprocess until Kill, Stop or the end of the spec
// container. Its log goes to a file whose tail is printed when a spec fails.
func startManager(args ...string) *managerProcess {
	GinkgoHelper()
	logFile, err := os.CreateTemp("", "kubage-manager-*.log")
	Expect(err).NotTo(HaveOccurred())
	all := append([]string{"manager",
		"--kubeconfig=" + cluster.Kubeconfig,
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
		// Every stand-in server of this suite (model, MCP, git, agent API) listens on loopback,
		// which the egress guard denies by default; envtest covers the denial itself.
		"--egress-allow-cidrs=127.0.0.0/8",
	}, args...)
	cmd := exec.Command(kubageBin, all...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig)
	// The manager dies with the suite even if the suite is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	Expect(cmd.Start()).To(Succeed())
	m := &managerProcess{cmd: cmd, log: logFile.Name(), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(m.done)
	}()
	DeferCleanup(func() {
		m.Stop()
		if CurrentSpecReport().Failed() {
			GinkgoWriter.Printf("--- manager log tail (%s) ---\n%s\n", m.log, m.LogTail(60))
		}
	})
	return m
}

// Kill ends the manager abruptly, as a crash or an OOM kill would.
func (m *managerProcess) Kill() {
	_ = m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
}

// Stop ends the manager gracefully (SIGTERM), killing it after 10 s.
func (m *managerProcess) Stop() {
	select {
	case <-m.done:
		return
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		m.Kill()
	}
}

// LogTail returns the last lines of the manager's log.
func (m *managerProcess) LogTail(lines int) string {
	raw, err := os.ReadFile(m.log)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
