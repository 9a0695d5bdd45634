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
	"io"
	"os"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	gitclient "github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/memory"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/kubage/kubage/internal/egress"
)

// GitRef selects what to index; at most one field may be set. None means the remote's HEAD.
type GitRef struct {
	Branch string
	Tag    string
	// Commit is a full 40-character commit hash.
	Commit string
}

// GitAuth holds credentials, typically read from a Secret by the controller.
type GitAuth struct {
	// Username and Password authenticate over HTTP(S) with basic auth.
	Username string
	Password string
	// Token authenticates over HTTP(S) as the basic-auth password (the convention of
	// GitHub, GitLab and Gitea); Username defaults to "git".
	Token string
	// SSHPrivateKey (PEM or OpenSSH format) authenticates over SSH as SSHUser ("git" when empty).
	SSHPrivateKey []byte
	SSHPassphrase string
	SSHUser       string
	// SSHKnownHosts (known_hosts format) verifies the server; required for SSH unless
	// InsecureIgnoreHostKey is set.
	SSHKnownHosts         []byte
	InsecureIgnoreHostKey bool
}

// GitSource fetches documents from a git repository at a branch, tag or commit.
// Branches and tags are fetched shallow (depth 1), into memory or into a Workspace on disk; a commit needs a
// full fetch because servers rarely allow fetching an arbitrary hash. The commit
// hash becomes the snapshot revision, and an unchanged remote ref is detected
// with a ref listing alone, before anything is cloned.
type GitSource struct {
	URL    string
	Ref    GitRef
	Filter PathFilter
	Auth   GitAuth
	Limits Limits
	// Timeout bounds one fetch; 5 minutes when zero.
	Timeout time.Duration
	// Workspace, when set, clones onto disk under its caps and streams the documents
	// from there (the clone is removed when the snapshot is closed); nil clones into memory.
	Workspace *GitWorkspace
}

// ErrRefNotFound is returned when the branch or tag does not exist on the remote.
var ErrRefNotFound = errors.New("git reference not found")

// Fetch implements Source.
func (g *GitSource) Fetch(ctx context.Context, previousRevision string) (*Snapshot, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := g.checkSSHHost(ctx); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", redactURL(g.URL), err)
	}
	auth, err := g.authMethod()
	if err != nil {
		return nil, err
	}

	if g.Ref.Commit != "" {
		if strings.EqualFold(g.Ref.Commit, previousRevision) {
			return &Snapshot{Revision: previousRevision, Unchanged: true}, nil
		}
		repo, cl, err := g.clone(ctx, auth, "", 0)
		if err != nil {
			return nil, err
		}
		return g.readClosing(ctx, repo, cl, plumbing.NewHash(g.Ref.Commit))
	}

	refName, head, err := g.resolveRemote(ctx, auth)
	if err != nil {
		return nil, err
	}
	if head.String() == previousRevision {
		return &Snapshot{Revision: previousRevision, Unchanged: true}, nil
	}
	repo, cl, err := g.clone(ctx, auth, refName, 1)
	if err != nil && strings.Contains(err.Error(), "shallow") {
		// Servers without shallow support (e.g. go-git's own) get a full fetch.
		repo, cl, err = g.clone(ctx, auth, refName, 0)
	}
	if err != nil {
		return nil, err
	}
	ref, err := repo.Reference(refName, true)
	if err != nil {
		closeClone(cl)
		return nil, fmt.Errorf("resolve %s after fetch: %w", refName, err)
	}
	hash := ref.Hash()
	if tag, err := repo.TagObject(hash); err == nil {
		c, err := tag.Commit()
		if err != nil {
			closeClone(cl)
			return nil, fmt.Errorf("tag %s does not point to a commit: %w", g.Ref.Tag, err)
		}
		hash = c.Hash
	}
	return g.readClosing(ctx, repo, cl, hash)
}

// readClosing reads the commit and hands the clone to the snapshot, or removes it on error.
func (g *GitSource) readClosing(ctx context.Context, repo *git.Repository, cl *clone, hash plumbing.Hash) (*Snapshot, error) {
	snap, err := g.read(ctx, repo, cl, hash)
	if err != nil {
		closeClone(cl)
		return nil, err
	}
	return snap, nil
}

func closeClone(cl *clone) {
	if cl != nil {
		_ = cl.Close()
	}
}

func (g *GitSource) validate() error {
	if g.URL == "" {
		return errors.New("git source needs a URL")
	}
	set := 0
	for _, v := range []string{g.Ref.Branch, g.Ref.Tag, g.Ref.Commit} {
		if v != "" {
			set++
		}
	}
	if set > 1 {
		return errors.New("git ref: set at most one of branch, tag and commit")
	}
	if c := g.Ref.Commit; c != "" && (len(c) != 40 || strings.Trim(strings.ToLower(c), "0123456789abcdef") != "") {
		return fmt.Errorf("git commit %q is not a full 40-character hash", c)
	}
	return g.Filter.Validate()
}

// resolveRemote lists the remote's refs and returns the wanted ref name and the commit it points to.
func (g *GitSource) resolveRemote(ctx context.Context, auth transport.AuthMethod) (plumbing.ReferenceName, plumbing.Hash, error) {
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{g.URL}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth, PeelingOption: git.AppendPeeled})
	if err != nil {
		return "", plumbing.ZeroHash, fmt.Errorf("list refs of %s: %w", redactURL(g.URL), err)
	}
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, r := range refs {
		byName[r.Name()] = r
	}
	var want plumbing.ReferenceName
	switch {
	case g.Ref.Branch != "":
		want = plumbing.NewBranchReferenceName(g.Ref.Branch)
	case g.Ref.Tag != "":
		want = plumbing.NewTagReferenceName(g.Ref.Tag)
	default:
		head := byName[plumbing.HEAD]
		if head == nil {
			return "", plumbing.ZeroHash, fmt.Errorf("%w: %s has no HEAD", ErrRefNotFound, redactURL(g.URL))
		}
		if head.Type() == plumbing.SymbolicReference {
			want = head.Target()
		} else {
			// HEAD advertised without its symref target: pick the branch it points at.
			for n, r := range byName {
				if n.IsBranch() && r.Hash() == head.Hash() {
					want = n
					break
				}
			}
		}
		if want == "" {
			return "", plumbing.ZeroHash, fmt.Errorf("%w: cannot tell which branch HEAD of %s is", ErrRefNotFound, redactURL(g.URL))
		}
	}
	ref := byName[want]
	if ref == nil {
		return "", plumbing.ZeroHash, fmt.Errorf("%w: %s in %s", ErrRefNotFound, want.Short(), redactURL(g.URL))
	}
	// An annotated tag is advertised twice; the peeled "^{}" entry names the commit.
	if peeled := byName[plumbing.ReferenceName(string(want)+"^{}")]; peeled != nil {
		return want, peeled.Hash(), nil
	}
	return want, ref.Hash(), nil
}

// clone fetches the repository into memory, or into a new clone directory of the
// Workspace under its cap: a clone that writes past the cap is stopped, removed and
// reported as ErrTooLarge.
func (g *GitSource) clone(ctx context.Context, auth transport.AuthMethod, ref plumbing.ReferenceName, depth int) (*git.Repository, *clone, error) {
	opts := &git.CloneOptions{URL: g.URL, Auth: auth, NoCheckout: true, Depth: depth}
	if ref != "" {
		opts.ReferenceName = ref
		opts.SingleBranch = true
		opts.Tags = git.NoTags
	}
	if g.Workspace == nil {
		repo, err := git.CloneContext(ctx, memory.NewStorage(), nil, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("fetch %s: %w", redactURL(g.URL), err)
		}
		return repo, nil, nil
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cl, err := g.Workspace.newClone(cctx, cancel)
	if err != nil {
		return nil, nil, err
	}
	repo, err := git.CloneContext(cctx, cl.storage(), nil, opts)
	switch {
	case cl.tooLarge():
		_ = cl.Close()
		return nil, nil, fmt.Errorf("fetch %s: %w: the repository needs more than %d bytes on disk", redactURL(g.URL), ErrTooLarge, g.Workspace.maxSourceBytes)
	case err != nil:
		_ = cl.Close()
		return nil, nil, fmt.Errorf("fetch %s: %w", redactURL(g.URL), err)
	}
	return repo, cl, nil
}

// gitFile is one matching file of the commit's tree.
type gitFile struct {
	path string
	hash plumbing.Hash
}

// read lists the commit's tree and checks the matching files against the limits. From
// memory the documents are loaded at once; from a clone on disk they are streamed, and
// the clone is removed when the snapshot is closed.
func (g *GitSource) read(ctx context.Context, repo *git.Repository, cl *clone, hash plumbing.Hash) (*Snapshot, error) {
	commit, err := repo.CommitObject(hash)
	if err != nil {
		return nil, fmt.Errorf("%w: commit %s in %s: %v", ErrRefNotFound, hash, redactURL(g.URL), err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", hash, err)
	}
	lim := g.Limits.withDefaults()
	if g.Workspace != nil && (g.Limits.MaxTotalBytes <= 0 || g.Limits.MaxTotalBytes > g.Workspace.maxSourceBytes) {
		lim.MaxTotalBytes = g.Workspace.maxSourceBytes
	}
	snap := &Snapshot{Revision: hash.String()}
	var files []gitFile
	var total int64
	err = tree.Files().ForEach(func(f *object.File) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !f.Mode.IsFile() || !g.Filter.Match(f.Name) {
			return nil
		}
		if len(files) >= lim.MaxFiles {
			return fmt.Errorf("more than %d documents match", lim.MaxFiles)
		}
		snap.Paths = append(snap.Paths, f.Name)
		if f.Size > lim.MaxFileBytes {
			snap.Failed = append(snap.Failed, DocumentError{Path: f.Name, Err: fmt.Sprintf("file is %d bytes, limit %d", f.Size, lim.MaxFileBytes)})
			return nil
		}
		if total += f.Size; total > lim.MaxTotalBytes {
			return fmt.Errorf("%w: matching files exceed %d bytes in total", ErrTooLarge, lim.MaxTotalBytes)
		}
		files = append(files, gitFile{path: f.Name, hash: f.Hash})
		return nil
	})
	if err != nil {
		return nil, err
	}
	each := func(ctx context.Context, fn func(Document) error) ([]DocumentError, error) {
		var failed []DocumentError
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return failed, err
			}
			b, err := readBlob(repo, f.hash, lim.MaxFileBytes)
			if err != nil {
				return failed, fmt.Errorf("read %s: %w", f.path, err)
			}
			if looksBinary(b) {
				failed = append(failed, DocumentError{Path: f.path, Err: "binary file"})
				continue
			}
			if err := fn(newDocument(f.path, b)); err != nil {
				return failed, err
			}
		}
		return failed, nil
	}
	if cl != nil {
		snap.Each, snap.Close = each, cl.Close
		return snap, nil
	}
	snap.Paths = nil
	failed, err := each(ctx, func(d Document) error {
		snap.Documents = append(snap.Documents, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	snap.Failed = append(snap.Failed, failed...)
	return snap, nil
}

// readBlob reads one blob of at most limit bytes.
func readBlob(repo *git.Repository, hash plumbing.Hash, limit int64) ([]byte, error) {
	blob, err := repo.BlobObject(hash)
	if err != nil {
		return nil, err
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	return io.ReadAll(io.LimitReader(r, limit+1))
}

func (g *GitSource) authMethod() (transport.AuthMethod, error) {
	a := g.Auth
	if len(a.SSHPrivateKey) > 0 {
		user := a.SSHUser
		if user == "" {
			user = "git"
		}
		keys, err := gitssh.NewPublicKeys(user, a.SSHPrivateKey, a.SSHPassphrase)
		if err != nil {
			return nil, fmt.Errorf("git SSH key: %w", err)
		}
		switch {
		case len(a.SSHKnownHosts) > 0:
			cb, err := knownHostsCallback(a.SSHKnownHosts)
			if err != nil {
				return nil, err
			}
			keys.HostKeyCallback = cb
		case a.InsecureIgnoreHostKey:
			keys.HostKeyCallback = ssh.InsecureIgnoreHostKey()
		default:
			return nil, errors.New("git SSH auth needs known hosts (or insecureIgnoreHostKey)")
		}
		return keys, nil
	}
	if a.Token != "" {
		user := a.Username
		if user == "" {
			user = "git"
		}
		return &githttp.BasicAuth{Username: user, Password: a.Token}, nil
	}
	if a.Username != "" || a.Password != "" {
		return &githttp.BasicAuth{Username: a.Username, Password: a.Password}, nil
	}
	return nil, nil
}

// knownHostsCallback builds a host key check from known_hosts content; the
// knownhosts package only reads files, so the bytes pass through a temporary one.
func knownHostsCallback(data []byte) (ssh.HostKeyCallback, error) {
	f, err := os.CreateTemp("", "kubage-known-hosts-*")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.Remove(f.Name()) }()
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	cb, err := knownhosts.New(f.Name())
	if err != nil {
		return nil, fmt.Errorf("git SSH known hosts: %w", err)
	}
	return cb, nil
}

// redactURL hides credentials embedded in a URL before it reaches an error message.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 && !strings.Contains(rest[:at], "/") {
		return scheme + "://***@" + rest[at+1:]
	}
	return u
}

// go-git picks its HTTP transport per scheme process-wide: both dial through the egress
// guard. SSH remotes are checked by checkSSHHost before go-git dials them.
func init() {
	guarded := githttp.NewClient(egress.NewHTTPClient(0))
	gitclient.InstallProtocol("https", guarded)
	gitclient.InstallProtocol("http", guarded)
}

// checkSSHHost applies the egress policy to an SSH remote's host (go-git's SSH dialer
// cannot be replaced), resolving it as the dial will.
func (g *GitSource) checkSSHHost(ctx context.Context) error {
	ep, err := transport.NewEndpoint(g.URL)
	if err != nil || ep.Protocol != "ssh" {
		return nil
	}
	return egress.CheckHost(ctx, ep.Host)
}
