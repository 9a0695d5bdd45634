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
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"golang.org/x/sync/semaphore"
)

// ErrTooLarge is returned when a source holds more than its byte cap allows.
var ErrTooLarge = errors.New("source exceeds its size cap")

// Default caps of a GitWorkspace.
const (
	DefaultMaxSourceBytes = 64 << 20
	DefaultMaxCloneTotal  = 256 << 20
	// cloneObjectCache bounds go-git's object cache per clone (its default is 96 MiB).
	cloneObjectCache = 4 << 20
	// cloneLargeObject is the size above which go-git reads an object from disk on
	// demand instead of holding it in memory.
	cloneLargeObject = 1 << 20
	clonePrefix      = "clone-"
)

// GitWorkspace is where git sources are cloned: a directory on disk, a cap on the bytes
// one clone may write and a cap on the bytes all clones in flight may write together.
// Each clone reserves its per-source cap out of the total before it starts, so the
// total is never exceeded; clones beyond it wait their turn.
type GitWorkspace struct {
	dir            string
	maxSourceBytes int64
	maxTotalBytes  int64
	sem            *semaphore.Weighted
}

// NewGitWorkspace prepares dir (creating it) and removes clones a previous process left
// behind when it was killed. Zero caps take the defaults.
func NewGitWorkspace(dir string, maxSourceBytes, maxTotalBytes int64) (*GitWorkspace, error) {
	if maxSourceBytes <= 0 {
		maxSourceBytes = DefaultMaxSourceBytes
	}
	if maxTotalBytes <= 0 {
		maxTotalBytes = max(DefaultMaxCloneTotal, maxSourceBytes)
	}
	if maxTotalBytes < maxSourceBytes {
		return nil, fmt.Errorf("the total clone cap (%d bytes) is below the per-source cap (%d bytes)", maxTotalBytes, maxSourceBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("git workspace: %w", err)
	}
	w := &GitWorkspace{dir: dir, maxSourceBytes: maxSourceBytes, maxTotalBytes: maxTotalBytes, sem: semaphore.NewWeighted(maxTotalBytes)}
	stale, err := w.Clones()
	if err != nil {
		return nil, fmt.Errorf("git workspace: %w", err)
	}
	for _, name := range stale {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("removing the stale clone %s: %w", name, err)
		}
	}
	return w, nil
}

// Dir is the workspace directory.
func (w *GitWorkspace) Dir() string { return w.dir }

// MaxSourceBytes is the cap of one source.
func (w *GitWorkspace) MaxSourceBytes() int64 { return w.maxSourceBytes }

// Clones lists the clone directories present now (for tests and diagnostics).
func (w *GitWorkspace) Clones() ([]string, error) {
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), clonePrefix) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// clone is one clone directory with its byte budget; release removes it.
type clone struct {
	fs      *cappedFS
	once    sync.Once
	release func()
}

// newClone reserves a clone's cap from the total (waiting for room) and creates its
// directory. cancel is called when the clone writes past its cap, to stop the transfer.
func (w *GitWorkspace) newClone(ctx context.Context, cancel context.CancelFunc) (*clone, error) {
	if err := w.sem.Acquire(ctx, w.maxSourceBytes); err != nil {
		return nil, fmt.Errorf("waiting for room in the git workspace: %w", err)
	}
	dir, err := os.MkdirTemp(w.dir, clonePrefix+"*")
	if err != nil {
		w.sem.Release(w.maxSourceBytes)
		return nil, fmt.Errorf("git workspace: %w", err)
	}
	c := &clone{fs: &cappedFS{Filesystem: osfs.New(dir), budget: &byteBudget{limit: w.maxSourceBytes, exceeded: cancel}}}
	c.release = func() {
		_ = os.RemoveAll(dir)
		w.sem.Release(w.maxSourceBytes)
	}
	return c, nil
}

// storage is a go-git object store in the clone's directory with a small memory footprint.
func (c *clone) storage() *filesystem.Storage {
	return filesystem.NewStorageWithOptions(c.fs, cache.NewObjectLRU(cloneObjectCache),
		filesystem.Options{ExclusiveAccess: true, LargeObjectThreshold: cloneLargeObject})
}

// tooLarge reports whether the clone wrote past its cap.
func (c *clone) tooLarge() bool { return c.fs.budget.over() }

// Close removes the clone and returns its reservation; safe to call twice.
func (c *clone) Close() error {
	c.once.Do(c.release)
	return nil
}

// byteBudget counts the bytes written into one clone.
type byteBudget struct {
	mu       sync.Mutex
	limit    int64
	used     int64
	tripped  bool
	exceeded context.CancelFunc
}

func (b *byteBudget) add(n int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += int64(n)
	if b.used > b.limit {
		if !b.tripped && b.exceeded != nil {
			b.exceeded()
		}
		b.tripped = true
		return fmt.Errorf("%w: the clone wrote more than %d bytes", ErrTooLarge, b.limit)
	}
	return nil
}

func (b *byteBudget) over() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tripped
}

// cappedFS is a billy filesystem whose files fail writes once the budget is spent.
type cappedFS struct {
	billy.Filesystem
	budget *byteBudget
}

func (f *cappedFS) Create(name string) (billy.File, error) {
	file, err := f.Filesystem.Create(name)
	return f.wrap(file, err)
}

func (f *cappedFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	file, err := f.Filesystem.OpenFile(name, flag, perm)
	return f.wrap(file, err)
}

func (f *cappedFS) TempFile(dir, prefix string) (billy.File, error) {
	file, err := f.Filesystem.TempFile(dir, prefix)
	return f.wrap(file, err)
}

func (f *cappedFS) Chroot(path string) (billy.Filesystem, error) {
	fs, err := f.Filesystem.Chroot(path)
	if err != nil {
		return nil, err
	}
	return &cappedFS{Filesystem: fs, budget: f.budget}, nil
}

// Chmod keeps go-git's read-only pack files working through the wrapper.
func (f *cappedFS) Chmod(name string, mode os.FileMode) error {
	if c, ok := f.Filesystem.(billy.Chmod); ok {
		return c.Chmod(name, mode)
	}
	return nil
}

func (f *cappedFS) wrap(file billy.File, err error) (billy.File, error) {
	if err != nil {
		return nil, err
	}
	return &cappedFile{File: file, budget: f.budget}, nil
}

type cappedFile struct {
	billy.File
	budget *byteBudget
}

func (f *cappedFile) Write(p []byte) (int, error) {
	if err := f.budget.add(len(p)); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}
