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

package milvus

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kubage/kubage/internal/retrieval"
)

func linkedChunks() []retrieval.Chunk {
	cs := testChunks()
	cs[1].Links = []retrieval.Link{
		{Path: "etcd/etcdMembersDown-recovery.md", Anchor: "restore", Text: "restore a member", Kind: retrieval.LinkRelated},
		{URL: "https://etcd.io/docs/", Text: "etcd docs", Kind: retrieval.LinkInline},
	}
	return cs
}

// upsertedColumn returns the string values of one field over every upsert.
func upsertedColumn(m *mockMilvus, field string) []string {
	var out []string
	for _, u := range m.upserts {
		for _, fd := range u.FieldsData {
			if fd.FieldName == field {
				out = append(out, fd.GetScalars().GetStringData().GetData()...)
			}
		}
	}
	return out
}

// The store writes links and the section-tree neighbours (parent, previous, next) with
// every chunk and reads them back from query results.
func TestLinksAndNeighboursRoundTrip(t *testing.T) {
	m, c := startMockMilvus(t, 4)
	s, err := New(context.Background(), c, Config{Collection: testCollection, Dimension: 4})
	if err != nil {
		t.Fatal(err)
	}
	if f := fieldByName(m.created, FieldLinks); f == nil || f.DataType != schemapb.DataType_VarChar {
		t.Fatalf("links field = %+v", f)
	}
	in := linkedChunks()
	if err := s.ReplaceDocument(context.Background(), "ns/kb", "etcd/etcdMembersDown.md", "h1", in); err != nil {
		t.Fatal(err)
	}
	links := upsertedColumn(m, FieldLinks)
	if len(links) != 2 || links[0] != "" {
		t.Fatalf("links column = %q", links)
	}
	var got []retrieval.Link
	if err := json.Unmarshal([]byte(links[1]), &got); err != nil || !reflect.DeepEqual(got, in[1].Links) {
		t.Fatalf("links of c1 = %s (%v)", links[1], err)
	}
	if p, n := upsertedColumn(m, FieldParentID), upsertedColumn(m, FieldNextID); p[1] != "c0" || n[0] != "c1" {
		t.Fatalf("parent ids %q next ids %q", p, n)
	}

	// Reading back: a server answering with the stored columns.
	m.queryResp = func(r *milvuspb.QueryRequest) []*schemapb.FieldData {
		return []*schemapb.FieldData{
			entity.NewColumnVarChar(FieldID, []string{"c1"}).FieldData(),
			entity.NewColumnVarChar(FieldPath, []string{"etcd/etcdMembersDown.md"}).FieldData(),
			entity.NewColumnVarChar(FieldParentID, []string{"c0"}).FieldData(),
			entity.NewColumnVarChar(FieldPrevID, []string{"c0"}).FieldData(),
			entity.NewColumnVarChar(FieldLinks, []string{links[1]}).FieldData(),
		}
	}
	chs, err := s.Get(context.Background(), []string{"c1"})
	if err != nil || len(chs) != 1 {
		t.Fatalf("get = %+v, %v", chs, err)
	}
	if !reflect.DeepEqual(chs[0].Links, in[1].Links) || chs[0].ParentID != "c0" || chs[0].PrevID != "c0" {
		t.Fatalf("read back %+v", chs[0])
	}
	if q := m.queries[len(m.queries)-1]; !contains(q.OutputFields, FieldLinks) {
		t.Errorf("get asks for %v, not the links", q.OutputFields)
	}

	// Following a link lands on the target document's first chunk.
	lead, err := s.LeadChunks(context.Background(), "ns/kb", []string{"etcd/other.md", "etcd/etcdMembersDown.md"})
	if err != nil || len(lead) != 1 || lead[0].ID != "c1" {
		t.Fatalf("lead chunks = %+v, %v", lead, err)
	}
	if q := m.queries[len(m.queries)-1]; q.Expr != `source == "ns/kb" && path in ["etcd/other.md", "etcd/etcdMembersDown.md"] && ordinal == 0` {
		t.Errorf("lead expr = %q", q.Expr)
	}
}

// A collection created before links existed keeps working: no links column is written
// or asked for.
func TestCollectionWithoutLinksField(t *testing.T) {
	m, c := startMockMilvus(t, 0)
	old := BuildSchema(testCollection, 0).ProtoMessage()
	var kept []*schemapb.FieldSchema
	for _, f := range old.Fields {
		if f.Name != FieldLinks {
			kept = append(kept, f)
		}
	}
	old.Fields = kept
	m.mu.Lock()
	m.exists, m.schema = true, old
	m.mu.Unlock()
	s, err := New(context.Background(), c, Config{Collection: testCollection})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceDocument(context.Background(), "ns/kb", "p.md", "h", linkedChunks()); err != nil {
		t.Fatal(err)
	}
	for _, u := range m.upserts {
		for _, fd := range u.FieldsData {
			if fd.FieldName == FieldLinks {
				t.Fatal("links written to a collection without the field")
			}
		}
	}
	if _, err := s.Get(context.Background(), []string{"c1"}); err != nil {
		t.Fatal(err)
	}
	if q := m.queries[len(m.queries)-1]; contains(q.OutputFields, FieldLinks) {
		t.Errorf("get asks for links: %v", q.OutputFields)
	}
}

func TestLinksJSONBounded(t *testing.T) {
	var many []retrieval.Link
	for i := 0; i < 400; i++ {
		many = append(many, retrieval.Link{URL: "https://example.com/" + strings.Repeat("x", 300), Kind: retrieval.LinkInline})
	}
	s := linksJSON(many)
	var back []retrieval.Link
	if len(s) > maxTextLen || json.Unmarshal([]byte(s), &back) != nil || len(back) == 0 || len(back) >= len(many) {
		t.Fatalf("links JSON %d bytes, %d links kept", len(s), len(back))
	}
	if linksJSON(nil) != "" {
		t.Error("no links should store an empty string")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
