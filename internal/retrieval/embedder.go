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

package retrieval

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kubage/kubage/internal/egress"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/text"
)

// Embedder turns texts into dense vectors.
type Embedder interface {
	// Model names the embedding model; chunks remember it so queries only compare like with like.
	Model() string
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrDimensionMismatch is returned when the endpoint returns vectors of an unexpected size.
var ErrDimensionMismatch = errors.New("embedding dimension mismatch")

// OpenAIEmbedderConfig configures an OpenAI-compatible embeddings client.
type OpenAIEmbedderConfig struct {
	// BaseURL of the API, e.g. "https://api.openai.com/v1"; required.
	BaseURL string
	// APIKey is sent as a bearer token; may be empty for local servers.
	APIKey string
	// Model is the embedding model name; required.
	Model string
	// Dimensions, when set, is the expected vector size; otherwise the first response fixes it.
	Dimensions int
	// BatchSize bounds texts per request; 64 when zero.
	BatchSize int
	// MaxInputChars truncates each text before sending; 16000 when zero.
	MaxInputChars int
	// CacheEntries bounds the content-hash cache; 50000 when zero, negative disables it.
	CacheEntries int
	// Timeout bounds each request; 60s when zero.
	Timeout time.Duration
	// Retries on 429 and 5xx responses; 2 when zero, negative disables.
	Retries int
	// RetryBackoff is the first wait between retries, doubled each time; 500ms when zero.
	RetryBackoff time.Duration
	// HTTPClient overrides the HTTP client.
	HTTPClient *http.Client
}

// OpenAIEmbedder calls an OpenAI-compatible /embeddings endpoint in batches and
// caches vectors by content hash, so unchanged text is never sent twice.
type OpenAIEmbedder struct {
	cfg    OpenAIEmbedderConfig
	client *openai.Client

	mu    sync.Mutex
	dims  int
	cache map[[32]byte][]float32
	order [][32]byte // FIFO eviction order
	calls int
}

// NewOpenAIEmbedder validates cfg and returns a client.
func NewOpenAIEmbedder(cfg OpenAIEmbedderConfig) (*OpenAIEmbedder, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("embedding model needs a base URL and a model name")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 64
	}
	if cfg.MaxInputChars <= 0 {
		cfg.MaxInputChars = 16000
	}
	if cfg.CacheEntries == 0 {
		cfg.CacheEntries = 50000
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 2
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 500 * time.Millisecond
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = egress.NewHTTPClient(0)
	if cfg.HTTPClient != nil {
		oc.HTTPClient = cfg.HTTPClient
	}
	return &OpenAIEmbedder{
		cfg:    cfg,
		client: openai.NewClientWithConfig(oc),
		dims:   cfg.Dimensions,
		cache:  map[[32]byte][]float32{},
	}, nil
}

// Model implements Embedder.
func (o *OpenAIEmbedder) Model() string { return o.cfg.Model }

// Calls returns how many embedding requests were sent (for tests and metrics).
func (o *OpenAIEmbedder) Calls() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls
}

// Embed implements Embedder.
func (o *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	var missing []int
	o.mu.Lock()
	for i, t := range texts {
		t = embeddingInput(t, o.cfg.MaxInputChars)
		keys[i] = sha256.Sum256([]byte(o.cfg.Model + "\x00" + t))
		if v, ok := o.cache[keys[i]]; ok {
			out[i] = v
		} else {
			missing = append(missing, i)
		}
	}
	o.mu.Unlock()
	for start := 0; start < len(missing); start += o.cfg.BatchSize {
		batch := missing[start:min(start+o.cfg.BatchSize, len(missing))]
		inputs := make([]string, len(batch))
		for j, i := range batch {
			inputs[j] = embeddingInput(texts[i], o.cfg.MaxInputChars)
		}
		vecs, err := o.request(ctx, inputs)
		if err != nil {
			return nil, err
		}
		o.mu.Lock()
		for j, i := range batch {
			out[i] = vecs[j]
			o.remember(keys[i], vecs[j])
		}
		o.mu.Unlock()
	}
	return out, nil
}

func (o *OpenAIEmbedder) remember(k [32]byte, v []float32) {
	if o.cfg.CacheEntries < 0 {
		return
	}
	if _, ok := o.cache[k]; ok {
		return
	}
	if len(o.order) >= o.cfg.CacheEntries {
		delete(o.cache, o.order[0])
		o.order = o.order[1:]
	}
	o.cache[k] = v
	o.order = append(o.order, k)
}

func (o *OpenAIEmbedder) request(ctx context.Context, inputs []string) ([][]float32, error) {
	backoff := o.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		vecs, err := o.requestOnce(ctx, inputs)
		if err == nil || attempt >= o.cfg.Retries || !retryable(err) {
			return vecs, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

func retryable(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode == http.StatusTooManyRequests || apiErr.HTTPStatusCode >= 500
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode == http.StatusTooManyRequests || reqErr.HTTPStatusCode >= 500
	}
	return false
}

func (o *OpenAIEmbedder) requestOnce(ctx context.Context, inputs []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	o.mu.Lock()
	o.calls++
	o.mu.Unlock()
	resp, err := o.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
		Input: inputs,
		Model: openai.EmbeddingModel(o.cfg.Model),
	})
	if err != nil {
		return nil, fmt.Errorf("embeddings request to %s: %w", o.cfg.BaseURL, err)
	}
	if len(resp.Data) != len(inputs) {
		return nil, fmt.Errorf("embeddings endpoint returned %d vectors for %d inputs", len(resp.Data), len(inputs))
	}
	data := resp.Data
	sort.SliceStable(data, func(i, j int) bool { return data[i].Index < data[j].Index })
	out := make([][]float32, len(data))
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, d := range data {
		if d.Index != i {
			return nil, fmt.Errorf("embeddings endpoint returned index %d at position %d", d.Index, i)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings endpoint returned an empty vector at %d", i)
		}
		if o.dims == 0 {
			o.dims = len(d.Embedding)
		}
		if len(d.Embedding) != o.dims {
			return nil, fmt.Errorf("%w: got %d, want %d", ErrDimensionMismatch, len(d.Embedding), o.dims)
		}
		out[i] = d.Embedding
	}
	return out, nil
}

// embeddingInput is what is sent for text: queries and chunks leave the cluster for the
// embedding endpoint, so credentials are removed before the text is cut.
func embeddingInput(in string, maxChars int) string {
	return text.Clip(redact.Default().Secrets(in), maxChars)
}
