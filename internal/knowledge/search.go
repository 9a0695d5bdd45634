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
	"errors"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/text"
)

// Bounds of a search.
const (
	// DefaultK is how many snippets a search returns when Query.K is not set.
	DefaultK = 5
	// MaxK bounds Query.K.
	MaxK = 10
	// MaxQueryBytes bounds the query text; longer text is cut.
	MaxQueryBytes = 2000
	// MaxSnippetBytes bounds the text of one snippet.
	MaxSnippetBytes = 2000
)

// Query is one knowledge search on behalf of a session.
type Query struct {
	// Namespace confines the search to the KnowledgeSources of one namespace; required.
	Namespace string
	// Selector picks KnowledgeSources by label (a Troubleshoot's spec.knowledgeSources);
	// nil selects every source of the namespace.
	Selector *metav1.LabelSelector
	// Text is the question or the symptom in plain words; required.
	Text string
	// MinTrust keeps sources with at least this trust level (1–5); 0 keeps all.
	MinTrust int
	// Domain keeps chunks of one domain, e.g. "kubernetes"; empty keeps all.
	Domain string
	// K bounds the snippets returned: DefaultK when zero, at most MaxK.
	K int
	// PerDocument caps snippets from one document; 0 means no cap.
	PerDocument int
	// Expand attaches this many neighbouring chunks on each side of a snippet, plus its
	// parent section (at most retrieval.MaxExpand), so a step arrives with its context.
	Expand int
	// FollowLinks follows the links of this many top snippets one hop and lists the
	// linked pages in Answer.Related (at most retrieval.MaxFollow).
	FollowLinks int
	// RerankModel, when set, lets the session's chat model reorder the best candidates
	// (bounded, falling back to the deterministic order). It never leaves the process.
	RerankModel *RerankModel `json:"-"`
	// Scopes, when set, replace Selector, Domain and MinTrust: each scope is searched on
	// its own (at most its TopK snippets) and the answers are interleaved by rank.
	Scopes []Scope
}

// Citation points at one indexed chunk of a KnowledgeSource.
type Citation struct {
	// Namespace and Source name the KnowledgeSource.
	Namespace string `json:"namespace"`
	Source    string `json:"source"`
	// Path is the document's path inside the source (a file path or a URL).
	Path string `json:"path"`
	// Anchor is the section's anchor in the document, if any.
	Anchor      string   `json:"anchor,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	ChunkID     string   `json:"chunkID"`
	// TrustLevel is the KnowledgeSource's trust level, 1–5.
	TrustLevel int `json:"trustLevel"`
	// URL links to the document when its path is a URL.
	URL string `json:"url,omitempty"`
	// LinkedFrom is set on a related page: the citation of the section that links to it.
	LinkedFrom string `json:"linkedFrom,omitempty"`
}

// String renders the citation as "source:path#anchor" with the KnowledgeSource name.
func (c Citation) String() string {
	return retrieval.CitationID(c.Source, c.Path, c.Anchor)
}

// API converts the citation to the Troubleshoot status type, within its field bounds.
func (c Citation) API() kubagev1alpha1.KnowledgeCitation {
	return kubagev1alpha1.KnowledgeCitation{
		Source:      text.Clip(c.Source, 253),
		ChunkID:     text.Clip(c.ChunkID, 128),
		Document:    text.Clip(c.Path, 1024),
		HeadingPath: text.Clip(strings.Join(c.HeadingPath, " > "), 512),
		URL:         text.Clip(c.URL, 2048),
	}
}

// Snippet is one retrieved chunk with its citation.
type Snippet struct {
	Citation Citation `json:"citation"`
	// Title is the document title.
	Title string `json:"title,omitempty"`
	// Text is the chunk text, at most MaxSnippetBytes.
	Text string `json:"text"`
	// Score is the fused retrieval score weighed by the source's trust level; higher is
	// better, comparable within one answer only.
	Score float64 `json:"score"`
	// Context holds the surrounding chunks (parent section, previous and next steps) when
	// the query asked for expansion.
	Context []Passage `json:"context,omitempty"`
	// Summary is an extractive summary of Text (at most MaxSummaryTokens), what enters a prompt.
	Summary string `json:"summary,omitempty"`
	// Copyright is the source's notice; Quotable is false when only the title, the link
	// and one sentence of the passage may be shown (Text then holds that sentence).
	Copyright string `json:"copyright,omitempty"`
	Quotable  bool   `json:"quotable"`
}

// Passage is a chunk next to a snippet along its document's section tree.
type Passage struct {
	// Relation is "parent", "prev" or "next".
	Relation    string   `json:"relation"`
	HeadingPath []string `json:"headingPath,omitempty"`
	// Text is at most MaxContextBytes.
	Text string `json:"text"`
}

// MaxContextBytes bounds the text of one context passage.
const MaxContextBytes = 800

// RelatedPage is a page a snippet links to: a document of the same KnowledgeSource, or
// an outside URL.
type RelatedPage struct {
	// Citation names the linked document (its first section); only URL is set for an
	// outside link.
	Citation Citation `json:"citation"`
	Title    string   `json:"title,omitempty"`
	// Text is the start of the linked document, at most MaxContextBytes.
	Text string `json:"text,omitempty"`
	// Kind is where the link was found: "related" (a What's next / See also list),
	// "frontmatter" or "inline".
	Kind     string `json:"kind"`
	LinkText string `json:"linkText,omitempty"`
	// From is the citation of the snippet that links here.
	From string `json:"from"`
	// Copyright and Quotable are the linked page's source policy, as on Snippet.
	Copyright string `json:"copyright,omitempty"`
	Quotable  bool   `json:"quotable"`
}

// Answer is the outcome of a search.
type Answer struct {
	Snippets []Snippet `json:"snippets"`
	// Related lists pages the top snippets link to (Query.FollowLinks).
	Related []RelatedPage `json:"related,omitempty"`
	// Sources is how many KnowledgeSources were searched.
	Sources int `json:"sources"`
	// Warnings explain degraded answers (an embedding endpoint or a store failing).
	Warnings []string `json:"warnings,omitempty"`
}

// ErrInvalidQuery marks a query that cannot run.
var ErrInvalidQuery = errors.New("invalid knowledge query")

// searchGroup is a set of sources searched together: same store, same embedding model.
type searchGroup struct {
	store    *storeHandle
	embedder retrieval.Embedder
	sources  []string
}

// Search finds the chunks that best answer q among the KnowledgeSources of its namespace
// that match its selector. Sources in different stores or with different embedding
// models are searched separately and their rankings interleaved by rank; a failing store
// becomes a warning as long as another one answered.
func (s *Service) Search(ctx context.Context, q Query) (*Answer, error) {
	if q.Namespace == "" {
		return nil, fmt.Errorf("%w: a namespace is required", ErrInvalidQuery)
	}
	if len(q.Scopes) > 0 {
		return s.searchScopes(ctx, q)
	}
	query := strings.TrimSpace(text.Clip(q.Text, MaxQueryBytes))
	if query == "" {
		return nil, fmt.Errorf("%w: the query text is empty", ErrInvalidQuery)
	}
	sel := labels.Everything()
	if q.Selector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(q.Selector); err != nil {
			return nil, fmt.Errorf("%w: selector: %v", ErrInvalidQuery, err)
		}
	}
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	k = min(k, MaxK)
	q.Text, q.K = query, k
	reranker, rerankKey := s.reranker(q.RerankModel)
	ckey := cacheKey(withoutModel(q), rerankKey)
	if ans, ok := s.cached(ckey); ok {
		return ans, nil
	}
	gen := s.gen.Load()

	groups, trust := s.groups(q.Namespace, sel, q.MinTrust, q.Domain)
	defer func() {
		for _, g := range groups {
			s.release(g.store)
		}
	}()
	ans := &Answer{Snippets: []Snippet{}}
	type ranked struct {
		res  retrieval.Result
		rank int
	}
	var all []ranked
	var related []retrieval.Related
	var relFrom []string
	failures := 0
	for _, g := range groups {
		ans.Sources += len(g.sources)
		// Trust weighs the fused scores before reranking, so the reranker sees (and keeps)
		// the order in which equally relevant passages of more trusted sources come first.
		r := &retrieval.Retriever{Store: g.store.store, Embedder: g.embedder, Fusion: s.opts.Fusion, Reranker: reranker,
			TrustOf: func(source string) int { return trust[source] }}
		req := retrieval.Request{Query: query, TopK: k, Sources: g.sources, MinTrust: q.MinTrust, PerDocument: q.PerDocument,
			Expand: q.Expand, FollowLinks: q.FollowLinks}
		if q.Domain != "" {
			req.Domains = []string{q.Domain}
		}
		resp, err := r.Search(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			failures++
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("store %s: %v", g.store.key, err))
			continue
		}
		ans.Warnings = append(ans.Warnings, resp.Warnings...)
		fromCitation := map[string]string{}
		for _, res := range resp.Results {
			fromCitation[res.ChunkID] = citationOf(res.Source, res.Path, res.Anchor).String()
		}
		for _, rel := range resp.Related {
			related = append(related, rel)
			relFrom = append(relFrom, fromCitation[rel.From])
		}
		sort.SliceStable(resp.Results, func(i, j int) bool { return resp.Results[i].Score > resp.Results[j].Score })
		for i, res := range resp.Results {
			all = append(all, ranked{res: res, rank: i})
		}
	}
	if failures > 0 && failures == len(groups) {
		return nil, &StoreError{Err: errors.New(strings.Join(ans.Warnings, "; "))}
	}
	// Scores of different stores are not comparable; ranks are.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].rank != all[j].rank {
			return all[i].rank < all[j].rank
		}
		return all[i].res.Score > all[j].res.Score
	})
	shown := map[string]bool{}
	pol := s.policies(trust)
	for _, r := range all[:min(k, len(all))] {
		sn := snippetOf(r.res, trust)
		pol[r.res.Source].limit(&sn, query)
		ans.Snippets = append(ans.Snippets, sn)
		shown[r.res.Source+"\x00"+r.res.Path] = true
	}
	for i, rel := range related {
		if len(ans.Related) == retrieval.MaxRelated {
			break
		}
		if rel.Path != "" && shown[rel.Source+"\x00"+rel.Path] {
			continue
		}
		if rel.Path != "" {
			shown[rel.Source+"\x00"+rel.Path] = true
		}
		rp := relatedPageOf(rel, relFrom[i], trust)
		pol[rel.Source].limitRelated(&rp)
		ans.Related = append(ans.Related, rp)
	}
	if failures == 0 {
		s.remember(ckey, gen, ans)
	}
	return ans, nil
}

// withoutModel drops the model's client from a query before it becomes a cache key
// (the model is keyed by the digest of its ID).
func withoutModel(q Query) Query {
	q.RerankModel = nil
	return q
}

// citationOf builds the citation of a chunk of source ("namespace/name").
func citationOf(source, path, anchor string) Citation {
	ns, name, _ := strings.Cut(source, "/")
	c := Citation{Namespace: ns, Source: name, Path: path, Anchor: anchor}
	if strings.HasPrefix(path, "https://") || strings.HasPrefix(path, "http://") {
		c.URL = path
		if anchor != "" && !strings.Contains(path, "#") {
			c.URL += "#" + anchor
		}
	}
	return c
}

func relatedPageOf(r retrieval.Related, from string, trust map[string]int) RelatedPage {
	p := RelatedPage{Kind: string(r.Kind), LinkText: text.Clip(r.LinkText, 200), From: from, Title: r.Title, Text: text.Clip(r.Text, MaxContextBytes)}
	if r.Path == "" {
		p.Citation = Citation{URL: text.Clip(r.URL, 2048)}
		return p
	}
	p.Citation = citationOf(r.Source, r.Path, r.Anchor)
	p.Citation.ChunkID, p.Citation.HeadingPath, p.Citation.TrustLevel = r.ChunkID, r.HeadingPath, trust[r.Source]
	return p
}

// groups selects the searchable sources and splits them by store and embedding model.
// The returned stores are acquired; the caller releases them.
func (s *Service) groups(namespace string, sel labels.Selector, minTrust int, domain string) ([]*searchGroup, map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	trust := map[string]int{}
	byKey := map[string]*searchGroup{}
	var out []*searchGroup
	keys := make([]string, 0, len(s.sources))
	for key := range s.sources {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		e := s.sources[key]
		if e.namespace != namespace || !sel.Matches(labels.Set(e.labels)) || e.trust < minTrust || (domain != "" && e.domain != domain) {
			continue
		}
		trust[key] = e.trust
		model := ""
		if e.embedder != nil {
			model = e.embedder.Model()
		}
		gk := e.store.key + "\x00" + model
		g := byKey[gk]
		if g == nil {
			g = &searchGroup{store: e.store, embedder: e.embedder}
			e.store.inUse++
			byKey[gk] = g
			out = append(out, g)
		}
		g.sources = append(g.sources, key)
	}
	return out, trust
}

// snippetOf turns a retrieval result into a bounded snippet with its citation.
func snippetOf(r retrieval.Result, trust map[string]int) Snippet {
	c := citationOf(r.Source, r.Path, r.Anchor)
	c.HeadingPath, c.ChunkID, c.TrustLevel = r.HeadingPath, r.ChunkID, trust[r.Source]
	sn := Snippet{Citation: c, Title: r.Title, Text: text.Clip(r.Text, MaxSnippetBytes), Score: r.Score}
	for _, n := range r.Neighbours {
		sn.Context = append(sn.Context, Passage{Relation: n.Relation, HeadingPath: n.HeadingPath, Text: text.Clip(n.Text, MaxContextBytes)})
	}
	return sn
}
