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
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// snapshotVersion changes whenever the snapshot layout changes; files older than
// minSnapshotVersion are rejected. Version 2 added Chunk.Links: a version 1 file decodes
// into chunks without links, which the next indexing run replaces (the pipeline version
// in every document hash changed with it).
const (
	snapshotVersion    = 2
	minSnapshotVersion = 1
)

// MaxSnapshotBytes bounds how much LoadSnapshot reads.
const MaxSnapshotBytes = 2 << 30

type snapshotFile struct {
	Version int
	Docs    []snapshotDoc
}

type snapshotDoc struct {
	Source, Path, Hash string
	Chunks             []Chunk
}

// WriteSnapshot writes every document and chunk (with vectors) to w. Inverted
// indexes are not written: they are rebuilt on load, which is fast and keeps the
// file independent of index internals.
func (e *Embedded) WriteSnapshot(w io.Writer) error {
	e.mu.RLock()
	snap := snapshotFile{Version: snapshotVersion}
	for _, src := range e.sources() {
		snap.Docs = append(snap.Docs, e.sourceDocsLocked(src)...)
	}
	e.mu.RUnlock()
	return gob.NewEncoder(w).Encode(&snap)
}

// sourceDocsLocked copies one source's documents and chunks, in path order, for a
// snapshot. The caller holds e.mu (read).
func (e *Embedded) sourceDocsLocked(src string) []snapshotDoc {
	paths := make([]string, 0, len(e.docs[src]))
	for p := range e.docs[src] {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]snapshotDoc, 0, len(paths))
	for _, p := range paths {
		d := e.docs[src][p]
		sd := snapshotDoc{Source: src, Path: p, Hash: d.hash, Chunks: make([]Chunk, len(d.slots))}
		for i, s := range d.slots {
			sd.Chunks[i] = *e.slots[s]
		}
		out = append(out, sd)
	}
	return out
}

// ReadSnapshot replaces the store's content with a snapshot read from r.
// On error the store is left unchanged.
func (e *Embedded) ReadSnapshot(r io.Reader) error {
	var snap snapshotFile
	if err := gob.NewDecoder(io.LimitReader(r, MaxSnapshotBytes)).Decode(&snap); err != nil {
		return fmt.Errorf("decode knowledge snapshot: %w", err)
	}
	if snap.Version < minSnapshotVersion || snap.Version > snapshotVersion {
		return fmt.Errorf("knowledge snapshot version %d, want %d to %d", snap.Version, minSnapshotVersion, snapshotVersion)
	}
	fresh := NewEmbedded(e.opts)
	for _, d := range snap.Docs {
		if err := fresh.replaceLocked(d.Source, d.Path, d.Hash, d.Chunks); err != nil {
			return fmt.Errorf("restore %s:%s: %w", d.Source, d.Path, err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.slots, e.free, e.byID, e.docs = fresh.slots, fresh.free, fresh.byID, fresh.docs
	e.body, e.title, e.chunks = fresh.body, fresh.title, fresh.chunks
	return nil
}

// SaveSnapshot writes the snapshot to path atomically.
func (e *Embedded) SaveSnapshot(path string) error {
	return writeFileAtomic(path, e.WriteSnapshot)
}

// SnapshotTempPrefix begins the names of the temporary files that snapshot saves write
// next to their target; a save cut short by a crash leaves one behind to be removed.
const SnapshotTempPrefix = ".kb-snapshot-"

// writeFileAtomic writes path through write: into a temporary file of the same
// directory, fsynced, renamed over path, and the directory fsynced, so a crash leaves
// the old file or the new one, never a mix.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, SnapshotTempPrefix+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	return d.Sync()
}

// LoadSnapshot restores the store from path. A missing file returns an error
// satisfying errors.Is(err, os.ErrNotExist) so callers can fall back to a rebuild.
func (e *Embedded) LoadSnapshot(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	if err := e.ReadSnapshot(bufio.NewReader(f)); err != nil {
		return errors.Join(fmt.Errorf("load %s", path), err)
	}
	return nil
}
