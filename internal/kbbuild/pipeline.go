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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/kubage/kubage/internal/retrieval"
)

// IndexConfig describes how one source is indexed.
type IndexConfig struct {
	// Source names the source in the store, e.g. "namespace/name"; required.
	Source string
	// Domain and TrustLevel are attached to every chunk for filtering.
	Domain     string
	TrustLevel int
	// Format of the documents; empty picks by file extension (.html/.htm → HTML,
	// .txt → Text, anything else → Markdown).
	Format   Format
	Chunking ChunkOptions
	// Embedder, when set, embeds every new or changed chunk.
	Embedder retrieval.Embedder
	// PreviousRevision enables the source's "unchanged" fast path.
	PreviousRevision string
	// MaxChunksPerDocument rejects documents that would produce more chunks; 5000 when zero.
	MaxChunksPerDocument int
}

// Stats summarises one indexing run.
type Stats struct {
	Revision string
	// RevisionUnchanged means the source reported no change and nothing was read.
	RevisionUnchanged bool
	// Docs and Chunks count what the store holds for the source after the run.
	Docs   int
	Chunks int
	// Added, Updated, Removed and Unchanged count documents.
	Added     int
	Updated   int
	Removed   int
	Unchanged int
	// Failed lists documents that could not be indexed; their previous version (if any) stays.
	Failed []DocumentError
	// Warnings lists recoverable per-document problems such as malformed front matter.
	Warnings []DocumentError
	Duration time.Duration
}

// pipelineVersion is part of every stored document hash: bump it when parsing or
// chunking changes so existing indexes are rebuilt.
const pipelineVersion = "kbbuild/2"

// Index brings the store's copy of a source up to date: it fetches the source,
// re-processes only documents whose content (or indexing settings) changed,
// deletes documents that disappeared, and records per-document failures without
// failing the run. An error is returned only when the source itself cannot be
// read or the store fails; the store then keeps serving the last good index.
func Index(ctx context.Context, src Source, store retrieval.Store, cfg IndexConfig) (*Stats, error) {
	start := time.Now()
	if cfg.Source == "" {
		return nil, errors.New("index config needs a source name")
	}
	chunking := cfg.Chunking.WithDefaults()
	if err := chunking.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxChunksPerDocument <= 0 {
		cfg.MaxChunksPerDocument = 5000
	}
	snap, err := src.Fetch(ctx, cfg.PreviousRevision)
	if err != nil {
		return nil, err
	}
	if snap.Close != nil {
		defer func() { _ = snap.Close() }()
	}
	stats := &Stats{Revision: snap.Revision, Failed: append([]DocumentError(nil), snap.Failed...)}
	if !snap.Unchanged {
		if err := apply(ctx, snap, store, cfg, chunking, stats); err != nil {
			return nil, err
		}
	} else {
		stats.RevisionUnchanged = true
	}
	stats.Docs, stats.Chunks, err = store.Counts(ctx, cfg.Source)
	if err != nil {
		return nil, err
	}
	stats.Duration = time.Since(start)
	return stats, nil
}

func apply(ctx context.Context, snap *Snapshot, store retrieval.Store, cfg IndexConfig, chunking ChunkOptions, stats *Stats) error {
	existing, err := store.DocumentHashes(ctx, cfg.Source)
	if err != nil {
		return fmt.Errorf("read stored documents: %w", err)
	}
	settings := settingsFingerprint(cfg, chunking)
	// Links resolve against the source as it is now; a page added later is linked when
	// the linking page is next re-indexed.
	paths := make([]string, 0, len(snap.Documents)+len(snap.Paths))
	paths = append(paths, snap.Paths...)
	for _, d := range snap.Documents {
		paths = append(paths, d.Path)
	}
	for _, f := range snap.Failed {
		paths = append(paths, f.Path)
	}
	links := NewLinkResolver(paths)
	present := map[string]bool{}
	keepFailed := func(failed []DocumentError) {
		for _, f := range failed {
			present[f.Path] = true // keep the last good version of a document that failed to fetch
		}
	}
	keepFailed(snap.Failed)
	each := func(d Document) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return applyDocument(ctx, d, existing, present, store, cfg, chunking, settings, links, stats)
	}
	for _, doc := range snap.Documents {
		if err := each(doc); err != nil {
			return err
		}
	}
	if snap.Each != nil {
		// Streamed documents: one in memory at a time.
		failed, err := snap.Each(ctx, each)
		keepFailed(failed)
		stats.Failed = append(stats.Failed, failed...)
		if err != nil {
			return err
		}
	}
	removed := make([]string, 0)
	for p := range existing {
		if !present[p] {
			removed = append(removed, p)
		}
	}
	sort.Strings(removed)
	for _, p := range removed {
		if err := store.DeleteDocument(ctx, cfg.Source, p); err != nil {
			return fmt.Errorf("delete %s: %w", p, err)
		}
		stats.Removed++
	}
	return nil
}

// applyDocument re-chunks one document into the store unless its stored hash says it is
// unchanged; a document that fails is recorded and skipped.
func applyDocument(ctx context.Context, doc Document, existing map[string]string, present map[string]bool, store retrieval.Store,
	cfg IndexConfig, chunking ChunkOptions, settings string, links *LinkResolver, stats *Stats) error {
	present[doc.Path] = true
	stored := storedHash(doc.Hash, settings)
	old, had := existing[doc.Path]
	if had && old == stored {
		stats.Unchanged++
		return nil
	}
	chunks, warnings, err := buildChunks(ctx, doc, cfg, chunking, links)
	for _, w := range warnings {
		stats.Warnings = append(stats.Warnings, DocumentError{Path: doc.Path, Err: w})
	}
	if err == nil {
		err = store.ReplaceDocument(ctx, cfg.Source, doc.Path, stored, chunks)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		stats.Failed = append(stats.Failed, DocumentError{Path: doc.Path, Err: err.Error()})
		return nil
	}
	if had {
		stats.Updated++
	} else {
		stats.Added++
	}
	return nil
}

// buildChunks parses, chunks and (optionally) embeds one document.
func buildChunks(ctx context.Context, doc Document, cfg IndexConfig, chunking ChunkOptions, links *LinkResolver) ([]retrieval.Chunk, []string, error) {
	parsed, err := Parse(formatFor(cfg.Format, doc.Path), doc.Path, doc.Content)
	if err != nil {
		return nil, nil, err
	}
	chunks, err := ChunkDocument(parsed, ChunkMeta{Source: cfg.Source, Path: doc.Path, Domain: cfg.Domain, TrustLevel: cfg.TrustLevel, Links: links}, chunking)
	if err != nil {
		return nil, parsed.Warnings, err
	}
	if len(chunks) > cfg.MaxChunksPerDocument {
		return nil, parsed.Warnings, fmt.Errorf("document makes %d chunks, limit %d", len(chunks), cfg.MaxChunksPerDocument)
	}
	if cfg.Embedder != nil && len(chunks) > 0 {
		texts := make([]string, len(chunks))
		for i := range chunks {
			texts[i] = chunks[i].EmbeddingText()
		}
		vecs, err := cfg.Embedder.Embed(ctx, texts)
		if err != nil {
			return nil, parsed.Warnings, fmt.Errorf("embed: %w", err)
		}
		if len(vecs) != len(chunks) {
			return nil, parsed.Warnings, fmt.Errorf("embed: got %d vectors for %d chunks", len(vecs), len(chunks))
		}
		for i := range chunks {
			chunks[i].Vector, chunks[i].VectorModel = vecs[i], cfg.Embedder.Model()
		}
	}
	return chunks, parsed.Warnings, nil
}

func formatFor(f Format, p string) Format {
	if f != "" {
		return f
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".html", ".htm":
		return FormatHTML
	case ".txt", ".text", ".log":
		return FormatText
	default:
		return FormatMarkdown
	}
}

// settingsFingerprint covers everything besides content that shapes a document's chunks.
func settingsFingerprint(cfg IndexConfig, c ChunkOptions) string {
	model := ""
	if cfg.Embedder != nil {
		model = cfg.Embedder.Model()
	}
	return fmt.Sprintf("%s|%s|%d/%d/%d|%s|%d|%s", pipelineVersion, cfg.Format, c.MinTokens, c.TargetTokens, c.MaxTokens,
		cfg.Domain, cfg.TrustLevel, model)
}

func storedHash(contentHash, settings string) string {
	s := sha256.Sum256([]byte(contentHash + "\x00" + settings))
	return hex.EncodeToString(s[:])
}
