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

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/runner"
)

// jobRunnerOptions tune the Job runner. Its flags live on flag.CommandLine, which the root
// command shares with every subcommand (like --kubeconfig), so the manager sees them.
var jobRunnerOptions runner.JobOptions

func init() {
	jobRunnerOptions.BindFlags(flag.CommandLine)
	registerTaskRunner(kubagev1alpha1.TaskRunnerJob, newJobRunner)
}

// newJobRunner builds the Job runner; without --agent-image it is unavailable.
func newJobRunner(cfg taskRunnerConfig) (runner.Runner, error) {
	if cfg.AgentImage == "" {
		return nil, nil
	}
	o := jobRunnerOptions
	o.Image = cfg.AgentImage
	o.ServiceAccount = cfg.AgentServiceAccount
	o.KnowledgeURL = cfg.KnowledgeURL
	o.Env = cfg.AgentEnv
	return runner.NewJob(cfg.Clientset, o), nil
}
