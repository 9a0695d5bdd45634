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

// Package remote serves the operator's knowledge to sub-task agents that run as Jobs, and
// is the agents' client of it. An agent authenticates with its ServiceAccount token; the
// operator checks the token with a TokenReview, accepts only the agent ServiceAccount, and
// searches the KnowledgeSources of the token's namespace only — the namespace in a request
// is never trusted, so an agent sees no more knowledge than its session could.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/knowledge"
)

// SearchPath is where the endpoint answers POSTed SearchRequests with a knowledge.Answer.
const SearchPath = "/v1/knowledge/search"

// maxRequestBytes bounds a request body: a query, a selector and a few numbers.
const maxRequestBytes = 16 << 10

// SearchRequest is one search; the namespace comes from the caller's token.
type SearchRequest struct {
	Selector    *metav1.LabelSelector `json:"selector,omitempty"`
	Text        string                `json:"text"`
	MinTrust    int                   `json:"minTrust,omitempty"`
	Domain      string                `json:"domain,omitempty"`
	K           int                   `json:"k,omitempty"`
	PerDocument int                   `json:"perDocument,omitempty"`
	// Scopes are the session's knowledge scopes (spec.knowledge).
	Scopes []knowledge.Scope `json:"scopes,omitempty"`
}

// Searcher answers knowledge queries; *knowledge.Service is one.
type Searcher interface {
	Search(ctx context.Context, q knowledge.Query) (*knowledge.Answer, error)
}

// Authenticator turns a bearer token into the namespace its holder may search.
type Authenticator interface {
	// Authenticate returns the caller's namespace, or an error wrapping ErrUnauthorized
	// (the token is not valid) or ErrForbidden (valid, but not an agent's).
	Authenticate(ctx context.Context, token string) (namespace string, err error)
}

// Errors of Authenticate.
var (
	ErrUnauthorized = errors.New("unauthorized")
	ErrForbidden    = errors.New("forbidden")
)

// Handler is the knowledge endpoint.
type Handler struct {
	Searcher Searcher
	Auth     Authenticator
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != SearchPath {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		httpError(w, http.StatusUnauthorized, "a ServiceAccount bearer token is required")
		return
	}
	ns, err := h.Auth.Authenticate(r.Context(), strings.TrimSpace(token))
	switch {
	case errors.Is(err, ErrUnauthorized):
		httpError(w, http.StatusUnauthorized, err.Error())
		return
	case errors.Is(err, ErrForbidden):
		httpError(w, http.StatusForbidden, err.Error())
		return
	case err != nil:
		httpError(w, http.StatusServiceUnavailable, "cannot check the token: "+err.Error())
		return
	}
	var req SearchRequest
	body := http.MaxBytesReader(w, r.Body, maxRequestBytes)
	if err := json.NewDecoder(body).Decode(&req); err != nil {
		httpError(w, http.StatusBadRequest, "malformed search request: "+err.Error())
		return
	}
	ans, err := h.Searcher.Search(r.Context(), knowledge.Query{
		Namespace: ns, Selector: req.Selector, Text: req.Text, MinTrust: req.MinTrust,
		Domain: req.Domain, K: req.K, PerDocument: req.PerDocument, Scopes: req.Scopes,
	})
	if errors.Is(err, knowledge.ErrInvalidQuery) {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ans)
}

// errorBody is the JSON of a failed request.
type errorBody struct {
	Error string `json:"error"`
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(errorBody{Error: msg})
}

// readError turns a failed response into an error with the server's message.
func readError(resp *http.Response) error {
	var e errorBody
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if json.Unmarshal(raw, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(raw))
	}
	return fmt.Errorf("knowledge endpoint: %s: %s", resp.Status, e.Error)
}
