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
	"flag"
	"os"
	"sync"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

var (
	subcommandsMu sync.Mutex
	subcommands   []func() *cobra.Command
)

// registerCommand adds a subcommand. Each subcommand lives in its own file and calls this
// from init, so adding one never touches the others.
func registerCommand(newCommand func() *cobra.Command) {
	subcommandsMu.Lock()
	defer subcommandsMu.Unlock()
	subcommands = append(subcommands, newCommand)
}

// newRootCommand builds the kubage command with every registered subcommand. Logging
// (zap) and --kubeconfig flags are shared by all subcommands.
func newRootCommand() *cobra.Command {
	if isKubectlPlugin(os.Args[0]) {
		return newPluginCommand(pluginBinary)
	}
	zapOpts := zap.Options{}
	zapFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	zapOpts.BindFlags(zapFlags)

	root := &cobra.Command{
		Use:           "kubage",
		Short:         "KubAge finds the root cause of problems in a Kubernetes cluster",
		SilenceUsage:  true,
		SilenceErrors: false,
		PersistentPreRun: func(*cobra.Command, []string) {
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
		},
	}
	root.PersistentFlags().AddGoFlagSet(zapFlags)
	// flag.CommandLine carries --kubeconfig, registered by controller-runtime.
	root.PersistentFlags().AddGoFlagSet(flag.CommandLine)

	subcommandsMu.Lock()
	defer subcommandsMu.Unlock()
	for _, newCommand := range subcommands {
		root.AddCommand(newCommand())
	}
	return root
}

// newScheme returns a scheme with the built-in kinds and the kubage.io kinds.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}
