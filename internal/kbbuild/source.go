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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Source fetches the documents of one knowledge source.
type Source interface {
	// Fetch returns the current documents. When the source can tell cheaply that
	// nothing changed since previousRevision it returns a snapshot with Unchanged set
	// and no documents.
	Fetch(ctx context.Context, previousRevision string) (*Snapshot, error)
}

// Snapshot is the state of a source at one revision.
type Snapshot struct {
	// Revision is a commit hash for git, a content hash otherwise.
	Revision string
	// Unchanged means Revision equals the previous revision and Documents is empty.
	Unchanged bool
	// Documents holds every document of the source.
	Documents []Document
	// Failed lists documents that exist but could not be read (too large, binary, HTTP error);
	// the pipeline keeps their previously indexed version.
	Failed []DocumentError
	// Each, when set, streams the documents instead of Documents: it reads them one at a
	// time and returns those it could not read (as Failed does). Paths names every
	// document Each may yield, so links resolve before the first one is read.
	Each  func(ctx context.Context, fn func(Document) error) ([]DocumentError, error)
	Paths []string
	// Close, when set, releases what Each reads from (a clone on disk).
	Close func() error
}

// Document is one file of a source.
type Document struct {
	Path    string
	Content []byte
	// Hash is the SHA-256 of Content, hex encoded.
	Hash string
	// NotModified means the source confirmed the content is unchanged without
	// transferring it again (HTTP 304); Content then comes from the source's cache.
	NotModified bool
}

// DocumentError reports a problem with one document.
type DocumentError struct {
	Path string
	Err  string
}

func (e DocumentError) Error() string { return e.Path + ": " + e.Err }

// Limits bound what a source reads.
type Limits struct {
	// MaxFileBytes rejects larger documents (reported per document); DefaultMaxFileBytes when zero.
	MaxFileBytes int64
	// MaxTotalBytes stops reading once the documents add up to this; DefaultMaxTotalBytes when zero.
	MaxTotalBytes int64
	// MaxFiles bounds the number of documents; DefaultMaxFiles when zero.
	MaxFiles int
}

// Default limits.
const (
	DefaultMaxFileBytes  = 4 << 20
	DefaultMaxTotalBytes = 512 << 20
	DefaultMaxFiles      = 20000
)

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	return l
}

// ContentHash returns the hex SHA-256 of b.
func ContentHash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// newDocument hashes content into a Document.
func newDocument(p string, content []byte) Document {
	return Document{Path: p, Content: content, Hash: ContentHash(content)}
}

// revisionOf derives a content revision from the documents' paths and hashes.
func revisionOf(docs []Document) string {
	sorted := append([]Document(nil), docs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	h := sha256.New()
	for _, d := range sorted {
		fmt.Fprintf(h, "%s\x00%s\x00", d.Path, d.Hash)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// looksBinary reports a NUL byte in the first 8 KiB, the heuristic git itself uses.
func looksBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

// PathFilter selects documents by slash-separated glob patterns. "**" matches any
// number of directories; other wildcards follow path.Match. No Include patterns
// means everything is included; Exclude wins over Include.
type PathFilter struct {
	Include []string
	Exclude []string
}

// Validate checks the patterns' syntax.
func (f PathFilter) Validate() error {
	for _, p := range append(append([]string(nil), f.Include...), f.Exclude...) {
		for _, seg := range strings.Split(p, "/") {
			if seg == "**" {
				continue
			}
			if _, err := path.Match(seg, ""); err != nil {
				return fmt.Errorf("bad path pattern %q: %w", p, err)
			}
		}
	}
	return nil
}

// Match reports whether p is selected.
func (f PathFilter) Match(p string) bool {
	p = strings.TrimPrefix(p, "/")
	for _, pat := range f.Exclude {
		if globMatch(pat, p) {
			return false
		}
	}
	if len(f.Include) == 0 {
		return true
	}
	for _, pat := range f.Include {
		if globMatch(pat, p) {
			return true
		}
	}
	return false
}

// globMatch matches slash-separated path segments, with "**" spanning zero or more
// segments. A pattern without a slash matches the base name anywhere ("*.md").
func globMatch(pattern, p string) bool {
	pattern = strings.TrimPrefix(pattern, "/")
	if !strings.Contains(pattern, "/") && pattern != "**" {
		pattern = "**/" + pattern
	}
	return matchSegs(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

func matchSegs(pat, segs []string) bool {
	// Iterative matcher with one backtrack point per "**", linear in practice.
	pi, si := 0, 0
	starP, starS := -1, -1
	for si < len(segs) {
		if pi < len(pat) && pat[pi] == "**" {
			starP, starS = pi, si
			pi++
			continue
		}
		if pi < len(pat) {
			if ok, _ := path.Match(pat[pi], segs[si]); ok {
				pi++
				si++
				continue
			}
		}
		if starP >= 0 {
			starS++
			si = starS
			pi = starP + 1
			continue
		}
		return false
	}
	for pi < len(pat) && pat[pi] == "**" {
		pi++
	}
	return pi == len(pat)
}
