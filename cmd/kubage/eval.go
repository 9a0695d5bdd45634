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

	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/eval"
)

func init() {
	registerCommand(newEvalCommand)
}

// evalOptions are the flags of `kubage eval`.
type evalOptions struct {
	baseURL         string
	model           string
	apiKeyEnv       string
	scenarios       string
	timeout         time.Duration
	scenarioTimeout time.Duration
	maxOutputTokens int
	contextTokens   int
	responseFormat  string
	minPassRate     int
}

// newEvalCommand returns `kubage eval`: the LLM brain against scenario fixtures.
func newEvalCommand() *cobra.Command {
	o := evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure a model: run the LLM brain over scenario fixtures and report pass rate, tokens and latency as JSON",
		Long: `Runs each scenario (a session, canned tool outputs, optional rule-engine findings and the
expected category and culprit) through the LLM brain against the configured OpenAI-compatible
endpoint, and prints a JSON report: per scenario pass/fail with reasons, category, culprit,
confidence, LLM calls, prompt and completion tokens, tool calls and latency; then totals and
the pass rate in percent, per class and per split of the corpus, and the median latency.
A scenario that degrades to the rule engine fails. Each session runs offline through the
operator's own session engine: the fixture's recorded tool outputs are the cluster.
Fixtures that carry the rule engine's recorded conclusion also score it, with the same
checks, as a baseline ("ruleEngine"); scoring the scripted stand-in model is --base-url
pointing at bin/fakemodel (make test-programs).

Without --scenarios the few fixtures built into the binary run; the recorded corpus
(make eval-fixtures: over 100 scenarios of the real-cluster corpus) is
--scenarios test/evalfixtures/corpus in a checkout. It exits non-zero when the pass
rate is below --min-pass-rate.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return runEval(ctx, o, os.Getenv, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.baseURL, "base-url", "", "API root of the OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (required)")
	f.StringVar(&o.model, "model", "", "model name (required)")
	f.StringVar(&o.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (may be unset for local servers)")
	f.StringVar(&o.scenarios, "scenarios", "", "directory of scenario fixtures (.yaml, .yml, .json); default: the built-in ones")
	f.DurationVar(&o.timeout, "timeout", llm.DefaultTimeout, "timeout of one model request")
	f.DurationVar(&o.scenarioTimeout, "scenario-timeout", 5*time.Minute, "timeout of one scenario")
	f.IntVar(&o.maxOutputTokens, "max-output-tokens", llm.DefaultMaxOutputTokens, "max_tokens sent with every request")
	f.IntVar(&o.contextTokens, "context-tokens", llm.DefaultContextTokens, "the model's context window in tokens")
	f.StringVar(&o.responseFormat, "response-format", string(llm.FormatJSONSchema), "JSONSchema, JSONObject or Prompt")
	f.IntVar(&o.minPassRate, "min-pass-rate", 0, "exit non-zero when the pass rate (percent) is lower")
	return cmd
}

func runEval(ctx context.Context, o evalOptions, getenv func(string) string, out io.Writer) error {
	cfg := llm.Config{
		BaseURL: o.baseURL, Model: o.model, Timeout: o.timeout, MaxOutputTokens: o.maxOutputTokens,
		ContextTokens: o.contextTokens, ResponseFormat: llm.ResponseFormat(o.responseFormat),
	}
	if o.apiKeyEnv != "" {
		cfg.APIKey = getenv(o.apiKeyEnv)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("kubage eval: %w", err)
	}
	var scs []eval.Scenario
	var err error
	if o.scenarios != "" {
		scs, err = eval.LoadScenarios(o.scenarios)
	} else {
		scs, err = eval.BuiltinScenarios()
	}
	if err != nil {
		return fmt.Errorf("kubage eval: loading scenarios: %w", err)
	}
	if len(scs) == 0 {
		return errors.New("kubage eval: no scenarios found")
	}
	rep, err := eval.RunEval(ctx, cfg, scs, eval.Options{ScenarioTimeout: o.scenarioTimeout})
	if err != nil {
		return fmt.Errorf("kubage eval: %w", err)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return err
	}
	if rep.PassRate < o.minPassRate {
		return fmt.Errorf("kubage eval: pass rate %d%% is below %d%%", rep.PassRate, o.minPassRate)
	}
	return nil
}
