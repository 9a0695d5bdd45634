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
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/kubectlplugin"
)

// pluginBinary is the name kubectl finds the plugin by: `kubectl kubage ...` runs it.
const pluginBinary = "kubectl-kubage"

func init() {
	registerCommand(func() *cobra.Command {
		cmd := newPluginCommand("plugin")
		cmd.Short = "The kubectl plugin's verbs (installed as " + pluginBinary + ", they are `kubectl kubage <verb>`)"
		return cmd
	})
}

// isKubectlPlugin says the binary runs as the kubectl plugin: kubectl calls it by the
// path of kubectl-kubage (a copy or a link of kubage).
func isKubectlPlugin(argv0 string) bool {
	return strings.TrimSuffix(filepath.Base(argv0), ".exe") == pluginBinary
}

// exitCode maps an error to the process exit code (the plugin reports "no root cause" apart).
func exitCode(err error) int {
	return kubectlplugin.ExitCode(err)
}

// newPluginCommand builds the plugin's verbs under a command named use, with kubectl's
// connection flags (--kubeconfig, --context, -n, ...).
func newPluginCommand(use string) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:          use,
		Short:        "Diagnose problems in a Kubernetes cluster with KubAge",
		SilenceUsage: true,
		Annotations:  map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl kubage"},
	}
	flags.AddFlags(cmd.PersistentFlags())
	newEnv := func() (*kubectlplugin.Env, error) {
		tty := term.IsTerminal(int(os.Stdout.Fd()))
		width := 0
		if tty {
			width, _, _ = term.GetSize(int(os.Stdout.Fd()))
		}
		return kubectlplugin.NewEnv(flags, os.Stdout, os.Stderr, tty, width)
	}
	cmd.AddCommand(newDiagnoseCommand(newEnv), newGetCommand(newEnv), newReportCommand(newEnv),
		newApproveCommand(newEnv), newRerunCommand(newEnv))
	return cmd
}

type envFunc func() (*kubectlplugin.Env, error)

func newDiagnoseCommand(newEnv envFunc) *cobra.Command {
	var o kubectlplugin.DiagnoseOptions
	var mode, runner string
	printFlags := genericclioptions.NewPrintFlags("created")
	cmd := &cobra.Command{
		Use:   "diagnose [<kind>/<name>]",
		Short: "Start a Troubleshoot on an object (or the namespace) and, with --follow, show its root cause",
		Long: "Creates a Troubleshoot for the target and prints its name. With --follow it shows phases, tasks and\n" +
			"evidence as they arrive, then the root cause; the exit code is 0 when a root cause was found, 2 when not.",
		Example: `  kubectl kubage diagnose deploy/checkout --follow
  kubectl kubage diagnose po/web-0 --problem "restarts every few minutes" --mode Remediate
  kubectl kubage diagnose -n shop --problem "checkout is slow since 10:00"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Target = args[0]
			}
			o.Mode, o.Runner = kubagev1alpha1.Mode(mode), kubagev1alpha1.TaskRunner(runner)
			var printer printers.ResourcePrinter
			if o.Follow {
				if cmd.Flags().Changed("output") {
					return errors.New("--follow prints the outcome for people; drop -o, or leave out --follow and use `kubectl kubage get <name> -o ...`")
				}
			} else {
				var err error
				if printer, err = printFlags.ToPrinter(); err != nil {
					return err
				}
			}
			env, err := newEnv()
			if err != nil {
				return err
			}
			ts, err := env.Diagnose(cmd.Context(), o)
			if err != nil || o.Follow {
				return err
			}
			return printer.PrintObj(ts, env.Out)
		},
	}
	cmd.Flags().StringVar(&o.Problem, "problem", "", "The symptom in plain words (required without a target)")
	cmd.Flags().StringVar(&mode, "mode", "", "Diagnose (read-only, the default) or Remediate (propose actions that run after approval)")
	cmd.Flags().StringVar(&runner, "runner", "", "Where plan tasks run: Job or InProcess (default: the operator's)")
	cmd.Flags().BoolVarP(&o.Follow, "follow", "f", false, "Watch the session and print its root cause")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 5*time.Minute, "How long --follow waits for the outcome")
	printFlags.AddFlags(cmd)
	return cmd
}

func newGetCommand(newEnv envFunc) *cobra.Command {
	var o kubectlplugin.GetOptions
	printFlags := genericclioptions.NewPrintFlags("")
	cmd := &cobra.Command{
		Use:     "get [name]",
		Short:   "List Troubleshoots with their phase and root cause",
		Example: "  kubectl kubage get\n  kubectl kubage get -A -o wide\n  kubectl kubage get checkout-x7k2p -o yaml",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			switch *printFlags.OutputFormat {
			case "":
			case "wide":
				o.Wide = true
			default:
				p, err := printFlags.ToPrinter()
				if err != nil {
					return err
				}
				o.Printer = p
			}
			env, err := newEnv()
			if err != nil {
				return err
			}
			return env.Get(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "List Troubleshoots of every namespace")
	printFlags.AddFlags(cmd)
	cmd.Flags().Lookup("output").Usage = "Output format. One of: (wide, json, yaml, name, go-template, jsonpath, ...)"
	return cmd
}

func newReportCommand(newEnv envFunc) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "report <name>",
		Short: "Print the report of a Troubleshoot (Markdown rendered for a terminal, or JSON)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := kubectlplugin.ReportOptions{Name: args[0], Color: os.Getenv("NO_COLOR") == ""}
			switch output {
			case "", "markdown", "md":
			case "json":
				o.JSON = true
			default:
				return errors.New("--output: want json or markdown")
			}
			env, err := newEnv()
			if err != nil {
				return err
			}
			return env.Report(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "json for the JSON report; markdown (the default) for the Markdown one")
	return cmd
}

func newApproveCommand(newEnv envFunc) *cobra.Command {
	var reject bool
	cmd := &cobra.Command{
		Use:     "approve <name> <action-id>",
		Short:   "Approve (or with --reject, reject) a remediation action a Remediate session proposed",
		Example: "  kubectl kubage approve checkout-x7k2p a1-3f2a9c\n  kubectl kubage approve checkout-x7k2p a2-77b1d0 --reject",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			decision := kubagev1alpha1.DecisionApproved
			if reject {
				decision = kubagev1alpha1.DecisionRejected
			}
			env, err := newEnv()
			if err != nil {
				return err
			}
			return env.Approve(cmd.Context(), args[0], args[1], decision)
		},
	}
	cmd.Flags().BoolVar(&reject, "reject", false, "Reject the action instead of approving it")
	return cmd
}

func newRerunCommand(newEnv envFunc) *cobra.Command {
	return &cobra.Command{
		Use:   "rerun <name>",
		Short: "Investigate a finished Troubleshoot again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := newEnv()
			if err != nil {
				return err
			}
			return env.Rerun(cmd.Context(), args[0])
		},
	}
}
