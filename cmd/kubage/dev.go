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

package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kubage/kubage/internal/testcluster"
)

func init() {
	registerCommand(newDevCommand)
}

// newDevCommand returns the hidden `kubage dev`: helpers for the local cluster of
// hack/cluster.sh, never for a real cluster.
func newDevCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "dev",
		Short:  "Development helpers for the local (kwok) cluster",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	var (
		binary   string
		identity string
		parallel int
		workDir  string
	)
	kubelet := &cobra.Command{
		Use:   "kubelet",
		Short: "Run the pods of task Jobs on kwok nodes as local processes of this binary (the e2e kubelet harness)",
		Long: `On the local cluster of hack/cluster.sh no container runs: kwok plays the kubelets. This command
plays the kubelet for the pods of KubAge task Jobs (label ` + testcluster.AgentSelector + `): it runs their
command as a local process of the kubage binary with the pod's environment and a kubeconfig holding
a token of the pod's ServiceAccount, and writes the pod status, so the Job controller completes the Job.
It runs until interrupted. Used by make demo; the e2e suite embeds the same harness.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if binary == "" {
				exe, err := os.Executable()
				if err != nil {
					return err
				}
				binary = exe
			}
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return fmt.Errorf("loading kubeconfig: %w", err)
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			k, err := testcluster.StartKubelet(ctx, testcluster.KubeletOptions{
				Client: cs, RESTConfig: cfg, Binary: binary, MaxConcurrent: parallel,
				Identity: testcluster.Identity(identity), WorkDir: workDir, Log: cmd.ErrOrStderr(),
			})
			if err != nil {
				return err
			}
			<-ctx.Done()
			fmt.Fprintf(cmd.ErrOrStderr(), "%s stopping the kubelet harness\n", time.Now().Format("15:04:05.000"))
			return k.Stop()
		},
	}
	f := kubelet.Flags()
	f.StringVar(&binary, "binary", "", "kubage binary to run for the pods (default: this one).")
	f.StringVar(&identity, "identity", string(testcluster.IdentityServiceAccount), "Credentials of the processes: ServiceAccount (a token of the pod's, RBAC applies) or Admin.")
	f.IntVar(&parallel, "max-concurrent", 4, "Processes at once; further pods wait Pending.")
	f.StringVar(&workDir, "work-dir", "", "Where per-pod kubeconfigs go (default: a temporary directory).")
	kubelet.Flags().SortFlags = false
	cmd.AddCommand(kubelet)
	return cmd
}
