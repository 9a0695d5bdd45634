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

package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kubage/kubage/internal/text"
)

// Provider names the wire dialect of a model endpoint. All of them speak chat completions;
// they differ in paths, auth headers and which request fields they accept.
type Provider string

const (
	// ProviderOpenAI is api.openai.com and any server that copies it exactly (LiteLLM).
	ProviderOpenAI Provider = "OpenAI"
	// ProviderAzure is Azure OpenAI: /openai/deployments/{deployment}/chat/completions,
	// an api-version query parameter and an api-key header.
	ProviderAzure Provider = "AzureOpenAI"
	// ProviderOllama is Ollama's OpenAI-compatible API: no key, JSON mode but no strict schemas.
	ProviderOllama Provider = "Ollama"
	// ProviderVLLM is vLLM's OpenAI-compatible server: a key only if started with one,
	// JSON mode, strict schemas depending on the build.
	ProviderVLLM Provider = "vLLM"
)

// Token limit parameters; newer OpenAI models refuse max_tokens.
const (
	TokenParamMaxTokens           = "max_tokens"
	TokenParamMaxCompletionTokens = "max_completion_tokens"
)

// DefaultAzureAPIVersion is the Azure OpenAI data-plane API version used when none is set.
const DefaultAzureAPIVersion = "2024-10-21"

// parseProvider accepts the documented names case-insensitively ("azure" too).
func parseProvider(v string) (Provider, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "openai":
		return ProviderOpenAI, nil
	case "azureopenai", "azure", "azure-openai":
		return ProviderAzure, nil
	case "ollama":
		return ProviderOllama, nil
	case "vllm":
		return ProviderVLLM, nil
	}
	return "", fmt.Errorf("provider %q is not one of OpenAI, AzureOpenAI, Ollama, vLLM", text.ClipMarked(v, 40))
}

// reasoningModel says whether a model name belongs to a family that takes
// max_completion_tokens and no sampling parameters (o1, o3, o4, gpt-5, gpt-6).
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if m == p || strings.HasPrefix(m, p+"-") || strings.HasPrefix(m, p+".") {
			return true
		}
	}
	return false
}

// applyProvider fills the provider's defaults into zero fields.
func (c Config) applyProvider() Config {
	if c.Provider == "" {
		c.Provider = ProviderOpenAI
	}
	switch c.Provider {
	case ProviderAzure:
		if c.APIVersion == "" {
			c.APIVersion = DefaultAzureAPIVersion
		}
		if c.Deployment == "" {
			c.Deployment = c.Model
		}
	case ProviderOllama, ProviderVLLM:
		// Strict json_schema is missing or partial on these servers; JSON mode works on
		// both, so start there instead of paying for a rejected request first.
		if c.ResponseFormat == "" {
			c.ResponseFormat = FormatJSONObject
		}
	}
	if c.TokenParameter == "" {
		c.TokenParameter = TokenParamMaxTokens
		if reasoningModel(c.Model) {
			c.TokenParameter = TokenParamMaxCompletionTokens
		}
	}
	return c
}

// validateProvider reports dialect settings that cannot work.
func (c Config) validateProvider() error {
	var errs []error
	switch c.Provider {
	case "", ProviderOpenAI, ProviderAzure, ProviderOllama, ProviderVLLM:
	default:
		errs = append(errs, fmt.Errorf("provider %q is not one of OpenAI, AzureOpenAI, Ollama, vLLM", text.ClipMarked(string(c.Provider), 40)))
	}
	if c.Provider == ProviderAzure && c.APIKey == "" {
		errs = append(errs, errors.New("apiKey is required for AzureOpenAI (sent as the api-key header)"))
	}
	if c.Provider != ProviderAzure && (c.Deployment != "" || c.APIVersion != "") {
		errs = append(errs, errors.New("deployment and apiVersion apply to provider AzureOpenAI only"))
	}
	switch c.TokenParameter {
	case "", TokenParamMaxTokens, TokenParamMaxCompletionTokens:
	default:
		errs = append(errs, fmt.Errorf("tokenParameter %q is not max_tokens or max_completion_tokens", text.ClipMarked(c.TokenParameter, 40)))
	}
	return errors.Join(errs...)
}

// clientConfig is the go-openai configuration for the endpoint's dialect.
func (c Config) clientConfig() openai.ClientConfig {
	base := strings.TrimRight(c.BaseURL, "/")
	if c.Provider == ProviderAzure {
		oc := openai.DefaultAzureConfig(c.APIKey, base)
		oc.APIVersion = c.APIVersion
		deployment := c.Deployment
		oc.AzureModelMapperFunc = func(string) string { return deployment }
		return oc
	}
	// An empty key sends no Authorization header at all (Ollama, keyless vLLM).
	oc := openai.DefaultConfig(c.APIKey)
	oc.BaseURL = base
	return oc
}

// dialectFix is what a server's 400 asked to change in the next request.
type dialectFix int

const (
	fixNone dialectFix = iota
	// fixCompletionTokens: the server wants max_completion_tokens instead of max_tokens.
	fixCompletionTokens
	// fixNoSampling: the server refuses temperature (reasoning models).
	fixNoSampling
)

// dialectRejected reads a 400 for the request fields a server refuses, so an endpoint
// configured with the wrong dialect learns it once instead of failing every call.
func dialectRejected(err error) dialectFix {
	if httpStatus(err) != http.StatusBadRequest {
		return fixNone
	}
	m := strings.ToLower(errMessage(err))
	switch {
	case strings.Contains(m, "max_tokens") && strings.Contains(m, "max_completion_tokens"):
		return fixCompletionTokens
	case strings.Contains(m, "temperature") && (strings.Contains(m, "unsupported") || strings.Contains(m, "not supported") || strings.Contains(m, "does not support")):
		return fixNoSampling
	}
	return fixNone
}
