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
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ConfigMapSource serves the data of a ConfigMap: one document per key.
type ConfigMapSource struct {
	Data   map[string]string
	Filter PathFilter
	Limits Limits
}

// Fetch implements Source.
func (s *ConfigMapSource) Fetch(ctx context.Context, previousRevision string) (*Snapshot, error) {
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		if s.Filter.Match(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	files := make([]memFile, len(keys))
	for i, k := range keys {
		files[i] = memFile{path: k, content: []byte(s.Data[k])}
	}
	return snapshotFromMemory(ctx, files, s.Limits, previousRevision)
}

// InlineSource serves one document given as text in the KnowledgeSource itself.
type InlineSource struct {
	// Name is the document path; "inline" when empty.
	Name string
	Text string
}

// Fetch implements Source.
func (s *InlineSource) Fetch(ctx context.Context, previousRevision string) (*Snapshot, error) {
	name := s.Name
	if name == "" {
		name = "inline"
	}
	return snapshotFromMemory(ctx, []memFile{{path: name, content: []byte(s.Text)}}, Limits{}, previousRevision)
}

// DirSource reads a local directory tree (for the CLI, benchmarks and tests).
type DirSource struct {
	Root   string
	Filter PathFilter
	Limits Limits
}

// Fetch implements Source.
func (s *DirSource) Fetch(ctx context.Context, previousRevision string) (*Snapshot, error) {
	if err := s.Filter.Validate(); err != nil {
		return nil, err
	}
	lim := s.Limits.withDefaults()
	snap := &Snapshot{}
	var total int64
	err := filepath.WalkDir(s.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(s.Root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !s.Filter.Match(rel) {
			return nil
		}
		if len(snap.Documents) >= lim.MaxFiles {
			return fmt.Errorf("more than %d documents", lim.MaxFiles)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > lim.MaxFileBytes {
			snap.Failed = append(snap.Failed, DocumentError{Path: rel, Err: fmt.Sprintf("file is %d bytes, limit %d", info.Size(), lim.MaxFileBytes)})
			return nil
		}
		if total += info.Size(); total > lim.MaxTotalBytes {
			return fmt.Errorf("documents exceed %d bytes in total", lim.MaxTotalBytes)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if looksBinary(b) {
			snap.Failed = append(snap.Failed, DocumentError{Path: rel, Err: "binary file"})
			return nil
		}
		snap.Documents = append(snap.Documents, newDocument(rel, b))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Root, err)
	}
	snap.Revision = revisionOf(snap.Documents)
	if snap.Revision == previousRevision && len(snap.Failed) == 0 {
		return &Snapshot{Revision: snap.Revision, Unchanged: true}, nil
	}
	return snap, nil
}

type memFile struct {
	path    string
	content []byte
}

func snapshotFromMemory(ctx context.Context, files []memFile, limits Limits, previousRevision string) (*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lim := limits.withDefaults()
	if len(files) > lim.MaxFiles {
		return nil, fmt.Errorf("%d documents, limit %d", len(files), lim.MaxFiles)
	}
	snap := &Snapshot{}
	for _, f := range files {
		switch {
		case int64(len(f.content)) > lim.MaxFileBytes:
			snap.Failed = append(snap.Failed, DocumentError{Path: f.path, Err: fmt.Sprintf("document is %d bytes, limit %d", len(f.content), lim.MaxFileBytes)})
		case looksBinary(f.content):
			snap.Failed = append(snap.Failed, DocumentError{Path: f.path, Err: "binary content"})
		default:
			snap.Documents = append(snap.Documents, newDocument(f.path, f.content))
		}
	}
	snap.Revision = revisionOf(snap.Documents)
	if snap.Revision == previousRevision && len(snap.Failed) == 0 {
		return &Snapshot{Revision: snap.Revision, Unchanged: true}, nil
	}
	return snap, nil
}
