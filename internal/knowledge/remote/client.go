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

package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kubage/kubage/internal/knowledge"
)

// maxAnswerBytes bounds an answer read back (K snippets of at most MaxSnippetBytes).
const maxAnswerBytes = 1 << 20

// Client searches the operator's knowledge endpoint; it implements the Search of
// tools.KnowledgeSearcher, so an agent's brain uses it like the operator's own service.
type Client struct {
	// URL is the endpoint's base, e.g. http://kubage-agent-api.kubage-system.svc:8082.
	URL string
	// Token returns the bearer token: the agent's ServiceAccount token.
	Token func() (string, error)
	// HTTP is the client (a 30s timeout when nil).
	HTTP *http.Client
}

// TokenFrom returns a token source: token when set, else the content of file, re-read on
// every call because projected ServiceAccount tokens rotate.
func TokenFrom(token, file string) func() (string, error) {
	return func() (string, error) {
		if token != "" {
			return token, nil
		}
		if file == "" {
			return "", fmt.Errorf("no ServiceAccount token for the knowledge endpoint")
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("reading the ServiceAccount token: %w", err)
		}
		return strings.TrimSpace(string(raw)), nil
	}
}

// Search implements tools.KnowledgeSearcher. q.Namespace is not sent: the endpoint
// searches the namespace of the caller's token.
func (c *Client) Search(ctx context.Context, q knowledge.Query) (*knowledge.Answer, error) {
	raw, err := json.Marshal(SearchRequest{
		Selector: q.Selector, Text: q.Text, MinTrust: q.MinTrust, Domain: q.Domain, K: q.K, PerDocument: q.PerDocument, Scopes: q.Scopes,
	})
	if err != nil {
		return nil, err
	}
	token, err := c.Token()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.URL, "/")+SearchPath, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("knowledge endpoint: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, readError(resp)
	}
	var ans knowledge.Answer
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(&ans); err != nil {
		return nil, fmt.Errorf("knowledge endpoint: malformed answer: %w", err)
	}
	return &ans, nil
}
