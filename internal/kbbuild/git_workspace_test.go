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
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubage/kubage/internal/retrieval"
)

// randomText is incompressible Markdown: git's pack cannot shrink it below its size.
func randomText(t *testing.T, n int) []byte {
	t.Helper()
	raw := make([]byte, n*3/4)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	return []byte("# Noise\n\n" + base64.StdEncoding.EncodeToString(raw) + "\n")
}

// serveRepo serves a test repository with git http-backend, the transport of production
// (go-git's file transport cannot abort a clone: it waits for git-upload-pack to exit).
func serveRepo(t *testing.T, r *testRepo) string {
	t.Helper()
	backend := &cgi.Handler{
		Path: needGit(t),
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + filepath.Dir(r.dir), "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(backend)
	t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(r.dir)
}

func TestGitWorkspaceStreamsFromDisk(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	head := r.commit("initial", map[string][]byte{
		"a.md":       runbook("Alpha", "alpha fires when the disk fills; see [bravo](b.md)"),
		"b.md":       runbook("Bravo", "bravo fires when certificates expire"),
		"binary.md":  {0, 1, 2},
		"README.txt": []byte("not selected"),
	})
	ws, err := NewGitWorkspace(filepath.Join(t.TempDir(), "git"), 1<<20, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	src := &GitSource{URL: serveRepo(t, r), Filter: PathFilter{Include: []string{"*.md"}}, Workspace: ws}
	snap, err := src.Fetch(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Revision != head.String() || snap.Each == nil || len(snap.Documents) != 0 || len(snap.Paths) != 3 {
		t.Fatalf("snapshot %+v", snap)
	}
	if clones, _ := ws.Clones(); len(clones) != 1 {
		t.Fatalf("the clone lives on disk while the snapshot is open: %v", clones)
	}
	_ = snap.Close()
	if clones, _ := ws.Clones(); len(clones) != 0 {
		t.Fatalf("closing the snapshot removes the clone: %v", clones)
	}

	store := retrieval.NewEmbedded(retrieval.DefaultEmbeddedOptions)
	st, err := Index(context.Background(), src, store, IndexConfig{Source: "ns/docs"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Docs != 2 || st.Added != 2 || len(st.Failed) != 1 || st.Failed[0].Path != "binary.md" {
		t.Fatalf("stats %+v", st)
	}
	if clones, _ := ws.Clones(); len(clones) != 0 {
		t.Fatalf("indexing removes its clone: %v", clones)
	}
}

func TestGitWorkspaceCap(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	const limit = 256 << 10
	files := map[string][]byte{}
	for i := 0; i < 8; i++ {
		files[fmt.Sprintf("noise-%d.md", i)] = randomText(t, limit/4) // twice the cap in all
	}
	r.commit("big", files)
	dir := filepath.Join(t.TempDir(), "git")
	// A clone killed half-way by an earlier process is swept on start.
	if err := os.MkdirAll(filepath.Join(dir, "clone-stale", "objects"), 0o700); err != nil {
		t.Fatal(err)
	}
	ws, err := NewGitWorkspace(dir, limit, limit)
	if err != nil {
		t.Fatal(err)
	}
	if clones, _ := ws.Clones(); len(clones) != 0 {
		t.Fatalf("stale clones removed: %v", clones)
	}
	_, err = (&GitSource{URL: serveRepo(t, r), Workspace: ws}).Fetch(context.Background(), "")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("want ErrTooLarge, got %v", err)
	}
	if clones, _ := ws.Clones(); len(clones) != 0 {
		t.Fatalf("the partial clone is removed: %v", clones)
	}
	// The reservation came back: a small repository fits afterwards.
	small := newTestRepo(t)
	small.commit("small", map[string][]byte{"a.md": runbook("Alpha", "small")})
	snap, err := (&GitSource{URL: serveRepo(t, small), Workspace: ws}).Fetch(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	_ = snap.Close()

	// Documents over the cap in total are refused even when the pack is small (compressible).
	r2 := newTestRepo(t)
	big := make([]byte, 0, limit*2)
	for len(big) < limit*2 {
		big = append(big, "# Same line\n\nrepeated text compresses well in a pack.\n"...)
	}
	r2.commit("compressible", map[string][]byte{"a.md": big[:limit/2+1], "b.md": big[:limit/2+2], "c.md": big[:limit/2+3]})
	_, err = (&GitSource{URL: serveRepo(t, r2), Workspace: ws, Limits: Limits{MaxFileBytes: limit}}).Fetch(context.Background(), "")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("documents over the cap: want ErrTooLarge, got %v", err)
	}
	if _, err := NewGitWorkspace(dir, 2*limit, limit); err == nil {
		t.Fatal("a total cap below the per-source cap is refused")
	}
}
