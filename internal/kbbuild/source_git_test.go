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
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/file"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/kubage/kubage/internal/retrieval"
)

// testRepo is a real git repository on disk, written with go-git.
type testRepo struct {
	t    *testing.T
	dir  string
	repo *git.Repository
	when time.Time
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &testRepo{t: t, dir: dir, repo: repo, when: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// commit writes files (nil content deletes the file) and commits them.
func (r *testRepo) commit(msg string, files map[string][]byte) plumbing.Hash {
	r.t.Helper()
	wt, err := r.repo.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if content == nil {
			if _, err := wt.Remove(p); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, content, 0o644); err != nil {
			r.t.Fatal(err)
		}
		if _, err := wt.Add(p); err != nil {
			r.t.Fatal(err)
		}
	}
	r.when = r.when.Add(time.Minute)
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: r.when}})
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// needGit skips when the git binary (used by go-git's file transport) is missing.
func needGit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git binary not installed: go-git's file:// transport and git http-backend need it")
	}
	return p
}

func runbook(title, body string) []byte {
	return []byte("# " + title + "\n\n## Meaning\n\n" + body + "\n\n## Mitigation\n\nRestart the " + title + " component.\n")
}

func TestGitSourceIncrementalIndexing(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	first := r.commit("initial", map[string][]byte{
		"runbooks/a.md":     runbook("Alpha", "alpha fires when the disk fills"),
		"runbooks/b.md":     runbook("Bravo", "bravo fires when certificates expire"),
		"runbooks/sub/c.md": runbook("Charlie", "charlie fires when etcd loses quorum"),
		"README.txt":        []byte("not selected"),
	})
	src := &GitSource{URL: r.dir, Filter: PathFilter{Include: []string{"runbooks/**/*.md"}}}
	store := retrieval.NewEmbedded(retrieval.DefaultEmbeddedOptions)
	ctx := context.Background()
	cfg := IndexConfig{Source: "ns/runbooks", TrustLevel: 4}

	st, err := Index(ctx, src, store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Revision != first.String() || st.Added != 3 || st.Docs != 3 || st.Chunks == 0 || len(st.Failed) != 0 {
		t.Fatalf("first index: %+v", st)
	}

	cfg.PreviousRevision = st.Revision
	st, err = Index(ctx, src, store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !st.RevisionUnchanged || st.Added+st.Updated+st.Removed+st.Unchanged != 0 || st.Docs != 3 {
		t.Fatalf("unchanged revision should be a no-op: %+v", st)
	}

	second := r.commit("edit b", map[string][]byte{"runbooks/b.md": runbook("Bravo", "bravo now also fires on clock skew")})
	st, err = Index(ctx, src, store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Revision != second.String() || st.Updated != 1 || st.Unchanged != 2 || st.Added != 0 || st.Removed != 0 {
		t.Fatalf("one changed file: %+v", st)
	}
	hits, _ := store.Search(ctx, retrieval.Query{Text: "clock skew", TopK: 1})
	if len(hits) != 1 || hits[0].Chunk.Path != "runbooks/b.md" {
		t.Fatalf("updated content not searchable: %+v", hits)
	}

	cfg.PreviousRevision = st.Revision
	r.commit("delete c", map[string][]byte{"runbooks/sub/c.md": nil})
	st, err = Index(ctx, src, store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Removed != 1 || st.Unchanged != 2 || st.Docs != 2 {
		t.Fatalf("deleted file: %+v", st)
	}
	if hits, _ := store.Search(ctx, retrieval.Query{Text: "quorum", TopK: 5}); len(hits) != 0 {
		t.Fatalf("deleted document still found: %+v", hits)
	}
}

func TestGitSourceRefs(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	first := r.commit("one", map[string][]byte{"doc.md": []byte("# One\n\nfirst version\n")})
	if _, err := r.repo.CreateTag("v1", first, &git.CreateTagOptions{Message: "v1", Tagger: &object.Signature{Name: "t", Email: "t@example.com", When: r.when}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.repo.CreateTag("light", first, nil); err != nil {
		t.Fatal(err)
	}
	second := r.commit("two", map[string][]byte{"doc.md": []byte("# Two\n\nsecond version\n")})
	wt, _ := r.repo.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("release"), Create: true, Hash: first}); err != nil {
		t.Fatal(err)
	}
	release := r.commit("release fix", map[string][]byte{"doc.md": []byte("# Release\n\nrelease version\n")})
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("master")}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		ref  GitRef
		want plumbing.Hash
		text string
	}{
		{"default branch", GitRef{}, second, "second version"},
		{"branch", GitRef{Branch: "release"}, release, "release version"},
		{"annotated tag resolves to its commit", GitRef{Tag: "v1"}, first, "first version"},
		{"lightweight tag", GitRef{Tag: "light"}, first, "first version"},
		{"commit", GitRef{Commit: first.String()}, first, "first version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap, err := (&GitSource{URL: "file://" + r.dir, Ref: c.ref}).Fetch(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if snap.Revision != c.want.String() || len(snap.Documents) != 1 || !strings.Contains(string(snap.Documents[0].Content), c.text) {
				t.Fatalf("revision %s docs %+v, want %s with %q", snap.Revision, snap.Documents, c.want, c.text)
			}
		})
	}

	t.Run("pinned commit unchanged needs no network", func(t *testing.T) {
		snap, err := (&GitSource{URL: filepath.Join(r.dir, "does-not-exist"), Ref: GitRef{Commit: first.String()}}).Fetch(ctx, first.String())
		if err != nil || !snap.Unchanged {
			t.Fatalf("snap %+v err %v", snap, err)
		}
	})
	t.Run("missing branch", func(t *testing.T) {
		_, err := (&GitSource{URL: r.dir, Ref: GitRef{Branch: "nope"}}).Fetch(ctx, "")
		if !errors.Is(err, ErrRefNotFound) {
			t.Fatalf("err = %v, want ErrRefNotFound", err)
		}
	})
	t.Run("missing commit", func(t *testing.T) {
		_, err := (&GitSource{URL: r.dir, Ref: GitRef{Commit: strings.Repeat("ab", 20)}}).Fetch(ctx, "")
		if !errors.Is(err, ErrRefNotFound) {
			t.Fatalf("err = %v, want ErrRefNotFound", err)
		}
	})
	t.Run("unreachable repository", func(t *testing.T) {
		if _, err := (&GitSource{URL: filepath.Join(r.dir, "missing")}).Fetch(ctx, ""); err == nil {
			t.Fatal("expected an error")
		}
	})
	t.Run("invalid config", func(t *testing.T) {
		for _, g := range []*GitSource{
			{},
			{URL: r.dir, Ref: GitRef{Branch: "a", Tag: "b"}},
			{URL: r.dir, Ref: GitRef{Commit: "abc"}},
			{URL: r.dir, Filter: PathFilter{Include: []string{"[bad"}}},
		} {
			if _, err := g.Fetch(ctx, ""); err == nil {
				t.Errorf("%+v accepted", g)
			}
		}
	})
}

func TestGitSourceBadFiles(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	r.commit("files", map[string][]byte{
		"ok.md":    []byte("# OK\n\nfine\n"),
		"big.md":   []byte(strings.Repeat("x", 2048)),
		"image.md": append([]byte("PNG"), 0, 1, 2),
	})
	snap, err := (&GitSource{URL: r.dir, Limits: Limits{MaxFileBytes: 1024}}).Fetch(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Documents) != 1 || snap.Documents[0].Path != "ok.md" {
		t.Fatalf("documents %+v", snap.Documents)
	}
	failed := map[string]string{}
	for _, f := range snap.Failed {
		failed[f.Path] = f.Err
	}
	if !strings.Contains(failed["big.md"], "limit 1024") || failed["image.md"] != "binary file" {
		t.Fatalf("failed = %v", failed)
	}
	if _, err := (&GitSource{URL: r.dir, Limits: Limits{MaxTotalBytes: 10}}).Fetch(context.Background(), ""); err == nil {
		t.Fatal("total size limit not enforced")
	}
}

// TestGitSourceWithoutShallowSupport uses go-git's in-process server, which refuses
// shallow fetches: the source must fall back to a full fetch.
func TestGitSourceWithoutShallowSupport(t *testing.T) {
	r := newTestRepo(t)
	head := r.commit("one", map[string][]byte{"a.md": []byte("# A\n\ntext\n")})
	client.InstallProtocol("file", server.DefaultServer)
	t.Cleanup(func() { client.InstallProtocol("file", file.DefaultClient) })
	// The in-process server's loader opens the .git directory itself.
	snap, err := (&GitSource{URL: filepath.Join(r.dir, ".git"), Ref: GitRef{Branch: "master"}}).Fetch(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Revision != head.String() || len(snap.Documents) != 1 {
		t.Fatalf("snap = %+v", snap)
	}
}

// TestGitSourceHTTPBasicAuth serves the repository with git http-backend behind
// basic auth and checks good and bad credentials.
func TestGitSourceHTTPBasicAuth(t *testing.T) {
	gitBin := needGit(t)
	r := newTestRepo(t)
	head := r.commit("one", map[string][]byte{"a.md": []byte("# A\n\ntext\n")})
	backend := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + filepath.Dir(r.dir), "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if u, p, ok := req.BasicAuth(); !ok || u != "reader" || p != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, req)
	}))
	defer srv.Close()
	url := srv.URL + "/" + filepath.Base(r.dir)
	ctx := context.Background()

	snap, err := (&GitSource{URL: url, Auth: GitAuth{Username: "reader", Password: "s3cret"}}).Fetch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Revision != head.String() || len(snap.Documents) != 1 {
		t.Fatalf("snap = %+v", snap)
	}
	if snap, err := (&GitSource{URL: url, Auth: GitAuth{Username: "reader", Token: "s3cret"}}).Fetch(ctx, head.String()); err != nil || !snap.Unchanged {
		t.Fatalf("token auth: snap %+v err %v", snap, err)
	}
	_, err = (&GitSource{URL: url, Auth: GitAuth{Username: "reader", Password: "wrong"}}).Fetch(ctx, "")
	if err == nil || !strings.Contains(err.Error(), "authentication") {
		t.Fatalf("bad credentials: err = %v", err)
	}
	withCreds := strings.Replace(url, "http://", "http://reader:leak@", 1)
	if _, err := (&GitSource{URL: withCreds}).Fetch(ctx, ""); err == nil || strings.Contains(err.Error(), "leak") {
		t.Fatalf("credentials in URL leaked into error: %v", err)
	}
}

func TestGitSSHAuthMethod(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "test")
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(block)
	hostPub, _, _ := ed25519.GenerateKey(rand.Reader)
	hostKey, _ := ssh.NewPublicKey(hostPub)
	otherPub, _, _ := ed25519.GenerateKey(rand.Reader)
	otherKey, _ := ssh.NewPublicKey(otherPub)
	known := []byte(knownhosts.Line([]string{"git.example.com"}, hostKey) + "\n")

	if _, err := (&GitSource{Auth: GitAuth{SSHPrivateKey: keyPEM}}).authMethod(); err == nil {
		t.Error("SSH without known hosts accepted")
	}
	if _, err := (&GitSource{Auth: GitAuth{SSHPrivateKey: []byte("junk"), InsecureIgnoreHostKey: true}}).authMethod(); err == nil {
		t.Error("junk key accepted")
	}
	am, err := (&GitSource{Auth: GitAuth{SSHPrivateKey: keyPEM, SSHKnownHosts: known}}).authMethod()
	if err != nil {
		t.Fatal(err)
	}
	keys := am.(*gitssh.PublicKeys)
	if keys.User != "git" {
		t.Errorf("user = %q", keys.User)
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 22}
	if err := keys.HostKeyCallback("git.example.com:22", addr, hostKey); err != nil {
		t.Errorf("known host rejected: %v", err)
	}
	if err := keys.HostKeyCallback("git.example.com:22", addr, otherKey); err == nil {
		t.Error("wrong host key accepted")
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@github.com/org/repo": "https://***@github.com/org/repo",
		"https://github.com/org/repo":         "https://github.com/org/repo",
		"git@github.com:org/repo.git":         "git@github.com:org/repo.git",
		"https://host/path@v1":                "https://host/path@v1",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
