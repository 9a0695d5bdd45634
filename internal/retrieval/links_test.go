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

package retrieval

import (
	"bytes"
	"context"
	"reflect"
	"testing"
)

// linkedStore: a runbook about disk failure links to one about RAID degradation, which
// shares no words with the query.
func linkedStore(t *testing.T) *Embedded {
	t.Helper()
	s := NewEmbedded(EmbeddedOptions{})
	ctx := context.Background()
	for _, d := range []struct {
		path   string
		chunks []Chunk
	}{
		{"node/DiskFailure.md", []Chunk{
			{ID: "f0", DocTitle: "Disk failure", Text: "A disk of the md array failed; mdadm shows it missing.", NextID: "f1",
				Links: []Link{{Path: "node/Degraded.md", Text: "degraded arrays", Kind: LinkRelated}, {URL: "https://raid.wiki.kernel.org/", Kind: LinkInline}}},
			{ID: "f1", DocTitle: "Disk failure", Text: "Replace the failed disk.", PrevID: "f0", ParentID: "f0"},
		}},
		{"node/Degraded.md", []Chunk{
			{ID: "g0", DocTitle: "Array degraded", Anchor: "meaning", Text: "Rebuild the redundancy before another member goes."},
		}},
		{"node/Unrelated.md", []Chunk{
			{ID: "u0", DocTitle: "Clock skew", Text: "NTP is off by seconds."},
		}},
	} {
		if err := s.ReplaceDocument(ctx, "rb", d.path, "h", d.chunks); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestFollowLinksListsRelatedDocuments(t *testing.T) {
	s := linkedStore(t)
	r := &Retriever{Store: s}
	resp, err := r.Search(context.Background(), Request{Query: "mdadm disk missing from md array", TopK: 1, FollowLinks: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 || resp.Results[0].ChunkID != "f0" || len(resp.Results[0].Links) != 2 {
		t.Fatalf("results = %+v", resp.Results)
	}
	want := []Related{
		{From: "f0", Kind: LinkRelated, LinkText: "degraded arrays", Source: "rb", Path: "node/Degraded.md", Title: "Array degraded",
			ChunkID: "g0", Anchor: "meaning", Text: "Rebuild the redundancy before another member goes."},
		{From: "f0", Kind: LinkInline, URL: "https://raid.wiki.kernel.org/"},
	}
	if !reflect.DeepEqual(resp.Related, want) {
		t.Fatalf("related =\n%+v\nwant\n%+v", resp.Related, want)
	}
	// Without FollowLinks nothing is followed.
	resp, _ = r.Search(context.Background(), Request{Query: "mdadm disk missing from md array", TopK: 1})
	if len(resp.Related) != 0 {
		t.Errorf("related without FollowLinks: %+v", resp.Related)
	}
}

func TestBoostLinkedRaisesLinkedCandidates(t *testing.T) {
	hits := []Hit{
		{Chunk: Chunk{ID: "a", Source: "s", Path: "a.md", Links: []Link{{Path: "c.md", Kind: LinkRelated}}}, Score: 1},
		{Chunk: Chunk{ID: "b", Source: "s", Path: "b.md"}, Score: 0.8},
		{Chunk: Chunk{ID: "c", Source: "s", Path: "c.md"}, Score: 0.7},
		{Chunk: Chunk{ID: "a2", Source: "s", Path: "a.md", Links: []Link{{Path: "b.md", Kind: LinkRelated}}}, Score: 0.6},
	}
	boostLinked(hits, 1, 10, 0.3)
	if got := ids(hits); !reflect.DeepEqual(got, []string{"a", "c", "b", "a2"}) {
		t.Fatalf("order = %v (scores %v %v %v %v)", got, hits[0].Score, hits[1].Score, hits[2].Score, hits[3].Score)
	}
	// Only the best chunk of a linking document counts: a2's link to b gave nothing.
	if hits[2].Score != 0.8 {
		t.Errorf("b boosted by a second chunk of a: %v", hits[2].Score)
	}
}

func TestSnapshotKeepsLinks(t *testing.T) {
	s := linkedStore(t)
	var buf bytes.Buffer
	if err := s.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	r := NewEmbedded(EmbeddedOptions{})
	if err := r.ReadSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	got, _ := r.Get(context.Background(), []string{"f0"})
	if len(got) != 1 || len(got[0].Links) != 2 || got[0].Links[0].Path != "node/Degraded.md" {
		t.Fatalf("restored = %+v", got)
	}
}
