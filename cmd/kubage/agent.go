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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/task"
	"github.com/kubage/kubage/internal/egress"
	"github.com/kubage/kubage/internal/knowledge/remote"
	"github.com/kubage/kubage/internal/runner"
)

func init() {
	registerCommand(newAgentCommand)
}

// EnvTaskRequest carries the agent.TaskRequest JSON into a task Job (internal/runner's Job runner).
const EnvTaskRequest = runner.EnvTaskRequest

// agentTaskOptions are the flags of `kubage agent task`.
type agentTaskOptions struct {
	requestFile string
	timeout     time.Duration
	// environ lists the environment, where the kubelet put the model Secret (os.Environ when nil).
	environ func() []string
	// token is the agent's ServiceAccount token source for the knowledge endpoint
	// (the in-cluster or kubeconfig credentials when nil).
	token func() (string, error)
}

// newAgentCommand returns `kubage agent`, the sub-task agent that runs inside task Jobs.
func newAgentCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Sub-task agent: run one plan task of a Troubleshoot session (the entrypoint of task Jobs)",
		Args:  cobra.NoArgs,
	}
	o := agentTaskOptions{}
	task := &cobra.Command{
		Use:   "task",
		Short: "Run one task and write its result ConfigMap, owned by the Troubleshoot",
		Long: `Reads the task request (JSON of session and task) from $` + EnvTaskRequest + ` or --request-file,
runs it with the one task implementation the operator runs in-process (internal/agent/task):
the rule engine, or the session's model when the request names one, under the agent's
(read-only) credentials — in-cluster, or $KUBECONFIG / --kubeconfig when set. The model Secret
comes from $` + runner.EnvModelPrefix + `* (the kubelet fills them from the Secret), knowledge from
the operator's endpoint at $` + runner.EnvKnowledgeURL + `. It writes the result ConfigMap of the Troubleshoot named by
$` + runner.EnvOwnerNamespace + `, $` + runner.EnvOwnerName + ` and $` + runner.EnvOwnerUID + `.
It exits 0 once the result is written, even when the task found an error (the result says so),
and non-zero with one line on stderr when it cannot produce a result.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			if err := runAgentTask(ctx, o, os.Getenv, cmd.ErrOrStderr(), newAgentClient); err != nil {
				// The root command prints it as one line on stderr and exits 1.
				return fmt.Errorf("kubage agent task: %w", err)
			}
			return nil
		},
	}
	task.Flags().StringVar(&o.requestFile, "request-file", "", "Read the task request from this file instead of $"+EnvTaskRequest+".")
	task.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "Give up on the task after this long (the Job's activeDeadlineSeconds also applies).")
	cmd.AddCommand(task)
	return cmd
}

// newAgentClient builds the clientset from the in-cluster config or the kubeconfig.
func newAgentClient() (kubernetes.Interface, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.UserAgent = "kubage-agent"
	// One session per task: its reads come at once, as in the operator.
	cfg.QPS, cfg.Burst = defaultKubeAPIQPS, defaultKubeAPIBurst
	return kubernetes.NewForConfig(cfg)
}

// runAgentTask runs the request and writes its result; the error explains why no (or only an
// error) result could be produced.
func runAgentTask(ctx context.Context, o agentTaskOptions, getenv func(string) string, stderr io.Writer,
	newClient func() (kubernetes.Interface, error)) error {
	owner, err := runner.OwnerFromEnv(getenv)
	if err != nil {
		return fmt.Errorf("owner from the environment: %w", err)
	}
	raw, err := readTaskRequest(o.requestFile, getenv)
	if err != nil {
		return err
	}
	cs, err := newClient()
	if err != nil {
		return err
	}
	// The manager's egress policy, passed in the Job's environment (restored on return
	// for callers that run several tasks in one process, such as tests).
	defer egress.SetDefault(egress.Default())
	if _, err := egressFromEnv(getenv).install(nil); err != nil {
		return fmt.Errorf("egress policy: %w", err)
	}
	stopTracing, err := tracingFromEnv(getenv).install(ctx, "kubage-agent")
	if err != nil {
		return err
	}
	// Flush the task's spans before the Job's pod ends.
	defer func() { _ = stopTracing(context.WithoutCancel(ctx)) }()
	timeout := o.timeout
	if timeout <= 0 || timeout > time.Hour {
		timeout = 5 * time.Minute
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var out bytes.Buffer
	inv := &task.Investigator{Env: jobTaskEnv(cs, o, getenv)}
	if err := agent.RunTaskJSON(tctx, inv, bytes.NewReader(raw), &out); err != nil {
		// The request itself is unusable; report it on the task when we can name the task.
		if id := taskIDOf(raw); id != "" {
			res := agent.TaskResult{TaskID: id, Summary: "task request rejected", Error: clipError(err)}
			if werr := writeResult(ctx, cs, owner, res); werr != nil {
				return errors.Join(err, werr)
			}
		}
		return err
	}
	var res agent.TaskResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return fmt.Errorf("decoding the task result: %w", err)
	}
	if tctx.Err() != nil && res.Error == "" {
		res.Error = fmt.Sprintf("task stopped after %s: %v", timeout, tctx.Err())
	}
	if err := writeResult(ctx, cs, owner, res); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "task %s of %s: %s\n", res.TaskID, owner, res.Summary)
	return nil
}

// jobTaskEnv is where a Job's task runs: the agent's credentials, the model Secret the
// kubelet put in the environment, and the operator's knowledge endpoint.
func jobTaskEnv(cs kubernetes.Interface, o agentTaskOptions, getenv func(string) string) *task.Env {
	environ := o.environ
	if environ == nil {
		environ = os.Environ
	}
	model := runner.ModelSecretFromEnv(environ())
	env := &task.Env{Client: cs, ModelSecret: func(_ context.Context, ref agent.SecretRef) (map[string][]byte, error) {
		if model == nil {
			return nil, fmt.Errorf("%w: the Job has no model Secret in its environment (a task Job can read the Secret of its own namespace only)", task.ErrModelUnavailable)
		}
		return model, nil
	}, Clusters: &envCluster{getenv: getenv}}
	if url := getenv(runner.EnvKnowledgeURL); url != "" {
		token := o.token
		if token == nil {
			token = serviceAccountToken
		}
		env.Knowledge = &remote.Client{URL: url, Token: token}
	}
	return env
}

// serviceAccountToken returns the token of the agent's own credentials.
func serviceAccountToken() (string, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return "", fmt.Errorf("loading kubeconfig: %w", err)
	}
	return remote.TokenFrom(cfg.BearerToken, cfg.BearerTokenFile)()
}

// readTaskRequest returns the request JSON from the file or the environment, bounded.
func readTaskRequest(file string, getenv func(string) string) ([]byte, error) {
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("task request: %w", err)
		}
		defer f.Close()
		raw, err := io.ReadAll(io.LimitReader(f, agent.MaxTaskRequestBytes+1))
		if err != nil {
			return nil, fmt.Errorf("task request %s: %w", file, err)
		}
		if len(raw) > agent.MaxTaskRequestBytes {
			return nil, fmt.Errorf("task request %s is larger than %d bytes", file, agent.MaxTaskRequestBytes)
		}
		return raw, nil
	}
	raw := getenv(EnvTaskRequest)
	if raw == "" {
		return nil, fmt.Errorf("no task request: set $%s or --request-file", EnvTaskRequest)
	}
	if len(raw) > agent.MaxTaskRequestBytes {
		return nil, fmt.Errorf("$%s is larger than %d bytes", EnvTaskRequest, agent.MaxTaskRequestBytes)
	}
	return []byte(raw), nil
}

// taskIDOf extracts a usable task id from a request that failed to run, or "".
func taskIDOf(raw []byte) string {
	var partial struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if json.Unmarshal(raw, &partial) != nil || len(validation.IsDNS1123Label(partial.Task.ID)) > 0 {
		return ""
	}
	return partial.Task.ID
}

// writeResult writes the result ConfigMap, retrying transient API errors briefly; a refusal
// (RBAC, validation) is final.
func writeResult(ctx context.Context, cs kubernetes.Interface, owner runner.Owner, res agent.TaskResult) error {
	var err error
	backoff := 250 * time.Millisecond
	for attempt := 0; attempt < 5; attempt++ {
		if err = runner.WriteResult(ctx, cs, owner, res); err == nil {
			return nil
		}
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("writing the result: %w (then %v)", err, ctx.Err())
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	return err
}

func clipError(err error) string {
	s := err.Error()
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}
