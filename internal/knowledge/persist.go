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
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
)

// Persistence of the embedded index: with Options.SnapshotDir set, every indexing run that
// changed a source writes that source's snapshot, and Restore loads them all on start, so
// a restarted manager answers queries before any source is fetched again; the first run
// of each source then starts from the snapshot's revision and re-reads only what changed.

const snapshotExt = ".snap"

// snapshotMeta is what a snapshot records of its source besides the chunks.
type snapshotMeta struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Domain      string            `json:"domain,omitempty"`
	TrustLevel  int               `json:"trustLevel"`
	Revision    string            `json:"revision"`
	Fingerprint string            `json:"fingerprint"`
	Stats       kbbuild.Stats     `json:"stats"`
	IndexedAt   time.Time         `json:"indexedAt"`
}

// snapshotPath names a source's snapshot by a hash of its key (keys hold a slash).
func (s *Service) snapshotPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(s.opts.SnapshotDir, hex.EncodeToString(sum[:12])+snapshotExt)
}

// saveSnapshot persists an embedded source after a run; a run that read nothing new
// rewrites nothing unless the file is missing. A failure is logged, not returned: the
// index in memory is good, only the next restart will have to fetch the source.
func (s *Service) saveSnapshot(ctx context.Context, e *entry, unchanged bool) {
	if s.opts.SnapshotDir == "" {
		return
	}
	key := e.namespace + "/" + e.name
	if e.store.key != embeddedStoreKey {
		// Milvus keeps its own data; a snapshot from before a move there must not come back.
		if err := s.removeSnapshot(key); err != nil {
			logr.FromContextOrDiscard(ctx).Error(err, "Could not remove the knowledge snapshot of a source now in Milvus", "source", key)
		}
		return
	}
	path := s.snapshotPath(key)
	if unchanged {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	meta, err := json.Marshal(snapshotMeta{
		Namespace: e.namespace, Name: e.name, Labels: e.labels, Domain: e.domain, TrustLevel: e.trust,
		Revision: e.revision, Fingerprint: e.fingerprint, Stats: e.stats, IndexedAt: e.indexedAt,
	})
	if err == nil {
		err = os.MkdirAll(s.opts.SnapshotDir, 0o700)
	}
	if err == nil {
		err = s.embedded.SaveSourceSnapshot(path, key, meta)
	}
	if err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "Could not save the knowledge snapshot; the source will be fetched again after a restart", "source", key)
	}
}

// removeSnapshot deletes a removed source's snapshot.
func (s *Service) removeSnapshot(key string) error {
	if s.opts.SnapshotDir == "" {
		return nil
	}
	if err := os.Remove(s.snapshotPath(key)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the snapshot of %s: %w", key, err)
	}
	return nil
}

// Restore loads every snapshot of SnapshotDir into the embedded store and makes its source
// searchable at once. A snapshot that is damaged or unreadable is logged, deleted and
// left to be rebuilt by the source's next indexing run: it is never served in part.
// Temporary files of a save cut short by a crash are removed. It returns how many
// sources were restored.
func (s *Service) Restore(ctx context.Context) (int, error) {
	if s.opts.SnapshotDir == "" {
		return 0, nil
	}
	log := logr.FromContextOrDiscard(ctx)
	if err := os.MkdirAll(s.opts.SnapshotDir, 0o700); err != nil {
		return 0, fmt.Errorf("knowledge snapshot directory: %w", err)
	}
	files, err := os.ReadDir(s.opts.SnapshotDir)
	if err != nil {
		return 0, fmt.Errorf("knowledge snapshot directory: %w", err)
	}
	restored := 0
	for _, f := range files {
		path := filepath.Join(s.opts.SnapshotDir, f.Name())
		switch {
		case strings.HasPrefix(f.Name(), retrieval.SnapshotTempPrefix):
			_ = os.Remove(path)
			continue
		case f.IsDir() || !strings.HasSuffix(f.Name(), snapshotExt):
			continue
		}
		start := time.Now()
		e, err := s.restoreOne(path)
		if err != nil {
			log.Info("Discarding a knowledge snapshot that cannot be loaded; its source is rebuilt from the source", "file", path, "error", err.Error())
			_ = os.Remove(path)
			continue
		}
		s.mu.Lock()
		if _, indexed := s.sources[e.namespace+"/"+e.name]; !indexed {
			s.sources[e.namespace+"/"+e.name] = e
		}
		s.mu.Unlock()
		s.gen.Add(1) // cached answers predate this source
		restored++
		log.V(1).Info("Restored a knowledge source from its snapshot", "source", e.namespace+"/"+e.name,
			"revision", e.revision, "documents", e.stats.Docs, "chunks", e.stats.Chunks, "duration", time.Since(start))
	}
	return restored, nil
}

func (s *Service) restoreOne(path string) (*entry, error) {
	key, raw, err := s.embedded.LoadSourceSnapshot(path)
	if err != nil {
		return nil, err
	}
	var m snapshotMeta
	if err := json.Unmarshal(raw, &m); err != nil || m.Namespace+"/"+m.Name != key || s.snapshotPath(key) != path {
		_ = s.embedded.DeleteSource(context.Background(), key)
		if err == nil {
			err = fmt.Errorf("the snapshot of %s does not describe %s", key, m.Namespace+"/"+m.Name)
		}
		return nil, err
	}
	s.mu.RLock()
	h := s.stores[embeddedStoreKey]
	s.mu.RUnlock()
	return &entry{
		namespace: m.Namespace, name: m.Name, labels: maps.Clone(m.Labels), domain: m.Domain, trust: m.TrustLevel,
		store: h, revision: m.Revision, fingerprint: m.Fingerprint, stats: m.Stats, indexedAt: m.IndexedAt, restored: true,
	}, nil
}

// ForgetRestored removes the sources restored from snapshots, and not indexed since, that
// keep rejects (their KnowledgeSource was deleted while no manager ran) from the store,
// the Service and the snapshot directory. It returns how many it removed.
func (s *Service) ForgetRestored(ctx context.Context, keep func(namespace, name string) bool) (int, error) {
	s.mu.RLock()
	var gone []*entry
	for _, e := range s.sources {
		if e.restored && !keep(e.namespace, e.name) {
			gone = append(gone, e)
		}
	}
	s.mu.RUnlock()
	var errs []error
	for _, e := range gone {
		if e.store.key != embeddedStoreKey {
			continue
		}
		errs = append(errs, s.Remove(ctx, e.namespace, e.name, nil))
	}
	return len(gone), errors.Join(errs...)
}
