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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/retrieval/milvus"
)

func docs(kv ...string) *kbbuild.ConfigMapSource {
	data := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i]] = kv[i+1]
	}
	return &kbbuild.ConfigMapSource{Data: data}
}

const crashLoop = `# KubePodCrashLooping

## Meaning

Pod is in CrashLoopBackOff: the container keeps exiting and the kubelet restarts it.

## Diagnosis {#diag}

Check the previous container logs with kubectl logs --previous.
`

const diskFull = `# NodeFilesystemSpaceFillingUp

## Meaning

The filesystem of a node is filling up and will run out of space.
`

func mustIndex(t *testing.T, s *Service, cfg SourceConfig) *kbbuild.Stats {
	t.Helper()
	st, err := s.Index(context.Background(), cfg)
	if err != nil {
		t.Fatalf("index %s: %v", cfg.Key(), err)
	}
	return st
}

func TestSearchCitesSourceByNameWithTrust(t *testing.T) {
	ctx := context.Background()
	s := NewService(Options{})
	mustIndex(t, s, SourceConfig{Namespace: "team-a", Name: "runbooks", Labels: map[string]string{"kind": "runbook"},
		TrustLevel: 4, Domain: "kubernetes", Source: docs("alerts/crash.md", crashLoop, "alerts/disk.md", diskFull)})
	mustIndex(t, s, SourceConfig{Namespace: "team-a", Name: "notes", Labels: map[string]string{"kind": "notes"},
		TrustLevel: 1, Source: docs("crash-notes.md", "# Crash notes\n\nCrashLoopBackOff happened once to the cart, we restarted it.\n")})
	mustIndex(t, s, SourceConfig{Namespace: "team-b", Name: "runbooks", TrustLevel: 5,
		Source: docs("crash.md", crashLoop)})

	ans, err := s.Search(ctx, Query{Namespace: "team-a", Text: "pod CrashLoopBackOff keeps restarting"})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Sources != 2 || len(ans.Snippets) == 0 {
		t.Fatalf("answer = %+v", ans)
	}
	for _, sn := range ans.Snippets {
		if sn.Citation.Namespace != "team-a" {
			t.Fatalf("snippet from another namespace: %+v", sn.Citation)
		}
	}
	top := ans.Snippets[0].Citation
	if top.Source != "runbooks" || top.Path != "alerts/crash.md" || top.TrustLevel != 4 {
		t.Fatalf("top citation = %+v", top)
	}
	if !strings.HasPrefix(top.String(), "runbooks:alerts/crash.md") {
		t.Fatalf("citation string = %q", top.String())
	}
	api := top.API()
	if api.Source != "runbooks" || api.Document != "alerts/crash.md" || api.ChunkID == "" {
		t.Fatalf("API citation = %+v", api)
	}

	// A label selector and a trust floor each narrow the sources.
	ans, err = s.Search(ctx, Query{Namespace: "team-a", Text: "CrashLoopBackOff", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"kind": "notes"}}})
	if err != nil || ans.Sources != 1 || len(ans.Snippets) != 1 || ans.Snippets[0].Citation.Source != "notes" {
		t.Fatalf("selector: %+v %v", ans, err)
	}
	ans, err = s.Search(ctx, Query{Namespace: "team-a", Text: "CrashLoopBackOff", MinTrust: 3})
	if err != nil || ans.Sources != 1 {
		t.Fatalf("minTrust: %+v %v", ans, err)
	}
	for _, sn := range ans.Snippets {
		if sn.Citation.Source != "runbooks" {
			t.Fatalf("minTrust let %+v through", sn.Citation)
		}
	}
	// K is bounded.
	ans, err = s.Search(ctx, Query{Namespace: "team-a", Text: "CrashLoopBackOff node filesystem", K: 1000})
	if err != nil || len(ans.Snippets) > MaxK {
		t.Fatalf("K bound: %d snippets, %v", len(ans.Snippets), err)
	}
	if _, err := s.Search(ctx, Query{Namespace: "team-a", Text: "  "}); !errors.Is(err, ErrInvalidQuery) {
		t.Fatalf("empty query: %v", err)
	}
	if _, err := s.Search(ctx, Query{Namespace: "team-a", Text: "x", Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}}); !errors.Is(err, ErrInvalidQuery) {
		t.Fatalf("bad selector: %v", err)
	}
}

func TestUnchangedRevisionIsANoOpUntilSettingsChange(t *testing.T) {
	s := NewService(Options{})
	src := docs("a.md", crashLoop, "b.md", diskFull)
	cfg := SourceConfig{Namespace: "ns", Name: "kb", Source: src, Fingerprint: "v1"}
	first := mustIndex(t, s, cfg)
	if first.Added != 2 || first.Docs != 2 || first.Chunks == 0 {
		t.Fatalf("first = %+v", first)
	}
	again := mustIndex(t, s, cfg)
	if !again.RevisionUnchanged || again.Docs != 2 {
		t.Fatalf("again = %+v", again)
	}
	// A new chunking changes every document's chunks although the revision stayed.
	cfg.Chunking = kbbuild.ChunkOptions{MinTokens: 16, TargetTokens: 32, MaxTokens: 64}
	rechunked := mustIndex(t, s, cfg)
	if rechunked.RevisionUnchanged || rechunked.Updated != 2 {
		t.Fatalf("rechunked = %+v", rechunked)
	}
	// A different source fingerprint (e.g. new paths) reads the source again.
	cfg.Fingerprint = "v2"
	reread := mustIndex(t, s, cfg)
	if reread.RevisionUnchanged || reread.Unchanged != 2 {
		t.Fatalf("reread = %+v", reread)
	}
	// One changed document is the only one re-processed.
	src.Data["b.md"] = diskFull + "\nMore text.\n"
	one := mustIndex(t, s, cfg)
	if one.Updated != 1 || one.Unchanged != 1 || one.Added != 0 {
		t.Fatalf("one = %+v", one)
	}
	info, ok := s.Source("ns", "kb")
	if !ok || info.Revision != one.Revision || info.Stats.Updated != 1 || info.Store != "embedded" {
		t.Fatalf("info = %+v", info)
	}
}

type failingSource struct{ err error }

func (f failingSource) Fetch(context.Context, string) (*kbbuild.Snapshot, error) { return nil, f.err }

func TestFailedIndexKeepsServingTheLastGoodOne(t *testing.T) {
	ctx := context.Background()
	s := NewService(Options{})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "kb", Source: docs("crash.md", crashLoop), Labels: map[string]string{"v": "1"}})
	boom := errors.New("remote hung up")
	if _, err := s.Index(ctx, SourceConfig{Namespace: "ns", Name: "kb", Source: failingSource{boom}, Labels: map[string]string{"v": "2"}}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	var se *StoreError
	if _, err := s.Index(ctx, SourceConfig{Namespace: "ns", Name: "kb", Source: failingSource{boom}, Labels: map[string]string{"v": "2"}}); errors.As(err, &se) {
		t.Fatalf("a source failure is not a store error: %v", err)
	}
	ans, err := s.Search(ctx, Query{Namespace: "ns", Text: "CrashLoopBackOff", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"v": "2"}}})
	if err != nil || len(ans.Snippets) == 0 || ans.Snippets[0].Citation.Path != "crash.md" {
		t.Fatalf("last good index not served with the new labels: %+v %v", ans, err)
	}
	if err := s.Remove(ctx, "ns", "kb", nil); err != nil {
		t.Fatal(err)
	}
	ans, err = s.Search(ctx, Query{Namespace: "ns", Text: "CrashLoopBackOff"})
	if err != nil || len(ans.Snippets) != 0 || s.Embedded().Len() != 0 {
		t.Fatalf("after Remove: %+v %v, %d chunks left", ans, err, s.Embedded().Len())
	}
}

// fakeMilvus stands in for a Milvus connection: an embedded store that counts Close.
type fakeMilvus struct {
	*retrieval.Embedded
	closed *atomic.Int32
	fail   bool
}

func (f fakeMilvus) Close() error { f.closed.Add(1); return nil }

func (f fakeMilvus) Counts(ctx context.Context, source string) (int, int, error) {
	if f.fail {
		return 0, 0, errors.New("milvus: collection not loaded")
	}
	return f.Embedded.Counts(ctx, source)
}

func TestMilvusStoresAreSharedAndMovedBetween(t *testing.T) {
	ctx := context.Background()
	var connects, closed atomic.Int32
	remote := retrieval.NewEmbedded(retrieval.DefaultEmbeddedOptions)
	broken := false
	s := NewService(Options{ConnectMilvus: func(_ context.Context, cfg milvus.Config) (Store, error) {
		if cfg.Address == "down:19530" {
			return nil, errors.New("dial tcp: connection refused")
		}
		connects.Add(1)
		return fakeMilvus{Embedded: remote, closed: &closed, fail: broken}, nil
	}})
	mcfg := &milvus.Config{Address: "milvus:19530", Collection: "kb"}

	var se *StoreError
	if _, err := s.Index(ctx, SourceConfig{Namespace: "ns", Name: "a", Source: docs("crash.md", crashLoop), Milvus: &milvus.Config{Address: "down:19530"}}); !errors.As(err, &se) {
		t.Fatalf("unreachable Milvus: %v", err)
	}

	// Embedded first, then moved to Milvus: the embedded copy goes away.
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "a", Source: docs("crash.md", crashLoop)})
	if s.Embedded().Len() == 0 {
		t.Fatal("nothing in the embedded store")
	}
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "a", Source: docs("crash.md", crashLoop), Milvus: mcfg})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "b", Source: docs("disk.md", diskFull), Milvus: mcfg})
	if s.Embedded().Len() != 0 || remote.Len() == 0 {
		t.Fatalf("embedded %d chunks, milvus %d", s.Embedded().Len(), remote.Len())
	}
	if connects.Load() != 1 {
		t.Fatalf("two sources on one Milvus made %d connections", connects.Load())
	}
	ans, err := s.Search(ctx, Query{Namespace: "ns", Text: "filesystem filling up"})
	if err != nil || len(ans.Snippets) == 0 || ans.Snippets[0].Citation.Source != "b" {
		t.Fatalf("search over Milvus: %+v %v", ans, err)
	}
	if info, _ := s.Source("ns", "b"); !strings.HasPrefix(info.Store, "milvus://milvus:19530/") || strings.Contains(info.Store, "password") {
		t.Fatalf("store key = %q", info.Store)
	}

	// The connection closes when its last source is removed.
	if err := s.Remove(ctx, "ns", "a", nil); err != nil || closed.Load() != 0 {
		t.Fatalf("remove a: %v, closed %d", err, closed.Load())
	}
	if err := s.Remove(ctx, "ns", "b", nil); err != nil || closed.Load() != 1 {
		t.Fatalf("remove b: %v, closed %d", err, closed.Load())
	}
	if remote.Len() != 0 {
		t.Fatalf("%d chunks left in Milvus", remote.Len())
	}

	// A store failing mid-index is a StoreError, not a source failure.
	broken = true
	if _, err := s.Index(ctx, SourceConfig{Namespace: "ns", Name: "c", Source: docs("x.md", crashLoop), Milvus: mcfg}); !errors.As(err, &se) {
		t.Fatalf("failing store: %v", err)
	}
}

func corpusRoot(t testing.TB) string {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(filepath.Join(root, "runbooks")); err != nil {
		t.Skipf("shared corpus not found at %s (the tests read ../shared/corpus next to the checkout): %v", root, err)
	}
	return root
}

func TestCiteForConclusionFindsTheRunbook(t *testing.T) {
	root := corpusRoot(t)
	ctx := context.Background()
	s := NewService(Options{})
	mustIndex(t, s, SourceConfig{Namespace: "shop", Name: "runbooks", TrustLevel: 4,
		Source: &kbbuild.DirSource{Root: filepath.Join(root, "runbooks"), Filter: benchFilter}})

	cases := map[string]struct{ summary, category, want string }{
		"crash loop": {"Container app of pod web-1 exits with code 1 and restarts in CrashLoopBackOff", "CrashLoop", "kubernetes/KubePodCrashLooping.md"},
		"quota":      {"Pods cannot be created: exceeded quota compute-resources", "Quota", "kubernetes/KubeQuotaExceeded.md"},
		"node":       {"Node worker-2 stopped posting status", "Node", "kubernetes/KubeNodeNotReady.md"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cites := s.CiteForConclusion(ctx, "shop", nil, nil, c.summary, c.category)
			if len(cites) == 0 || len(cites) > MaxConclusionCitations {
				t.Fatalf("citations = %+v", cites)
			}
			if cites[0].Path != c.want || cites[0].Source != "runbooks" || cites[0].TrustLevel != 4 {
				t.Fatalf("top citation = %+v, want %s", cites[0], c.want)
			}
			seen := map[string]bool{}
			for _, ci := range cites {
				if seen[ci.Path] {
					t.Fatalf("two citations of %s", ci.Path)
				}
				seen[ci.Path] = true
			}
		})
	}
	if got := s.CiteForConclusion(ctx, "other-namespace", nil, nil, "CrashLoopBackOff", "CrashLoop"); got != nil {
		t.Fatalf("citations across namespaces: %+v", got)
	}
	var nilService *Service
	if got := nilService.CiteForConclusion(ctx, "shop", nil, nil, "x", "CrashLoop"); got != nil {
		t.Fatalf("nil service: %+v", got)
	}
}

func TestBenchIndexRunbooks(t *testing.T) {
	root := corpusRoot(t)
	rep, err := BenchIndex(context.Background(), root, []string{"runbooks"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Docs < 100 || rep.Chunks < rep.Docs || rep.DocsPerSecond <= 0 || rep.PeakHeapBytes == 0 || rep.HeapBytes == 0 {
		t.Fatalf("report = %+v", rep)
	}
}

func TestTrustOrdersEquallyRelevantSources(t *testing.T) {
	s := NewService(Options{})
	for name, trust := range map[string]int{"notes": 1, "vetted": 5, "default": 3} {
		mustIndex(t, s, SourceConfig{Namespace: "ns", Name: name, TrustLevel: trust, Source: docs("crash.md", crashLoop)})
	}
	ans, err := s.Search(context.Background(), Query{Namespace: "ns", Text: "CrashLoopBackOff restarts", PerDocument: 1})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, sn := range ans.Snippets {
		order = append(order, sn.Citation.Source)
	}
	if strings.Join(order, ",") != "vetted,default,notes" {
		t.Fatalf("order = %v", order)
	}
}

// TestBenchReport prints the indexing cost of both shared corpora through the Service as
// JSON. It runs only with KUBAGE_BENCH=1, for `make bench`.
func TestBenchReport(t *testing.T) {
	if os.Getenv("KUBAGE_BENCH") == "" {
		t.Skip("set KUBAGE_BENCH=1 to run the knowledge indexing benchmark")
	}
	rep, err := BenchIndex(context.Background(), corpusRoot(t), []string{"runbooks", "k8s-docs"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(b))
}

func TestCitationEvidenceFitsTheAPI(t *testing.T) {
	c := Citation{Namespace: "shop", Source: "runbooks", Path: strings.Repeat("p/", 700) + "x.md", Anchor: "diagnosis",
		HeadingPath: []string{"KubePodCrashLooping", strings.Repeat("Diagnosis ", 100)}, ChunkID: strings.Repeat("c", 300), TrustLevel: 4}
	ev := c.Evidence("kb-1", nil)
	if ev.ID != "kb-1" || ev.Source.Kind != "Knowledge" || ev.Source.Knowledge == nil || ev.Source.Knowledge.Source != "runbooks" {
		t.Fatalf("evidence = %+v", ev)
	}
	k := ev.Source.Knowledge
	if len(ev.Summary) > 512 || len(k.Document) > 1024 || len(k.HeadingPath) > 512 || len(k.ChunkID) > 128 {
		t.Fatalf("bounds: summary %d, document %d, heading %d, chunk %d", len(ev.Summary), len(k.Document), len(k.HeadingPath), len(k.ChunkID))
	}
	if !strings.HasPrefix(ev.Summary, "Runbook runbooks:p/p/") {
		t.Fatalf("summary = %q", ev.Summary)
	}
}
