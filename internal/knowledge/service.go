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

package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/retrieval/milvus"
)

// connectTimeout bounds dialling Milvus, so an unreachable address fails a run instead of holding it.
const connectTimeout = 30 * time.Second

// embeddedStoreKey names the process-wide Embedded store among the store handles.
const embeddedStoreKey = "embedded"

// Store is a retrieval.Store the Service may have to close (a Milvus connection).
type Store interface {
	retrieval.Store
	io.Closer
}

// MilvusConnector opens a Milvus store; tests replace it with a fake.
type MilvusConnector func(ctx context.Context, cfg milvus.Config) (Store, error)

// Options configure a Service. Zero values take the tuned production defaults.
type Options struct {
	// Embedded configures the process-wide in-memory store; retrieval.DefaultEmbeddedOptions when zero.
	Embedded retrieval.EmbeddedOptions
	// Fusion configures RRF; retrieval.DefaultFusion when zero.
	Fusion retrieval.Fusion
	// Reranker reorders fused candidates; a retrieval.DeterministicReranker when nil.
	Reranker retrieval.Reranker
	// ConnectMilvus opens Milvus stores; ConnectMilvus (milvus.Connect then WarmStats) when nil.
	ConnectMilvus MilvusConnector
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// CacheTTL keeps answers of identical queries this long (DefaultCacheTTL when zero,
	// negative disables the cache); CacheEntries bounds it (DefaultCacheEntries when zero).
	CacheTTL     time.Duration
	CacheEntries int
	// SnapshotDir, when set, keeps a snapshot of each embedded source there (see Restore).
	SnapshotDir string
	// GitWorkspace, when set, is where git sources are cloned (on disk, under its caps).
	GitWorkspace *kbbuild.GitWorkspace
}

// ConnectMilvus dials Milvus, ensures the collection and loads its term statistics so
// the first queries get proper IDF weights.
func ConnectMilvus(ctx context.Context, cfg milvus.Config) (Store, error) {
	s, err := milvus.Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.WarmStats(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("read term statistics of milvus collection %s: %w", cfg.Collection, err)
	}
	return s, nil
}

// SourceConfig is one KnowledgeSource as the Service indexes it.
type SourceConfig struct {
	// Namespace and Name identify the KnowledgeSource; required.
	Namespace, Name string
	// Labels are the KnowledgeSource's labels, matched by Query.Selector.
	Labels map[string]string
	// Source fetches the documents; required.
	Source kbbuild.Source
	// Domain and TrustLevel are attached to every chunk.
	Domain     string
	TrustLevel int
	// Copyright is shown with every passage of the source; NotQuotable limits what of a
	// passage leaves the index to its title, link and one sentence (see Snippet).
	Copyright   string
	NotQuotable bool
	// Format of the documents; empty picks by file extension.
	Format   kbbuild.Format
	Chunking kbbuild.ChunkOptions
	// Embedder produces dense vectors; nil means BM25 only.
	Embedder retrieval.Embedder
	// Milvus selects a Milvus store; nil means the process-wide Embedded store.
	Milvus *milvus.Config
	// Fingerprint identifies what the Source reads (URL, ref, paths, ...). When it
	// changes, the previous revision no longer describes the index and the source is
	// read in full even if its revision did not move.
	Fingerprint string
}

// Key is the source name in the stores: "namespace/name".
func (c *SourceConfig) Key() string { return c.Namespace + "/" + c.Name }

// StoreError is a failure of the store (Milvus unreachable, a write refused), as opposed
// to a failure to read the source.
type StoreError struct {
	Err error
}

func (e *StoreError) Error() string { return "knowledge store: " + e.Err.Error() }
func (e *StoreError) Unwrap() error { return e.Err }

// Service is the operator's knowledge base: it indexes KnowledgeSources and searches them.
// It is safe for concurrent use; indexing one source concurrently with itself is not
// supported (the controller reconciles one object at a time).
type Service struct {
	opts     Options
	embedded *retrieval.Embedded

	mu      sync.RWMutex
	sources map[string]*entry
	stores  map[string]*storeHandle

	// gen changes whenever a source is indexed or removed, so cached answers never outlive
	// the index they came from.
	gen   atomic.Uint64
	cache queryCache
}

// entry is what the Service knows of one indexed KnowledgeSource.
type entry struct {
	namespace, name string
	labels          map[string]string
	domain          string
	trust           int
	copyright       string
	notQuotable     bool
	store           *storeHandle
	embedder        retrieval.Embedder
	revision        string
	fingerprint     string
	stats           kbbuild.Stats
	indexedAt       time.Time
	// restored marks an entry loaded from a snapshot and not indexed since.
	restored bool
}

// storeHandle is one store shared by the sources that use it.
type storeHandle struct {
	key   string
	store retrieval.Store
	// closer is nil for the Embedded store, which lives as long as the Service.
	closer io.Closer
	// inUse counts calls between acquire and release; guarded by Service.mu.
	inUse int
}

// NewService returns a Service with an empty Embedded store.
func NewService(opts Options) *Service {
	if opts.Embedded == (retrieval.EmbeddedOptions{}) {
		opts.Embedded = retrieval.DefaultEmbeddedOptions
	}
	if opts.Fusion.K == 0 && opts.Fusion.Weights == nil {
		opts.Fusion = retrieval.DefaultFusion
	}
	if opts.ConnectMilvus == nil {
		opts.ConnectMilvus = ConnectMilvus
	}
	if opts.Reranker == nil {
		opts.Reranker = &retrieval.DeterministicReranker{Analyzer: opts.Embedded.Analyzer}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = DefaultCacheEntries
	}
	embedded := retrieval.NewEmbedded(opts.Embedded)
	return &Service{
		opts:     opts,
		embedded: embedded,
		sources:  map[string]*entry{},
		stores:   map[string]*storeHandle{embeddedStoreKey: {key: embeddedStoreKey, store: embedded}},
	}
}

// GitWorkspace is where git sources are cloned; nil clones into memory.
func (s *Service) GitWorkspace() *kbbuild.GitWorkspace { return s.opts.GitWorkspace }

// Embedded returns the process-wide in-memory store (for snapshots and metrics).
func (s *Service) Embedded() *retrieval.Embedded { return s.embedded }

// Index brings the index of one source up to date and makes it searchable. Only
// documents whose content or settings changed are re-processed; a revision this process
// has already indexed with the same settings is a cheap no-op. On error the previous
// index of the source keeps serving. Store failures are returned as *StoreError.
func (s *Service) Index(ctx context.Context, cfg SourceConfig) (*kbbuild.Stats, error) {
	if cfg.Namespace == "" || cfg.Name == "" {
		return nil, errors.New("knowledge source needs a namespace and a name")
	}
	if cfg.Source == nil {
		return nil, errors.New("knowledge source needs a source to read")
	}
	key := cfg.Key()
	h, err := s.acquire(ctx, cfg.Milvus)
	if err != nil {
		return nil, err
	}
	defer s.release(h)
	fp := fingerprint(&cfg, h.key)

	s.mu.Lock()
	old := s.sources[key]
	prev := ""
	if old != nil {
		// Labels, domain and trust take effect for searches at once, even if indexing fails;
		// so do the copyright notice and whether passages may be quoted.
		old.labels = maps.Clone(cfg.Labels)
		old.copyright, old.notQuotable = cfg.Copyright, cfg.NotQuotable
		// Failed documents are retried: a transient embedding error must not stick until the next commit.
		if old.fingerprint == fp && old.store == h && len(old.stats.Failed) == 0 {
			prev = old.revision
		}
	}
	s.mu.Unlock()
	s.gen.Add(1)

	stats, err := kbbuild.Index(ctx, cfg.Source, tagStoreErrors{h.store}, kbbuild.IndexConfig{
		Source:           key,
		Domain:           cfg.Domain,
		TrustLevel:       cfg.TrustLevel,
		Format:           cfg.Format,
		Chunking:         cfg.Chunking,
		Embedder:         cfg.Embedder,
		PreviousRevision: prev,
	})
	if err != nil {
		return nil, err
	}
	if stats.RevisionUnchanged && old != nil {
		// Nothing was read: the documents that could not be indexed are still the same ones.
		stats.Warnings = old.stats.Warnings
	}
	if old != nil && old.store != h {
		// The source moved to another store: drop its copy in the old one.
		if err := old.store.store.DeleteSource(ctx, key); err != nil {
			return stats, &StoreError{Err: fmt.Errorf("remove %s from its previous store: %w", key, err)}
		}
	}
	e := &entry{
		namespace: cfg.Namespace, name: cfg.Name, labels: maps.Clone(cfg.Labels),
		domain: cfg.Domain, trust: cfg.TrustLevel, copyright: cfg.Copyright, notQuotable: cfg.NotQuotable, store: h, embedder: cfg.Embedder,
		revision: stats.Revision, fingerprint: fp, stats: *stats, indexedAt: s.opts.Now(),
	}
	s.mu.Lock()
	s.sources[key] = e
	s.mu.Unlock()
	s.gen.Add(1)
	s.saveSnapshot(ctx, e, stats.RevisionUnchanged)
	if old != nil && old.store != h {
		s.closeIfUnused(old.store)
	}
	return stats, nil
}

// Remove deletes every chunk of a source and forgets it. milvusCfg names the source's
// Milvus store when this process never indexed it (e.g. it is deleted right after a
// restart); nil means the Embedded store.
func (s *Service) Remove(ctx context.Context, namespace, name string, milvusCfg *milvus.Config) error {
	key := namespace + "/" + name
	s.mu.RLock()
	e := s.sources[key]
	s.mu.RUnlock()
	var h *storeHandle
	if e != nil {
		s.mu.Lock()
		h = e.store
		h.inUse++
		s.mu.Unlock()
	} else {
		var err error
		if h, err = s.acquire(ctx, milvusCfg); err != nil {
			return err
		}
	}
	defer s.release(h)
	if err := h.store.DeleteSource(ctx, key); err != nil {
		return &StoreError{Err: fmt.Errorf("remove %s: %w", key, err)}
	}
	s.mu.Lock()
	delete(s.sources, key)
	s.mu.Unlock()
	s.gen.Add(1)
	return s.removeSnapshot(key)
}

// SourceInfo describes one source the Service can search.
type SourceInfo struct {
	Namespace, Name string
	Domain          string
	TrustLevel      int
	// Store is "embedded" or the Milvus address and collection.
	Store     string
	Revision  string
	IndexedAt time.Time
	// Stats are those of the last successful indexing run.
	Stats kbbuild.Stats
}

// Source returns what the Service knows of one source; false when it was never indexed
// by this process.
func (s *Service) Source(namespace, name string) (SourceInfo, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.sources[namespace+"/"+name]
	if e == nil {
		return SourceInfo{}, false
	}
	return e.info(), true
}

// Sources lists the searchable sources of a namespace (all namespaces when empty), by name.
func (s *Service) Sources(namespace string) []SourceInfo {
	s.mu.RLock()
	out := make([]SourceInfo, 0, len(s.sources))
	for _, e := range s.sources {
		if namespace == "" || e.namespace == namespace {
			out = append(out, e.info())
		}
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (e *entry) info() SourceInfo {
	return SourceInfo{
		Namespace: e.namespace, Name: e.name, Domain: e.domain, TrustLevel: e.trust,
		Store: e.store.key, Revision: e.revision, IndexedAt: e.indexedAt, Stats: e.stats,
	}
}

// acquire returns the store a source should live in, connecting to Milvus when needed,
// and keeps it open until release.
func (s *Service) acquire(ctx context.Context, cfg *milvus.Config) (*storeHandle, error) {
	key := embeddedStoreKey
	if cfg != nil {
		key = milvusKey(cfg)
	}
	s.mu.Lock()
	if h := s.stores[key]; h != nil {
		h.inUse++
		s.mu.Unlock()
		return h, nil
	}
	s.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	st, err := s.opts.ConnectMilvus(cctx, *cfg)
	cancel()
	if err != nil {
		return nil, &StoreError{Err: err}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.stores[key]; h != nil {
		// Another source connected first; keep one connection.
		_ = st.Close()
		h.inUse++
		return h, nil
	}
	h := &storeHandle{key: key, store: st, closer: st, inUse: 1}
	s.stores[key] = h
	return h, nil
}

// release ends a use begun by acquire and closes a Milvus connection nothing needs any more.
func (s *Service) release(h *storeHandle) {
	s.mu.Lock()
	h.inUse--
	s.mu.Unlock()
	s.closeIfUnused(h)
}

// closeIfUnused closes a Milvus connection that no source and no call uses.
func (s *Service) closeIfUnused(h *storeHandle) {
	if h.closer == nil {
		return
	}
	s.mu.Lock()
	if h.inUse > 0 {
		s.mu.Unlock()
		return
	}
	for _, e := range s.sources {
		if e.store == h {
			s.mu.Unlock()
			return
		}
	}
	if s.stores[h.key] != h {
		s.mu.Unlock()
		return // already closed
	}
	delete(s.stores, h.key)
	s.mu.Unlock()
	_ = h.closer.Close()
}

// Close closes every Milvus connection.
func (s *Service) Close() error {
	s.mu.Lock()
	var errs []error
	for k, h := range s.stores {
		if h.closer != nil {
			errs = append(errs, h.closer.Close())
			delete(s.stores, k)
		}
	}
	s.mu.Unlock()
	return errors.Join(errs...)
}

// milvusKey identifies a Milvus connection; secrets enter it only as a hash.
func milvusKey(c *milvus.Config) string {
	secret := sha256.Sum256([]byte(c.Username + "\x00" + c.Password + "\x00" + c.APIKey))
	collection := c.Collection
	if collection == "" {
		collection = milvus.DefaultCollection
	}
	return fmt.Sprintf("milvus://%s/%s/%s?dim=%d&tls=%t&auth=%s", c.Address, c.DBName, collection, c.Dimension, c.TLS,
		hex.EncodeToString(secret[:6]))
}

// fingerprint covers everything that shapes the index besides the source's revision.
func fingerprint(c *SourceConfig, storeKey string) string {
	model := ""
	if c.Embedder != nil {
		model = c.Embedder.Model()
	}
	ch := c.Chunking.WithDefaults()
	raw := strings.Join([]string{c.Fingerprint, storeKey, string(c.Format), c.Domain, fmt.Sprint(c.TrustLevel),
		fmt.Sprintf("%d/%d/%d", ch.MinTokens, ch.TargetTokens, ch.MaxTokens), model}, "\x00")
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}
