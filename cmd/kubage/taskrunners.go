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
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/runner"
)

// taskRunnerConfig is what a task runner may need from the manager's flags.
type taskRunnerConfig struct {
	Clientset kubernetes.Interface
	// AgentImage is the image of task Jobs (--agent-image); empty when not set.
	AgentImage string
	// AgentServiceAccount runs task Jobs (--agent-service-account).
	AgentServiceAccount string
	// KnowledgeURL is where task Jobs search knowledge (--agent-api-url); empty: nowhere.
	KnowledgeURL string
	// AgentEnv is extra environment of task pods (the egress policy).
	AgentEnv map[string]string
}

// taskRunnerFactory builds a runner, or returns nil when the flags leave it unavailable.
type taskRunnerFactory func(taskRunnerConfig) (runner.Runner, error)

var (
	taskRunnersMu sync.Mutex
	taskRunners   = map[kubagev1alpha1.TaskRunner]taskRunnerFactory{}
)

// registerTaskRunner makes a runner available by name. Each runner registers itself from
// an init function in its own file, e.g. the Job runner:
//
//	func init() { registerTaskRunner(kubagev1alpha1.TaskRunnerJob, newJobRunner) }
//
// The InProcess runner needs no registration: the controllers add it by default.
func registerTaskRunner(name kubagev1alpha1.TaskRunner, f taskRunnerFactory) {
	taskRunnersMu.Lock()
	defer taskRunnersMu.Unlock()
	taskRunners[name] = f
}

// buildTaskRunners builds every registered runner that the flags make available.
func buildTaskRunners(cfg taskRunnerConfig) (map[kubagev1alpha1.TaskRunner]runner.Runner, error) {
	taskRunnersMu.Lock()
	defer taskRunnersMu.Unlock()
	out := map[kubagev1alpha1.TaskRunner]runner.Runner{}
	for name, f := range taskRunners {
		r, err := f(cfg)
		if err != nil {
			return nil, fmt.Errorf("task runner %s: %w", name, err)
		}
		if r != nil {
			out[name] = r
		}
	}
	return out, nil
}

// checkDefaultTaskRunner fails early when --default-task-runner names a runner the flags
// do not make available.
func checkDefaultTaskRunner(def kubagev1alpha1.TaskRunner, available map[kubagev1alpha1.TaskRunner]runner.Runner) error {
	if def == kubagev1alpha1.TaskRunnerInProcess {
		return nil
	}
	if _, ok := available[def]; ok {
		return nil
	}
	names := []string{string(kubagev1alpha1.TaskRunnerInProcess)}
	for n := range available {
		names = append(names, string(n))
	}
	sort.Strings(names)
	hint := ""
	if def == kubagev1alpha1.TaskRunnerJob {
		hint = " (the Job runner needs --agent-image)"
	}
	return fmt.Errorf("--default-task-runner=%s is not available%s; available: %s", def, hint, strings.Join(names, ", "))
}
