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
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
)

// A source snapshot holds one source's documents and chunks, so a restarted process
// serves that source at once and re-indexes it only when it changed. Layout: a magic
// line, the gob-encoded sourceSnapshot, and the SHA-256 of everything before it; a file
// whose checksum does not match (cut short by a crash, damaged on disk) is refused whole.

const sourceSnapshotMagic = "kubage-source-snapshot/1\n"

// ErrCorruptSnapshot is returned for a snapshot file that is truncated or damaged.
var ErrCorruptSnapshot = errors.New("corrupt knowledge snapshot")

type sourceSnapshot struct {
	Version int
	Source  string
	// Meta is the caller's record of the source (revision, settings); opaque here.
	Meta []byte
	Docs []snapshotDoc
}

// SaveSourceSnapshot writes one source's documents and chunks, with meta, to path
// atomically (see writeFileAtomic), followed by the checksum of what precedes it.
func (e *Embedded) SaveSourceSnapshot(path, source string, meta []byte) error {
	snap := sourceSnapshot{Version: snapshotVersion, Source: source, Meta: meta}
	e.mu.RLock()
	snap.Docs = e.sourceDocsLocked(source)
	e.mu.RUnlock()

	return writeFileAtomic(path, func(w io.Writer) error {
		sum := sha256.New()
		mw := io.MultiWriter(w, sum)
		if _, err := io.WriteString(mw, sourceSnapshotMagic); err != nil {
			return err
		}
		if err := gob.NewEncoder(mw).Encode(&snap); err != nil {
			return err
		}
		_, err := w.Write(sum.Sum(nil))
		return err
	})
}

// LoadSourceSnapshot verifies the file at path and replaces its source's documents in
// the store with the file's. It returns the source's name and the meta saved with it.
// A damaged file returns an error wrapping ErrCorruptSnapshot and changes nothing.
func (e *Embedded) LoadSourceSnapshot(path string) (source string, meta []byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	size := info.Size()
	body := size - sha256.Size
	if body < int64(len(sourceSnapshotMagic)) || size > MaxSnapshotBytes {
		return "", nil, fmt.Errorf("%w: %s is %d bytes", ErrCorruptSnapshot, path, size)
	}
	// First pass: the checksum, so that nothing of a damaged file is decoded.
	sum := sha256.New()
	if _, err := io.CopyN(sum, f, body); err != nil {
		return "", nil, err
	}
	want := make([]byte, sha256.Size)
	if _, err := io.ReadFull(f, want); err != nil {
		return "", nil, err
	}
	if !bytes.Equal(sum.Sum(nil), want) {
		return "", nil, fmt.Errorf("%w: %s: checksum mismatch", ErrCorruptSnapshot, path)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", nil, err
	}
	r := bufio.NewReader(io.LimitReader(f, body))
	magic := make([]byte, len(sourceSnapshotMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != sourceSnapshotMagic {
		return "", nil, fmt.Errorf("%w: %s: not a source snapshot", ErrCorruptSnapshot, path)
	}
	var snap sourceSnapshot
	if err := gob.NewDecoder(r).Decode(&snap); err != nil {
		return "", nil, fmt.Errorf("%w: %s: %v", ErrCorruptSnapshot, path, err)
	}
	if snap.Version < minSnapshotVersion || snap.Version > snapshotVersion {
		return "", nil, fmt.Errorf("knowledge snapshot %s has version %d, want %d to %d", path, snap.Version, minSnapshotVersion, snapshotVersion)
	}
	if err := e.replaceSource(snap.Source, snap.Docs); err != nil {
		return "", nil, fmt.Errorf("restore %s from %s: %w", snap.Source, path, err)
	}
	return snap.Source, snap.Meta, nil
}

// replaceSource swaps every document of source for docs under one lock, so a search
// sees the old documents or the new ones; when a document is refused, the source is
// left empty rather than half restored.
func (e *Embedded) replaceSource(source string, docs []snapshotDoc) error {
	for _, d := range docs {
		if d.Source != source {
			return fmt.Errorf("document %s belongs to %s, not %s", d.Path, d.Source, source)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.deleteSourceLocked(source)
	for _, d := range docs {
		if err := e.replaceLocked(source, d.Path, d.Hash, d.Chunks); err != nil {
			e.deleteSourceLocked(source)
			return err
		}
	}
	return nil
}

func (e *Embedded) deleteSourceLocked(source string) {
	for _, d := range e.docs[source] {
		e.removeSlots(d.slots)
	}
	delete(e.docs, source)
}
