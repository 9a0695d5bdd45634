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

// Command fakekubelet plays the kubelet for the pods of KubAge task Jobs on the local kwok
// cluster of hack/cluster.sh, where no container runs: it runs each pod's command as a local
// process of the kubage binary, with the pod's environment and a kubeconfig holding a token of
// the pod's ServiceAccount, and writes the pod status, so the Job controller completes the Job.
// It runs until interrupted. make demo starts it; the e2e suite and hack/bench embed the same
// harness (test/testcluster). It is a test program: the shipped kubage binary does not link it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kubage/kubage/test/testcluster"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakekubelet:", err)
		os.Exit(1)
	}
}

func run() error {
	// controller-runtime registers --kubeconfig on the default flag set.
	binary := flag.String("binary", "", "kubage binary to run for the pods (default: $"+testcluster.EnvKubageBin+", else kubage next to this program).")
	identity := flag.String("identity", string(testcluster.IdentityServiceAccount), "Credentials of the processes: ServiceAccount (a token of the pod's, RBAC applies) or Admin.")
	parallel := flag.Int("max-concurrent", 4, "Processes at once; further pods wait Pending.")
	workDir := flag.String("work-dir", "", "Where per-pod kubeconfigs go (default: a temporary directory).")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: fakekubelet [flags]\n\nRuns KubAge's pods (%s: task Jobs, and the manager of a Helm install) on kwok nodes as local kubage processes.\n\n", testcluster.KubagePodsSelector)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	bin, err := kubageBinary(*binary)
	if err != nil {
		return err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	k, err := testcluster.StartKubelet(ctx, testcluster.KubeletOptions{
		Client: cs, RESTConfig: cfg, Binary: bin, MaxConcurrent: *parallel, Selector: testcluster.KubagePodsSelector,
		Identity: testcluster.Identity(*identity), WorkDir: *workDir, Log: os.Stderr,
	})
	if err != nil {
		return err
	}
	<-ctx.Done()
	fmt.Fprintf(os.Stderr, "%s stopping the kubelet harness\n", time.Now().Format("15:04:05.000"))
	return k.Stop()
}

// kubageBinary is the flag, else $KUBAGE_BIN, else kubage beside this program (both live in bin/).
func kubageBinary(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if env := os.Getenv(testcluster.EnvKubageBin); env != "" {
		return env, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(filepath.Dir(exe), "kubage")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no kubage binary beside %s (make build, or pass --binary): %w", exe, err)
	}
	return bin, nil
}
