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
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestPathFilter(t *testing.T) {
	cases := []struct {
		f    PathFilter
		path string
		want bool
	}{
		{PathFilter{}, "any/thing.bin", true},
		{PathFilter{Include: []string{"*.md"}}, "deep/dir/x.md", true},
		{PathFilter{Include: []string{"*.md"}}, "x.txt", false},
		{PathFilter{Include: []string{"docs/**/*.md"}}, "docs/x.md", true},
		{PathFilter{Include: []string{"docs/**/*.md"}}, "docs/a/b/c.md", true},
		{PathFilter{Include: []string{"docs/**/*.md"}}, "other/docs/x.md", false},
		{PathFilter{Include: []string{"docs/*.md"}}, "docs/a/x.md", false},
		{PathFilter{Include: []string{"**"}}, "a/b", true},
		{PathFilter{Include: []string{"runbooks/**"}}, "runbooks/etcd/x.md", true},
		{PathFilter{Include: []string{"**/*.md"}, Exclude: []string{"SOURCE.md"}}, "SOURCE.md", false},
		{PathFilter{Include: []string{"**/*.md"}, Exclude: []string{"**/_index.md"}}, "a/_index.md", false},
		{PathFilter{Include: []string{"/abs/*.md"}}, "abs/x.md", true},
	}
	for _, c := range cases {
		if got := c.f.Match(c.path); got != c.want {
			t.Errorf("%+v.Match(%q) = %v, want %v", c.f, c.path, got, c.want)
		}
	}
	if (PathFilter{Include: []string{"a/[/b"}}).Validate() == nil {
		t.Error("bad pattern accepted")
	}
}

func TestStaticSources(t *testing.T) {
	ctx := context.Background()
	cm := &ConfigMapSource{Data: map[string]string{"a.md": "# A", "b.md": "# B", "skip.txt": "x"}, Filter: PathFilter{Include: []string{"*.md"}}}
	snap, err := cm.Fetch(ctx, "")
	if err != nil || len(snap.Documents) != 2 || snap.Documents[0].Path != "a.md" {
		t.Fatalf("configmap snap %+v err %v", snap, err)
	}
	again, _ := cm.Fetch(ctx, snap.Revision)
	if !again.Unchanged || again.Revision != snap.Revision {
		t.Fatalf("unchanged configmap: %+v", again)
	}
	cm.Data["b.md"] = "# B2"
	if changed, _ := cm.Fetch(ctx, snap.Revision); changed.Unchanged || changed.Revision == snap.Revision {
		t.Fatal("changed configmap reported unchanged")
	}
	cm.Data["bin.md"] = "\x00\x01"
	if s, _ := cm.Fetch(ctx, ""); len(s.Failed) != 1 || s.Failed[0].Path != "bin.md" {
		t.Fatalf("binary value: %+v", s.Failed)
	}

	in := &InlineSource{Text: "hello"}
	snap, err = in.Fetch(ctx, "")
	if err != nil || len(snap.Documents) != 1 || snap.Documents[0].Path != "inline" || snap.Documents[0].Hash != ContentHash([]byte("hello")) {
		t.Fatalf("inline snap %+v err %v", snap, err)
	}
	if s, _ := in.Fetch(ctx, snap.Revision); !s.Unchanged {
		t.Fatal("inline unchanged not detected")
	}
}

func TestDirSource(t *testing.T) {
	dir := t.TempDir()
	for p, c := range map[string]string{"a.md": "# A", "sub/b.md": "# B", "sub/big.md": strings.Repeat("x", 100), "c.txt": "c"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := &DirSource{Root: dir, Filter: PathFilter{Include: []string{"**/*.md"}}, Limits: Limits{MaxFileBytes: 50}}
	snap, err := src.Fetch(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Documents) != 2 || snap.Documents[1].Path != "sub/b.md" || len(snap.Failed) != 1 {
		t.Fatalf("snap %+v", snap)
	}
	if _, err := (&DirSource{Root: filepath.Join(dir, "missing")}).Fetch(context.Background(), ""); err == nil {
		t.Fatal("missing dir accepted")
	}
}

// pageServer serves pages with ETag and Last-Modified and counts full responses.
type pageServer struct {
	mu    sync.Mutex
	pages map[string]string
	full  int
}

func (p *pageServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	body, ok := p.pages[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%s"`, ContentHash([]byte(body))[:12])
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	p.full++
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", "Wed, 01 Jan 2025 00:00:00 GMT")
	_, _ = w.Write([]byte(body))
}

func TestHTTPSourceConditionalGet(t *testing.T) {
	ps := &pageServer{pages: map[string]string{"/a.md": "# A\n\nalpha", "/b.html": "<h1>B</h1><p>bravo</p>"}}
	srv := httptest.NewServer(ps)
	defer srv.Close()
	src := &HTTPSource{URLs: []string{srv.URL + "/a.md", srv.URL + "/b.html"}, Header: http.Header{"Authorization": {"Bearer t"}}}
	ctx := context.Background()

	snap, err := src.Fetch(ctx, "")
	if err != nil || len(snap.Documents) != 2 || ps.full != 2 {
		t.Fatalf("first fetch: %+v err %v full %d", snap, err, ps.full)
	}
	again, err := src.Fetch(ctx, snap.Revision)
	if err != nil || !again.Unchanged || ps.full != 2 {
		t.Fatalf("second fetch should be two 304s: %+v err %v full %d", again, err, ps.full)
	}
	// Without the previous revision the cached content is returned, still without a transfer.
	cached, err := src.Fetch(ctx, "")
	if err != nil || len(cached.Documents) != 2 || !cached.Documents[0].NotModified || string(cached.Documents[0].Content) != "# A\n\nalpha" || ps.full != 2 {
		t.Fatalf("cached fetch: %+v err %v", cached, err)
	}
	ps.mu.Lock()
	ps.pages["/a.md"] = "# A\n\nalpha v2"
	ps.mu.Unlock()
	changed, err := src.Fetch(ctx, snap.Revision)
	if err != nil || changed.Unchanged || changed.Revision == snap.Revision || ps.full != 3 {
		t.Fatalf("changed page: %+v err %v full %d", changed, err, ps.full)
	}
}

func TestHTTPSourceFailures(t *testing.T) {
	ps := &pageServer{pages: map[string]string{"/ok.md": "fine", "/big.md": strings.Repeat("x", 2000), "/bin": "\x00\x01\x02"}}
	srv := httptest.NewServer(ps)
	defer srv.Close()
	ctx := context.Background()
	src := &HTTPSource{URLs: []string{srv.URL + "/ok.md", srv.URL + "/big.md", srv.URL + "/missing", srv.URL + "/bin"}, Limits: Limits{MaxFileBytes: 1000}}
	snap, err := src.Fetch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Documents) != 1 || len(snap.Failed) != 3 {
		t.Fatalf("snap %+v", snap)
	}
	errs := fmt.Sprint(snap.Failed)
	for _, want := range []string{"limit 1000", "HTTP 404", "binary"} {
		if !strings.Contains(errs, want) {
			t.Errorf("failures %s lack %q", errs, want)
		}
	}
	if _, err := (&HTTPSource{URLs: []string{srv.URL + "/missing"}}).Fetch(ctx, ""); err == nil {
		t.Error("all URLs failing should fail the fetch")
	}
	for _, bad := range [][]string{nil, {"ftp://x/y"}, {"not a url"}} {
		if _, err := (&HTTPSource{URLs: bad}).Fetch(ctx, ""); err == nil {
			t.Errorf("URLs %v accepted", bad)
		}
	}
}
