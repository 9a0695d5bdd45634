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

package llmtest

import (
	"fmt"
	"net/http"
	"strings"
)

// Dialect makes the server answer as a particular provider does, so a client's
// paths, headers and request fields are checked the way that provider checks them.
// The zero Dialect is plain OpenAI.
type Dialect struct {
	// AzureDeployment serves Azure OpenAI's path /openai/deployments/{it}/chat/completions
	// only, takes the key from the api-key header and needs the api-version query.
	AzureDeployment string
	// AzureAPIVersion, when set, is the only api-version accepted.
	AzureAPIVersion string
	// RejectJSONSchema answers 400 to response_format json_schema (Ollama, older vLLM).
	RejectJSONSchema bool
	// RequireCompletionTokens answers 400 to max_tokens as newer OpenAI models do.
	RequireCompletionTokens bool
	// RejectTemperature answers 400 to any temperature but 1 (reasoning models).
	RejectTemperature bool
	// OmitUsage leaves the usage object out of replies (some Ollama versions).
	OmitUsage bool
}

// SetDialect sets the provider dialect the handler speaks.
func (h *Handler) SetDialect(d Dialect) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dialect = d
}

// SetDialect sets the provider dialect the server speaks.
func (s *Server) SetDialect(d Dialect) { s.h.SetDialect(d) }

// AzureBaseURL is the root a client configured for Azure OpenAI is given.
func (s *Server) AzureBaseURL() string { return s.URL }

// checkPath answers a request whose path or api-version the dialect does not serve;
// true when it answered.
func (d Dialect) checkPath(w http.ResponseWriter, r *http.Request) bool {
	if d.AzureDeployment == "" {
		return false
	}
	want := "/openai/deployments/" + d.AzureDeployment + "/chat/completions"
	if r.URL.Path != want {
		writeError(w, http.StatusNotFound, "DeploymentNotFound",
			fmt.Sprintf("The API deployment for this resource does not exist (path %s, want %s).", r.URL.Path, want))
		return true
	}
	v := r.URL.Query().Get("api-version")
	if v == "" || (d.AzureAPIVersion != "" && v != d.AzureAPIVersion) {
		writeError(w, http.StatusNotFound, "404", fmt.Sprintf("Resource not found (api-version %q)", v))
		return true
	}
	return false
}

// keyOK says whether the request carries key the way the dialect expects it.
func (d Dialect) keyOK(r *http.Request, key string) bool {
	if key == "" {
		return true
	}
	if d.AzureDeployment != "" {
		return r.Header.Get("api-key") == key
	}
	return r.Header.Get("Authorization") == "Bearer "+key
}

// rejectFields answers 400 to request fields the dialect refuses; true when it answered.
func (d Dialect) rejectFields(w http.ResponseWriter, c ChatRequest) bool {
	switch {
	case d.RejectJSONSchema && c.ResponseFormat != nil && strings.EqualFold(c.ResponseFormat.Type, "json_schema"):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "response_format type json_schema is not supported by this server")
	case d.RequireCompletionTokens && c.MaxTokens > 0:
		writeError(w, http.StatusBadRequest, "unsupported_parameter",
			"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
	case d.RejectTemperature && c.Temperature != nil && *c.Temperature != 1:
		writeError(w, http.StatusBadRequest, "unsupported_value",
			fmt.Sprintf("Unsupported value: 'temperature' does not support %g with this model. Only the default (1) value is supported.", *c.Temperature))
	default:
		return false
	}
	return true
}
