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

package kbbuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/kubage/kubage/internal/egress"
)

// HTTPSource fetches documents from HTTP(S) URLs; each URL is one document whose
// path is the URL. It remembers each URL's ETag and Last-Modified between
// fetches and sends conditional requests, so an unchanged page costs a 304.
// Validators and content live in memory (bounded by Limits.MaxTotalBytes): after a
// restart the first fetch is a full one.
type HTTPSource struct {
	URLs []string
	// Header is added to every request (e.g. Authorization from a Secret).
	Header http.Header
	Limits Limits
	// Timeout bounds each request; 60s when zero.
	Timeout time.Duration
	// Client overrides the HTTP client.
	Client *http.Client

	mu    sync.Mutex
	cache map[string]httpValidator
}

type httpValidator struct {
	etag, lastModified string
	doc                Document
}

// MaxHTTPURLs bounds the URLs of one source.
const MaxHTTPURLs = 1000

// Fetch implements Source. A URL that fails is reported in Snapshot.Failed; the
// whole fetch fails only when every URL does.
func (s *HTTPSource) Fetch(ctx context.Context, previousRevision string) (*Snapshot, error) {
	if len(s.URLs) == 0 {
		return nil, errors.New("HTTP source needs at least one URL")
	}
	if len(s.URLs) > MaxHTTPURLs {
		return nil, fmt.Errorf("%d URLs, limit %d", len(s.URLs), MaxHTTPURLs)
	}
	for _, u := range s.URLs {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, fmt.Errorf("bad HTTP source URL %q", u)
		}
	}
	s.pruneCache()
	lim := s.Limits.withDefaults()
	snap := &Snapshot{}
	var total int64
	var firstErr error
	for _, u := range s.URLs {
		doc, err := s.fetchOne(ctx, u, lim)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if firstErr == nil {
				firstErr = err
			}
			snap.Failed = append(snap.Failed, DocumentError{Path: u, Err: err.Error()})
			continue
		}
		if total += int64(len(doc.Content)); total > lim.MaxTotalBytes {
			return nil, fmt.Errorf("documents exceed %d bytes in total", lim.MaxTotalBytes)
		}
		snap.Documents = append(snap.Documents, doc)
	}
	if len(snap.Documents) == 0 {
		// Wrapped so that callers can tell why (e.g. an egress refusal).
		return nil, fmt.Errorf("every URL failed, first: %s: %w", snap.Failed[0].Path, firstErr)
	}
	snap.Revision = revisionOf(snap.Documents)
	if snap.Revision == previousRevision && len(snap.Failed) == 0 {
		return &Snapshot{Revision: snap.Revision, Unchanged: true}, nil
	}
	return snap, nil
}

func (s *HTTPSource) fetchOne(ctx context.Context, u string, lim Limits) (Document, error) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Document{}, err
	}
	for k, vs := range s.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	s.mu.Lock()
	prev, havePrev := s.cache[u]
	s.mu.Unlock()
	if havePrev {
		if prev.etag != "" {
			req.Header.Set("If-None-Match", prev.etag)
		}
		if prev.lastModified != "" {
			req.Header.Set("If-Modified-Since", prev.lastModified)
		}
	}
	client := s.Client
	if client == nil {
		client = guardedClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return Document{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	switch {
	case resp.StatusCode == http.StatusNotModified && havePrev:
		d := prev.doc
		d.NotModified = true
		return d, nil
	case resp.StatusCode != http.StatusOK:
		return Document{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > lim.MaxFileBytes {
		return Document{}, fmt.Errorf("document is %d bytes, limit %d", resp.ContentLength, lim.MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, lim.MaxFileBytes+1))
	if err != nil {
		return Document{}, err
	}
	if int64(len(b)) > lim.MaxFileBytes {
		return Document{}, fmt.Errorf("document exceeds %d bytes", lim.MaxFileBytes)
	}
	if looksBinary(b) {
		return Document{}, errors.New("binary content")
	}
	doc := newDocument(u, b)
	v := httpValidator{etag: resp.Header.Get("ETag"), lastModified: resp.Header.Get("Last-Modified"), doc: doc}
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[string]httpValidator{}
	}
	if v.etag != "" || v.lastModified != "" {
		s.cache[u] = v
	} else {
		delete(s.cache, u)
	}
	s.mu.Unlock()
	return doc, nil
}

// pruneCache forgets URLs no longer in the source.
func (s *HTTPSource) pruneCache() {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := make(map[string]bool, len(s.URLs))
	for _, u := range s.URLs {
		keep[u] = true
	}
	for u := range s.cache {
		if !keep[u] {
			delete(s.cache, u)
		}
	}
}

// guardedClient fetches documents when Client is unset: every hop, redirects included,
// is dialed through the egress guard.
var guardedClient = egress.NewHTTPClient(0)
