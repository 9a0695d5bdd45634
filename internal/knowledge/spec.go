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
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/egress"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/retrieval/milvus"
)

// The translation of a KnowledgeSource's spec, and of the Secrets and ConfigMaps it names,
// into the SourceConfig the Service indexes: the git source with its credentials, the
// embedder, and the Milvus store.

// GitFetchTimeout bounds one git fetch.
const GitFetchTimeout = 3 * time.Minute

// Keys read from the Secrets a KnowledgeSource refers to.
const (
	SecretUsernameKey   = "username"
	SecretPasswordKey   = "password"
	SecretTokenKey      = "token"
	SecretIdentityKey   = "identity"
	SecretKnownHostsKey = "known_hosts"
	SecretPassphraseKey = "passphrase"
)

// RefReader reads the Secrets and ConfigMaps a KnowledgeSource names, in its namespace.
// A missing object is a Kubernetes NotFound error.
type RefReader interface {
	SecretData(ctx context.Context, namespace, name string) (map[string][]byte, error)
	ConfigMapData(ctx context.Context, namespace, name string) (map[string]string, error)
}

// SpecResolver turns KnowledgeSource specs into SourceConfigs. It keeps, per source, what
// is worth keeping between runs while its settings stay the same: an HTTP source with its
// ETags and an embedder with its vector cache. Errors that need a change of the spec or of
// a referenced object are serror.Stalling; an embedding endpoint that cannot tell the
// vector size is serror.Waiting; anything else is transient.
type SpecResolver struct {
	refs RefReader
	// Workspace, when set, is where git sources are cloned (on disk, under its caps).
	Workspace *kbbuild.GitWorkspace

	mu   sync.Mutex
	kept map[string]*keptSource
}

// keptSource is what a SpecResolver keeps of one source.
type keptSource struct {
	httpKey     string
	http        *kbbuild.HTTPSource
	embedderKey string
	embedder    retrieval.Embedder
}

// NewSpecResolver returns a resolver reading references through refs.
func NewSpecResolver(refs RefReader) *SpecResolver {
	return &SpecResolver{refs: refs, kept: map[string]*keptSource{}}
}

// Forget drops what is kept of a deleted source.
func (r *SpecResolver) Forget(namespace, name string) {
	r.mu.Lock()
	delete(r.kept, namespace+"/"+name)
	r.mu.Unlock()
}

func (r *SpecResolver) keptOf(namespace, name string) *keptSource {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kept[namespace+"/"+name]
	if k == nil {
		k = &keptSource{}
		r.kept[namespace+"/"+name] = k
	}
	return k
}

// ReferencedSecrets lists the Secrets a KnowledgeSource reads.
func ReferencedSecrets(ks *kubagev1alpha1.KnowledgeSource) []string {
	var names []string
	if g := ks.Spec.Git; g != nil && g.SecretRef != nil {
		names = append(names, g.SecretRef.Name)
	}
	if e := ks.Spec.Embedding; e != nil {
		names = append(names, e.SecretRef.Name)
	}
	if m := ks.Spec.Store.Milvus; m != nil && m.SecretRef != nil {
		names = append(names, m.SecretRef.Name)
	}
	return names
}

// Resolve translates ks into what the Service indexes. Missing Secrets or ConfigMaps and
// unusable settings stall the source until they change.
func (r *SpecResolver) Resolve(ctx context.Context, ks *kubagev1alpha1.KnowledgeSource) (SourceConfig, error) {
	kept := r.keptOf(ks.Namespace, ks.Name)
	spec := &ks.Spec
	cfg := SourceConfig{
		Namespace:   ks.Namespace,
		Name:        ks.Name,
		Labels:      ks.Labels,
		Domain:      spec.Domain,
		TrustLevel:  int(spec.TrustLevel),
		Copyright:   spec.Copyright,
		NotQuotable: spec.Quotable != nil && !*spec.Quotable,
		Format:      kbbuild.Format(spec.Format),
		Chunking: kbbuild.ChunkOptions{
			MinTokens: int(spec.Chunking.MinTokens), TargetTokens: int(spec.Chunking.TargetTokens), MaxTokens: int(spec.Chunking.MaxTokens),
		},
	}
	if cfg.Format == "" {
		cfg.Format = kbbuild.FormatMarkdown
	}
	if err := cfg.Chunking.WithDefaults().Validate(); err != nil {
		return SourceConfig{}, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, fmt.Errorf("chunking: %w", err))
	}

	var fp any
	switch {
	case spec.Git != nil:
		src, err := r.gitSource(ctx, ks)
		if err != nil {
			return SourceConfig{}, err
		}
		cfg.Source = src
		fp = struct {
			URL, Ref string
			Paths    []string
		}{spec.Git.URL, spec.Git.Ref, src.primary().Filter.Include}
	case spec.HTTP != nil:
		urls := append([]string(nil), spec.HTTP.URLs...)
		sort.Strings(urls)
		fp = urls
		httpKey := hashOf(urls)
		if kept.http == nil || kept.httpKey != httpKey {
			kept.http, kept.httpKey = &kbbuild.HTTPSource{URLs: urls}, httpKey
		}
		cfg.Source = kept.http
	case spec.ConfigMapRef != nil:
		data, err := r.refs.ConfigMapData(ctx, ks.Namespace, spec.ConfigMapRef.Name)
		if apierrors.IsNotFound(err) {
			return SourceConfig{}, serror.NewStalling(kubagev1alpha1.ConfigMapNotFoundReason, fmt.Errorf("ConfigMap %s not found", spec.ConfigMapRef.Name))
		}
		if err != nil {
			return SourceConfig{}, fmt.Errorf("reading ConfigMap %s: %w", spec.ConfigMapRef.Name, err)
		}
		cfg.Source = &kbbuild.ConfigMapSource{Data: data}
		fp = "configmap/" + spec.ConfigMapRef.Name
	case len(spec.Inline) > 0:
		data := make(map[string]string, len(spec.Inline))
		for _, d := range spec.Inline {
			data[d.Name] = d.Content
		}
		cfg.Source = &kbbuild.ConfigMapSource{Data: data}
		fp = "inline"
	default:
		return SourceConfig{}, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, errors.New("set exactly one of git, http, configMapRef or inline"))
	}
	cfg.Fingerprint = hashOf(fp)

	if spec.Embedding != nil {
		emb, err := r.embedder(ctx, ks, kept)
		if err != nil {
			return SourceConfig{}, err
		}
		cfg.Embedder = emb
	}
	if spec.Store.Type == kubagev1alpha1.StoreMilvus {
		if spec.Store.Milvus == nil {
			return SourceConfig{}, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, errors.New("store.milvus is required when store.type is Milvus"))
		}
		dim := 0
		if spec.Embedding != nil {
			dim = int(spec.Embedding.Dimensions)
		}
		if dim == 0 && cfg.Embedder != nil {
			// Milvus needs the vector size up front: ask the model (the answer is cached).
			vecs, err := cfg.Embedder.Embed(ctx, []string{"dimension probe"})
			if err != nil || len(vecs) != 1 || len(vecs[0]) == 0 {
				if err == nil {
					err = errors.New("the endpoint returned no vector")
				}
				return SourceConfig{}, &serror.Waiting{Reason: kubagev1alpha1.EmbeddingFailedReason,
					Err: fmt.Errorf("learning the embedding size for Milvus (set embedding.dimensions to skip this): %w", err)}
			}
			dim = len(vecs[0])
		}
		mcfg, err := r.MilvusConfig(ctx, ks, dim)
		if err != nil {
			return SourceConfig{}, err
		}
		cfg.Milvus = mcfg
	}
	return cfg, nil
}

// gitSource maps spec.git onto a kbbuild git source, with credentials from its Secret.
func (r *SpecResolver) gitSource(ctx context.Context, ks *kubagev1alpha1.KnowledgeSource) (*gitRefSource, error) {
	g := ks.Spec.Git
	filter := kbbuild.PathFilter{Include: g.Paths}
	if len(filter.Include) == 0 {
		filter.Include = defaultPaths(ks.Spec.Format)
	}
	if err := filter.Validate(); err != nil {
		return nil, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, fmt.Errorf("git.paths: %w", err))
	}
	var auth kbbuild.GitAuth
	if g.SecretRef != nil {
		data, err := r.secretData(ctx, ks.Namespace, g.SecretRef.Name)
		if err != nil {
			return nil, err
		}
		auth = kbbuild.GitAuth{
			Username:      string(data[SecretUsernameKey]),
			Password:      string(data[SecretPasswordKey]),
			Token:         string(data[SecretTokenKey]),
			SSHPrivateKey: data[SecretIdentityKey],
			SSHKnownHosts: data[SecretKnownHostsKey],
			SSHPassphrase: string(data[SecretPassphraseKey]),
		}
		if auth.Username == "" && auth.Password == "" && auth.Token == "" && len(auth.SSHPrivateKey) == 0 {
			return nil, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, fmt.Errorf("Secret %s has none of the keys %s, %s, %s or %s",
				g.SecretRef.Name, SecretUsernameKey, SecretPasswordKey, SecretTokenKey, SecretIdentityKey))
		}
	}
	base := kbbuild.GitSource{URL: g.URL, Filter: filter, Auth: auth, Timeout: GitFetchTimeout, Workspace: r.Workspace}
	src := &gitRefSource{}
	ref := strings.TrimSpace(g.Ref)
	switch {
	case ref == "":
		src.sources = []*kbbuild.GitSource{&base}
	case fullCommit.MatchString(ref):
		s := base
		s.Ref.Commit = strings.ToLower(ref)
		src.sources = []*kbbuild.GitSource{&s}
	case strings.HasPrefix(ref, "refs/heads/"):
		s := base
		s.Ref.Branch = strings.TrimPrefix(ref, "refs/heads/")
		src.sources = []*kbbuild.GitSource{&s}
	case strings.HasPrefix(ref, "refs/tags/"):
		s := base
		s.Ref.Tag = strings.TrimPrefix(ref, "refs/tags/")
		src.sources = []*kbbuild.GitSource{&s}
	default:
		// A bare name is a branch or a tag; branches win, as in git itself.
		branch, tag := base, base
		branch.Ref.Branch, tag.Ref.Tag = ref, ref
		src.sources = []*kbbuild.GitSource{&branch, &tag}
	}
	return src, nil
}

// fullCommit matches a full commit hash.
var fullCommit = regexp.MustCompile(`^[0-9a-fA-F]{40}$`)

// gitRefSource tries a bare ref name as a branch and then as a tag.
type gitRefSource struct {
	sources []*kbbuild.GitSource
}

func (g *gitRefSource) primary() *kbbuild.GitSource { return g.sources[0] }

// Fetch implements kbbuild.Source.
func (g *gitRefSource) Fetch(ctx context.Context, previousRevision string) (*kbbuild.Snapshot, error) {
	var err error
	for _, s := range g.sources {
		var snap *kbbuild.Snapshot
		if snap, err = s.Fetch(ctx, previousRevision); err == nil || !errors.Is(err, kbbuild.ErrRefNotFound) {
			return snap, err
		}
	}
	return nil, err
}

// defaultPaths selects the files of a format when spec.git.paths is unset.
func defaultPaths(f kubagev1alpha1.DocumentFormat) []string {
	switch f {
	case kubagev1alpha1.FormatHTML:
		return []string{"**/*.html", "**/*.htm"}
	case kubagev1alpha1.FormatText:
		return []string{"**/*.txt", "**/*.text"}
	default:
		return []string{"**/*.md", "**/*.markdown"}
	}
}

// embedder builds the OpenAI-compatible embedder of spec.embedding, reusing the previous
// one (and its vector cache) while the Secret's settings stay the same.
func (r *SpecResolver) embedder(ctx context.Context, ks *kubagev1alpha1.KnowledgeSource, kept *keptSource) (retrieval.Embedder, error) {
	e := ks.Spec.Embedding
	data, err := r.secretData(ctx, ks.Namespace, e.SecretRef.Name)
	if err != nil {
		return nil, err
	}
	cfg := retrieval.OpenAIEmbedderConfig{
		BaseURL:    strings.TrimSpace(string(data[kubagev1alpha1.ModelSecretBaseURLKey])),
		Model:      strings.TrimSpace(string(data[kubagev1alpha1.ModelSecretModelKey])),
		APIKey:     strings.TrimSpace(string(data[kubagev1alpha1.ModelSecretAPIKeyKey])),
		Dimensions: int(e.Dimensions),
	}
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, fmt.Errorf("embedding Secret %s needs the keys %s and %s",
			e.SecretRef.Name, kubagev1alpha1.ModelSecretBaseURLKey, kubagev1alpha1.ModelSecretModelKey))
	}
	if err := refusedEndpoint(ctx, cfg.BaseURL); err != nil {
		return nil, err
	}
	key := hashOf(cfg)
	if kept.embedder != nil && kept.embedderKey == key {
		return kept.embedder, nil
	}
	emb, err := retrieval.NewOpenAIEmbedder(cfg)
	if err != nil {
		return nil, serror.NewStalling(kubagev1alpha1.InvalidSpecReason, fmt.Errorf("embedding: %w", err))
	}
	kept.embedder, kept.embedderKey = emb, key
	return emb, nil
}

// MilvusConfig maps spec.store.milvus and its credentials Secret onto a Milvus config
// for vectors of size dim.
func (r *SpecResolver) MilvusConfig(ctx context.Context, ks *kubagev1alpha1.KnowledgeSource, dim int) (*milvus.Config, error) {
	cfg := milvusConfigOf(ks, dim)
	m := ks.Spec.Store.Milvus
	if m.SecretRef != nil {
		data, err := r.secretData(ctx, ks.Namespace, m.SecretRef.Name)
		if err != nil {
			return nil, err
		}
		cfg.Username, cfg.Password, cfg.APIKey = string(data[SecretUsernameKey]), string(data[SecretPasswordKey]), string(data[SecretTokenKey])
	}
	return cfg, nil
}

// RemovalStore is the store a deleted source's chunks are removed from: nil for the
// embedded index, else its Milvus config, with the credentials when they can still be read
// (they may be gone with the namespace; removal is tried without them then).
func (r *SpecResolver) RemovalStore(ctx context.Context, ks *kubagev1alpha1.KnowledgeSource) *milvus.Config {
	if ks.Spec.Store.Type != kubagev1alpha1.StoreMilvus || ks.Spec.Store.Milvus == nil {
		return nil
	}
	dim := 0
	if ks.Spec.Embedding != nil {
		dim = int(ks.Spec.Embedding.Dimensions)
	}
	if cfg, err := r.MilvusConfig(ctx, ks, dim); err == nil {
		return cfg
	}
	return milvusConfigOf(ks, dim)
}

func milvusConfigOf(ks *kubagev1alpha1.KnowledgeSource, dim int) *milvus.Config {
	m := ks.Spec.Store.Milvus
	return &milvus.Config{
		Address:    m.Address,
		DBName:     m.Database,
		Collection: m.Collection,
		Dimension:  dim,
		TLS:        strings.HasPrefix(m.Address, "https://"),
	}
}

// secretData reads a Secret of the source's namespace; a missing one stalls the source.
func (r *SpecResolver) secretData(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	data, err := r.refs.SecretData(ctx, namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, serror.NewStalling(kubagev1alpha1.SecretNotFoundReason, fmt.Errorf("Secret %s not found", name))
	}
	if err != nil {
		return nil, fmt.Errorf("reading Secret %s: %w", name, err)
	}
	return data, nil
}

// hashOf fingerprints a value by its JSON encoding.
func hashOf(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		raw = []byte(fmt.Sprintf("%#v", v))
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}

// egressRecheck is when an endpoint the egress guard refused is looked at again (its name
// may resolve elsewhere later; the guard still checks every dial).
const egressRecheck = 5 * time.Minute

// refusedEndpoint says EgressDenied before any work starts when the egress guard refuses
// the host of endpoint: otherwise each document would fail on its own and the source would
// report IndexFailed, hiding why. A name that does not resolve is left to the run.
func refusedEndpoint(ctx context.Context, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	if err := egress.CheckHost(ctx, u.Hostname()); egress.IsDenied(err) {
		return &serror.Waiting{Reason: kubagev1alpha1.EgressDeniedReason, RequeueAfter: egressRecheck,
			Err: fmt.Errorf("the egress guard refuses the embedding endpoint: %w", err)}
	}
	return nil
}
