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

package milvus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"google.golang.org/grpc"

	"github.com/kubage/kubage/internal/egress"
	"github.com/kubage/kubage/internal/retrieval"
)

// Config configures the Milvus store; the controller fills it from the
// KnowledgeSource's `store` block and its credentials Secret.
type Config struct {
	// Address is host:port of the Milvus proxy, e.g. "milvus.milvus:19530".
	Address string
	// Username/Password or APIKey authenticate; DBName selects a database.
	Username, Password, APIKey, DBName string
	// TLS enables transport security.
	TLS bool
	// Collection is created when missing; "kubage_knowledge" when empty.
	Collection string
	// Dimension of dense vectors; 0 stores no dense vectors.
	Dimension int
	// Analyzer, BM25 constants and field options mirror retrieval.EmbeddedOptions;
	// zero values take retrieval.DefaultEmbeddedOptions.
	Analyzer         retrieval.Analyzer
	Body, Title      retrieval.BM25Params
	TitleDescription bool
	BodyHeadings     bool
	// AvgBodyTerms and AvgTitleTerms are the expected analysed field lengths used for
	// BM25 length normalisation (Milvus cannot average over the collection for us).
	AvgBodyTerms, AvgTitleTerms float64
	// Timeout bounds every call; 30s when zero.
	Timeout time.Duration
	// BatchSize bounds rows per upsert and per page of a scan; 256 when zero.
	BatchSize int
}

// Expected analysed field lengths with the default 512-token chunks, measured on the shared corpora.
const (
	DefaultAvgBodyTerms  = 125
	DefaultAvgTitleTerms = 8
	DefaultCollection    = "kubage_knowledge"
)

// Store is a retrieval.Store backed by one Milvus collection.
type Store struct {
	c   client.Client
	cfg Config
	enc encoder

	mu    sync.RWMutex
	stats struct{ body, title *termStats }
}

var (
	_ retrieval.Store          = (*Store)(nil)
	_ retrieval.DocumentReader = (*Store)(nil)
)

// Connect dials Milvus, creates the collection and its indexes when missing and loads it.
func Connect(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Address == "" {
		return nil, errors.New("milvus store needs an address")
	}
	// A refused address fails at once: the SDK would retry the refused dial until its timeout.
	if host, _, err := net.SplitHostPort(cfg.Address); err == nil {
		if err := egress.CheckHost(ctx, host); egress.IsDenied(err) {
			return nil, fmt.Errorf("connect to milvus at %s: %w", cfg.Address, err)
		}
	}
	// The SDK's default options plus a dialer through the egress guard.
	dial := append(append([]grpc.DialOption{}, client.DefaultGrpcOpts...), grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		return egress.DialContext(ctx, "tcp", addr)
	}))
	cc := client.Config{Address: cfg.Address, Username: cfg.Username, Password: cfg.Password, APIKey: cfg.APIKey, DBName: cfg.DBName, EnableTLSAuth: cfg.TLS, DialOptions: dial}
	c, err := client.NewClient(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("connect to milvus at %s: %w", cfg.Address, err)
	}
	s, err := New(ctx, c, cfg)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return s, nil
}

// New wraps an existing client (tests pass one dialled to a mock server) and ensures the collection.
func New(ctx context.Context, c client.Client, cfg Config) (*Store, error) {
	cfg = withDefaults(cfg)
	s := &Store{c: c, cfg: cfg, enc: encoder{
		analyzer: cfg.Analyzer, body: cfg.Body, title: cfg.Title, avgBody: cfg.AvgBodyTerms, avgTitl: cfg.AvgTitleTerms,
		titleDescription: cfg.TitleDescription, bodyHeadings: cfg.BodyHeadings, dim: cfg.Dimension,
		fields: scalarFields,
	}}
	s.stats.body, s.stats.title = newTermStats(), newTermStats()
	if err := s.ensureCollection(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Collection == "" {
		cfg.Collection = DefaultCollection
	}
	if cfg.Analyzer == (retrieval.Analyzer{}) && cfg.Body == (retrieval.BM25Params{}) && cfg.Title == (retrieval.BM25Params{}) && !cfg.TitleDescription && !cfg.BodyHeadings {
		d := retrieval.DefaultEmbeddedOptions
		cfg.Analyzer, cfg.Body, cfg.Title, cfg.TitleDescription, cfg.BodyHeadings = d.Analyzer, d.Body, d.Title, d.TitleDescription, d.BodyHeadings
	}
	if cfg.AvgBodyTerms <= 0 {
		cfg.AvgBodyTerms = DefaultAvgBodyTerms
	}
	if cfg.AvgTitleTerms <= 0 {
		cfg.AvgTitleTerms = DefaultAvgTitleTerms
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 256
	}
	return cfg
}

// Close closes the client.
func (s *Store) Close() error { return s.c.Close() }

func (s *Store) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.Timeout)
}

func (s *Store) ensureCollection(ctx context.Context) error {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	name := s.cfg.Collection
	has, err := s.c.HasCollection(ctx, name)
	if err != nil {
		return fmt.Errorf("check collection %s: %w", name, err)
	}
	if has {
		coll, err := s.c.DescribeCollection(ctx, name)
		if err != nil {
			return fmt.Errorf("describe collection %s: %w", name, err)
		}
		if !hasField(coll.Schema, FieldLinks) {
			// Created before links were stored: keep serving it, without links, until it is recreated.
			s.enc.fields = fieldsWithout(FieldLinks)
		}
	}
	if !has {
		if err := s.c.CreateCollection(ctx, BuildSchema(name, s.cfg.Dimension), 1,
			client.WithConsistencyLevel(entity.ClBounded)); err != nil {
			return fmt.Errorf("create collection %s: %w", name, err)
		}
		idx, err := Indexes(s.cfg.Dimension)
		if err != nil {
			return err
		}
		for _, field := range sortedKeys(idx) {
			if err := s.c.CreateIndex(ctx, name, field, idx[field], true); err != nil {
				return fmt.Errorf("create index on %s.%s: %w", name, field, err)
			}
		}
	}
	if err := s.c.LoadCollection(ctx, name, false); err != nil {
		return fmt.Errorf("load collection %s: %w", name, err)
	}
	return nil
}

func hasField(schema *entity.Schema, name string) bool {
	if schema == nil {
		return false
	}
	for _, f := range schema.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// DocumentHashes implements retrieval.Store.
func (s *Store) DocumentHashes(ctx context.Context, source string) (map[string]string, error) {
	out := map[string]string{}
	err := s.scan(ctx, FieldSource+" == "+quote(source), []string{FieldPath, FieldDocHash}, func(rs client.ResultSet) error {
		chunks, err := chunksFromColumns(rs)
		for _, c := range chunks {
			out[c.Path] = c.DocHash
		}
		return err
	})
	return out, err
}

// Counts implements retrieval.Store.
func (s *Store) Counts(ctx context.Context, source string) (int, int, error) {
	paths := map[string]bool{}
	n := 0
	err := s.scan(ctx, FieldSource+" == "+quote(source), []string{FieldPath}, func(rs client.ResultSet) error {
		chunks, err := chunksFromColumns(rs)
		for _, c := range chunks {
			paths[c.Path] = true
			n++
		}
		return err
	})
	return len(paths), n, err
}

// scan pages through rows matching expr in primary-key order, as Milvus'
// query iterator does, so no single request exceeds the query window.
func (s *Store) scan(ctx context.Context, expr string, fields []string, fn func(client.ResultSet) error) error {
	last := ""
	for {
		e := expr
		if last != "" {
			e = "(" + expr + ") && " + FieldID + " > " + quote(last)
		}
		cctx, cancel := s.ctx(ctx)
		rs, err := s.c.Query(cctx, s.cfg.Collection, nil, e, append([]string{FieldID}, fields...), client.WithLimit(int64(s.cfg.BatchSize)))
		cancel()
		if err != nil {
			return fmt.Errorf("query %s: %w", s.cfg.Collection, err)
		}
		if rs.Len() == 0 {
			return nil
		}
		if err := fn(rs); err != nil {
			return err
		}
		ids, err := chunksFromColumns(client.ResultSet{rs.GetColumn(FieldID)})
		if err != nil {
			return err
		}
		next := last
		for _, c := range ids {
			if c.ID > next {
				next = c.ID
			}
		}
		if rs.Len() < s.cfg.BatchSize || next == last {
			return nil
		}
		last = next
	}
}

// ReplaceDocument implements retrieval.Store: new rows are upserted first, then
// rows of the document that are no longer present are deleted, so readers see
// either version but never an empty document.
func (s *Store) ReplaceDocument(ctx context.Context, source, path, hash string, chunks []retrieval.Chunk) error {
	cols, pairs, err := s.enc.columns(source, path, hash, chunks)
	if err != nil {
		return err
	}
	old, err := s.sparseOf(ctx, docExpr(source, path))
	if err != nil {
		return err
	}
	for start := 0; start < len(chunks); start += s.cfg.BatchSize {
		end := min(start+s.cfg.BatchSize, len(chunks))
		batch := make([]entity.Column, len(cols))
		for i, c := range cols {
			batch[i] = c.Slice(start, end)
		}
		cctx, cancel := s.ctx(ctx)
		_, err := s.c.Upsert(cctx, s.cfg.Collection, "", batch...)
		cancel()
		if err != nil {
			return fmt.Errorf("upsert %s:%s: %w", source, path, err)
		}
	}
	ids := make([]string, len(chunks))
	for i := range chunks {
		ids[i] = chunks[i].ID
	}
	expr := docExpr(source, path)
	if len(ids) > 0 {
		expr += " && " + FieldID + " not in " + quoteList(ids)
	}
	cctx, cancel := s.ctx(ctx)
	defer cancel()
	if err := s.c.Delete(cctx, s.cfg.Collection, "", expr); err != nil {
		return fmt.Errorf("delete stale chunks of %s:%s: %w", source, path, err)
	}
	s.mu.Lock()
	for _, p := range old {
		s.stats.body.remove(p.body)
		s.stats.title.remove(p.title)
	}
	for _, p := range pairs {
		s.stats.body.add(p.body)
		s.stats.title.add(p.title)
	}
	s.mu.Unlock()
	return nil
}

// DeleteDocument implements retrieval.Store.
func (s *Store) DeleteDocument(ctx context.Context, source, path string) error {
	return s.deleteWhere(ctx, docExpr(source, path))
}

// DeleteSource implements retrieval.Store.
func (s *Store) DeleteSource(ctx context.Context, source string) error {
	return s.deleteWhere(ctx, FieldSource+" == "+quote(source))
}

func (s *Store) deleteWhere(ctx context.Context, expr string) error {
	old, err := s.sparseOf(ctx, expr)
	if err != nil {
		return err
	}
	cctx, cancel := s.ctx(ctx)
	defer cancel()
	if err := s.c.Delete(cctx, s.cfg.Collection, "", expr); err != nil {
		return fmt.Errorf("delete %s: %w", expr, err)
	}
	s.mu.Lock()
	for _, p := range old {
		s.stats.body.remove(p.body)
		s.stats.title.remove(p.title)
	}
	s.mu.Unlock()
	return nil
}

// sparseOf reads the sparse vectors of matching rows (to keep term statistics exact).
func (s *Store) sparseOf(ctx context.Context, expr string) ([]sparsePair, error) {
	var out []sparsePair
	err := s.scan(ctx, expr, []string{FieldBodySparse, FieldTitleSparse}, func(rs client.ResultSet) error {
		b, _ := rs.GetColumn(FieldBodySparse).(*entity.ColumnSparseFloatVector)
		t, _ := rs.GetColumn(FieldTitleSparse).(*entity.ColumnSparseFloatVector)
		if b == nil || t == nil {
			return errors.New("query result lacks sparse vector columns")
		}
		for i := 0; i < rs.Len(); i++ {
			be, err := b.ValueByIdx(i)
			if err != nil {
				return err
			}
			te, err := t.ValueByIdx(i)
			if err != nil {
				return err
			}
			out = append(out, sparsePair{body: fromEmbedding(be), title: fromEmbedding(te)})
		}
		return nil
	})
	return out, err
}

// WarmStats rebuilds the term statistics from the whole collection; call it once
// after start so queries get proper IDF weights before any write happens.
func (s *Store) WarmStats(ctx context.Context) error {
	pairs, err := s.sparseOf(ctx, FieldID+` != ""`)
	if err != nil {
		return err
	}
	body, title := newTermStats(), newTermStats()
	for _, p := range pairs {
		body.add(p.body)
		title.add(p.title)
	}
	s.mu.Lock()
	s.stats.body, s.stats.title = body, title
	s.mu.Unlock()
	return nil
}
