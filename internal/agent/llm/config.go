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

// Package llm is KubAge's model-backed brain: an agent.Brain over any OpenAI-compatible
// chat endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, LiteLLM). It plans with JSON-schema
// structured outputs, investigates with a bounded tool-calling loop, judges and
// summarizes; every structured reply is validated and repaired once, and when the model
// is unreachable or its output stays unusable the brain degrades to a fallback brain
// (the rule engine) and says so. Everything sent is redacted first and tool output is
// framed as data, never as instructions.
package llm

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kubage/kubage/internal/text"
)

// Mode is the session mode; in Diagnose mode mutating tools are never offered or called.
type Mode string

const (
	ModeDiagnose  Mode = "Diagnose"
	ModeRemediate Mode = "Remediate"
)

// ResponseFormat selects how structured replies are requested.
type ResponseFormat string

const (
	// FormatJSONSchema sends response_format json_schema (strict). Servers that reject it
	// are remembered and asked in JSON mode instead.
	FormatJSONSchema ResponseFormat = "JSONSchema"
	// FormatJSONObject sends response_format json_object with the schema in the prompt.
	FormatJSONObject ResponseFormat = "JSONObject"
	// FormatPrompt sends no response_format at all; the schema is in the prompt and the
	// JSON is extracted from the answer (for servers without JSON mode).
	FormatPrompt ResponseFormat = "Prompt"
)

// Defaults of Config.
const (
	DefaultTimeout             = 60 * time.Second
	DefaultMaxOutputTokens     = 1024
	DefaultTemperature         = 20
	DefaultMaxRetries          = 3
	DefaultContextTokens       = 16384
	DefaultMaxSteps            = 6
	DefaultMaxToolCallsPerTask = 8
	DefaultMaxPlanTasks        = 4
	DefaultRetryBaseDelay      = 500 * time.Millisecond
	DefaultMaxRetryDelay       = 30 * time.Second
)

// Config configures one model endpoint and the brain's budgets. Zero fields take defaults.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or http://ollama:11434/v1.
	BaseURL string `json:"baseURL"`
	Model   string `json:"model"`
	APIKey  string `json:"-"`
	// Timeout bounds one HTTP attempt.
	Timeout time.Duration `json:"timeout,omitempty"`
	// MaxOutputTokens is sent with every request as max_tokens.
	MaxOutputTokens int `json:"maxOutputTokens,omitempty"`
	// Provider is the wire dialect (OpenAI by default); see dialect.go.
	Provider Provider `json:"provider,omitempty"`
	// APIVersion and Deployment are Azure OpenAI's; Deployment defaults to Model.
	APIVersion string `json:"apiVersion,omitempty"`
	Deployment string `json:"deployment,omitempty"`
	// TokenParameter is max_tokens or max_completion_tokens; empty picks by model family
	// (o1, o3, o4, gpt-5, gpt-6 take max_completion_tokens), and a server's 400 corrects it.
	TokenParameter string `json:"tokenParameter,omitempty"`
	// ReasoningEffort is sent as reasoning_effort when set (reasoning models only).
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	// Temperature in hundredths (20 = 0.2); nil means DefaultTemperature.
	Temperature *int `json:"temperature,omitempty"`
	// MaxRetries bounds retries of one call on 429, 5xx and timeouts.
	MaxRetries int `json:"maxRetries,omitempty"`
	// RetryBaseDelay is the first backoff step; MaxRetryDelay caps any wait, including a
	// server's Retry-After (a longer Retry-After fails the call at once).
	RetryBaseDelay time.Duration `json:"retryBaseDelay,omitempty"`
	MaxRetryDelay  time.Duration `json:"maxRetryDelay,omitempty"`
	// ContextTokens is the model's context window; prompts are packed to fit it.
	ContextTokens  int            `json:"contextTokens,omitempty"`
	ResponseFormat ResponseFormat `json:"responseFormat,omitempty"`
	// Mode is Diagnose (default) or Remediate.
	Mode Mode `json:"mode,omitempty"`
	// MaxSteps bounds the model calls of one investigation task.
	MaxSteps int `json:"maxSteps,omitempty"`
	// MaxToolCallsPerTask bounds the tool calls of one investigation task.
	MaxToolCallsPerTask int `json:"maxToolCallsPerTask,omitempty"`
	// MaxPlanTasks bounds the tasks the model adds to one round.
	MaxPlanTasks int `json:"maxPlanTasks,omitempty"`
	// MaxIterations and MaxToolCalls are the session budgets the regulator enforces.
	MaxIterations int `json:"maxIterations,omitempty"`
	MaxToolCalls  int `json:"maxToolCalls,omitempty"`
}

// WithDefaults fills zero fields.
func (c Config) WithDefaults() Config {
	c = c.applyProvider()
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if c.Temperature == nil {
		t := DefaultTemperature
		c.Temperature = &t
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	} else if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if c.MaxRetryDelay <= 0 {
		c.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if c.ContextTokens <= 0 {
		c.ContextTokens = DefaultContextTokens
	}
	if c.ResponseFormat == "" {
		c.ResponseFormat = FormatJSONSchema
	}
	if c.Mode == "" {
		c.Mode = ModeDiagnose
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.MaxToolCallsPerTask <= 0 {
		c.MaxToolCallsPerTask = DefaultMaxToolCallsPerTask
	}
	if c.MaxPlanTasks <= 0 {
		c.MaxPlanTasks = DefaultMaxPlanTasks
	}
	return c
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	var errs []error
	u, err := url.Parse(c.BaseURL)
	switch {
	case strings.TrimSpace(c.BaseURL) == "":
		errs = append(errs, errors.New("baseURL is required"))
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		errs = append(errs, fmt.Errorf("baseURL %q is not an http(s) URL", text.ClipMarked(c.BaseURL, 100)))
	}
	if strings.TrimSpace(c.Model) == "" {
		errs = append(errs, errors.New("model is required"))
	}
	switch c.ResponseFormat {
	case "", FormatJSONSchema, FormatJSONObject, FormatPrompt:
	default:
		errs = append(errs, fmt.Errorf("responseFormat %q is not one of JSONSchema, JSONObject, Prompt", text.ClipMarked(string(c.ResponseFormat), 40)))
	}
	switch c.Mode {
	case "", ModeDiagnose, ModeRemediate:
	default:
		errs = append(errs, fmt.Errorf("mode %q is not Diagnose or Remediate", text.ClipMarked(string(c.Mode), 40)))
	}
	if c.ContextTokens > 0 && c.MaxOutputTokens >= c.ContextTokens {
		errs = append(errs, errors.New("maxOutputTokens must be smaller than contextTokens"))
	}
	if err := c.validateProvider(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Secret data keys read by ConfigFromSecretData; only baseURL and model are required.
const (
	KeyBaseURL         = "baseURL"
	KeyModel           = "model"
	KeyAPIKey          = "apiKey"
	KeyTimeout         = "timeout"
	KeyMaxOutputTokens = "maxOutputTokens"
	KeyTemperature     = "temperature"
	KeyMaxRetries      = "maxRetries"
	KeyContextTokens   = "contextTokens"
	KeyResponseFormat  = "responseFormat"
	KeyProvider        = "provider"
	KeyAPIVersion      = "apiVersion"
	KeyDeployment      = "deployment"
	KeyTokenParameter  = "tokenParameter"
	KeyReasoningEffort = "reasoningEffort"
)

// ConfigFromSecretData builds a Config from the data of a model Secret: baseURL, model
// and apiKey, plus optional timeout (a Go duration), maxOutputTokens, temperature (a
// decimal such as 0.2), maxRetries, contextTokens, responseFormat, and the dialect keys
// provider, apiVersion, deployment, tokenParameter and reasoningEffort.
func ConfigFromSecretData(data map[string][]byte) (Config, error) {
	get := func(k string) string { return strings.TrimSpace(string(data[k])) }
	c := Config{BaseURL: get(KeyBaseURL), Model: get(KeyModel), APIKey: get(KeyAPIKey),
		APIVersion: get(KeyAPIVersion), Deployment: get(KeyDeployment), TokenParameter: get(KeyTokenParameter),
		ReasoningEffort: get(KeyReasoningEffort)}
	var errs []error
	if p, err := parseProvider(get(KeyProvider)); err != nil {
		errs = append(errs, err)
	} else {
		c.Provider = p
	}
	if v := get(KeyTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 10*time.Minute {
			errs = append(errs, fmt.Errorf("%s %q is not a duration between 0 and 10m", KeyTimeout, text.ClipMarked(v, 40)))
		}
		c.Timeout = d
	}
	ints := []struct {
		key      string
		dst      *int
		min, max int
	}{
		{KeyMaxOutputTokens, &c.MaxOutputTokens, 16, 1 << 17},
		{KeyMaxRetries, &c.MaxRetries, 0, 10},
		{KeyContextTokens, &c.ContextTokens, 1024, 1 << 21},
	}
	for _, f := range ints {
		v := get(f.key)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < f.min || n > f.max {
			errs = append(errs, fmt.Errorf("%s %q is not an integer between %d and %d", f.key, text.ClipMarked(v, 40), f.min, f.max))
			continue
		}
		*f.dst = n
	}
	if c.MaxRetries == 0 && get(KeyMaxRetries) == "0" {
		c.MaxRetries = -1 // explicit zero: no retries
	}
	if v := get(KeyTemperature); v != "" {
		t, err := parseHundredths(v)
		if err != nil || t < 0 || t > 200 {
			errs = append(errs, fmt.Errorf("%s %q is not a number between 0 and 2", KeyTemperature, text.ClipMarked(v, 40)))
		} else {
			c.Temperature = &t
		}
	}
	if v := get(KeyResponseFormat); v != "" {
		c.ResponseFormat = ResponseFormat(v)
	}
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	return c, errors.Join(errs...)
}

// parseHundredths reads "0.2" or "0.25" as 20 or 25 without floating point.
func parseHundredths(v string) (int, error) {
	whole, frac, _ := strings.Cut(v, ".")
	if whole == "" {
		whole = "0"
	}
	w, err := strconv.Atoi(whole)
	if err != nil {
		return 0, err
	}
	if len(frac) > 2 {
		frac = frac[:2]
	}
	for len(frac) < 2 {
		frac += "0"
	}
	f, err := strconv.Atoi(frac)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("bad fraction %q", frac)
	}
	return w*100 + f, nil
}
