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
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/protobuf/proto"
	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"github.com/milvus-io/milvus-sdk-go/v2/mocks"
	"github.com/stretchr/testify/mock"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/text"
)

const testCollection = "kb_test"

// mockMilvus runs the SDK's generated MilvusService mock behind a real gRPC
// server on an in-memory listener and records the requests the store sends.
type mockMilvus struct {
	t    *testing.T
	mock *mocks.MilvusServiceServer

	mu        sync.Mutex
	exists    bool
	schema    *schemapb.CollectionSchema // what DescribeCollection answers
	created   *schemapb.CollectionSchema
	indexes   map[string]map[string]string
	upserts   []*milvuspb.UpsertRequest
	deletes   []string
	queries   []*milvuspb.QueryRequest
	hybrid    []*milvuspb.HybridSearchRequest
	queryResp func(*milvuspb.QueryRequest) []*schemapb.FieldData
	hits      []string
}

func ok() *commonpb.Status { return &commonpb.Status{ErrorCode: commonpb.ErrorCode_Success} }

func startMockMilvus(t *testing.T, dim int) (*mockMilvus, client.Client) {
	t.Helper()
	m := &mockMilvus{t: t, mock: &mocks.MilvusServiceServer{}, indexes: map[string]map[string]string{}}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	milvuspb.RegisterMilvusServiceServer(srv, m.mock)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	schema := BuildSchema(testCollection, dim).ProtoMessage()
	e := m.mock.EXPECT()
	e.HasCollection(mock.Anything, mock.Anything).RunAndReturn(func(context.Context, *milvuspb.HasCollectionRequest) (*milvuspb.BoolResponse, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return &milvuspb.BoolResponse{Status: ok(), Value: m.exists}, nil
	}).Maybe()
	e.CreateCollection(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r *milvuspb.CreateCollectionRequest) (*commonpb.Status, error) {
		var s schemapb.CollectionSchema
		if err := proto.Unmarshal(r.Schema, &s); err != nil {
			return nil, err
		}
		m.mu.Lock()
		m.created, m.exists = &s, true
		m.mu.Unlock()
		return ok(), nil
	}).Maybe()
	m.schema = schema
	e.DescribeCollection(mock.Anything, mock.Anything).RunAndReturn(func(context.Context, *milvuspb.DescribeCollectionRequest) (*milvuspb.DescribeCollectionResponse, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return &milvuspb.DescribeCollectionResponse{
			Status: ok(), Schema: m.schema, CollectionName: testCollection, CollectionID: 1, ConsistencyLevel: commonpb.ConsistencyLevel_Bounded,
		}, nil
	}).Maybe()
	e.CreateIndex(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r *milvuspb.CreateIndexRequest) (*commonpb.Status, error) {
		params := map[string]string{}
		for _, kv := range r.ExtraParams {
			params[kv.Key] = kv.Value
		}
		m.mu.Lock()
		m.indexes[r.FieldName] = params
		m.mu.Unlock()
		return ok(), nil
	}).Maybe()
	e.LoadCollection(mock.Anything, mock.Anything).Return(ok(), nil).Maybe()
	e.GetLoadingProgress(mock.Anything, mock.Anything).Return(&milvuspb.GetLoadingProgressResponse{Status: ok(), Progress: 100}, nil).Maybe()
	e.Upsert(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r *milvuspb.UpsertRequest) (*milvuspb.MutationResult, error) {
		m.mu.Lock()
		m.upserts = append(m.upserts, r)
		m.mu.Unlock()
		return &milvuspb.MutationResult{Status: ok(), UpsertCnt: int64(r.NumRows)}, nil
	}).Maybe()
	e.Delete(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r *milvuspb.DeleteRequest) (*milvuspb.MutationResult, error) {
		m.mu.Lock()
		m.deletes = append(m.deletes, r.Expr)
		m.mu.Unlock()
		return &milvuspb.MutationResult{Status: ok()}, nil
	}).Maybe()
	e.Query(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r *milvuspb.QueryRequest) (*milvuspb.QueryResults, error) {
		m.mu.Lock()
		m.queries = append(m.queries, r)
		f := m.queryResp
		m.mu.Unlock()
		var data []*schemapb.FieldData
		if f != nil {
			data = f(r)
		}
		return &milvuspb.QueryResults{Status: ok(), FieldsData: completeColumns(r.OutputFields, data), CollectionName: testCollection}, nil
	}).Maybe()
	e.HybridSearch(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r *milvuspb.HybridSearchRequest) (*milvuspb.SearchResults, error) {
		m.mu.Lock()
		m.hybrid = append(m.hybrid, r)
		hits := m.hits
		m.mu.Unlock()
		return &milvuspb.SearchResults{Status: ok(), CollectionName: testCollection, Results: searchData(hits)}, nil
	}).Maybe()

	c, err := client.NewClient(context.Background(), client.Config{
		Address:     "bufnet",
		DisableConn: true,
		DialOptions: []grpc.DialOption{
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) { return lis.Dial() }),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return m, c
}

// completeColumns adds the requested fields the fake result lacks, as a server
// would: zero values of each field's type, one per row.
func completeColumns(requested []string, data []*schemapb.FieldData) []*schemapb.FieldData {
	rows := 0
	have := map[string]bool{}
	for _, fd := range data {
		have[fd.FieldName] = true
		if sd := fd.GetScalars().GetStringData(); sd != nil {
			rows = len(sd.Data)
		}
	}
	for _, name := range requested {
		if have[name] {
			continue
		}
		switch name {
		case FieldOrdinal, FieldTokenCount, FieldTrustLevel:
			data = append(data, entity.NewColumnInt64(name, make([]int64, rows)).FieldData())
		case FieldBodySparse, FieldTitleSparse:
			vs := make([]entity.SparseEmbedding, rows)
			for i := range vs {
				vs[i], _ = entity.NewSliceSparseEmbedding([]uint32{retrieval.TermID("etcd")}, []float32{1})
			}
			data = append(data, entity.NewColumnSparseVectors(name, vs).FieldData())
		case FieldDense:
		default:
			data = append(data, entity.NewColumnVarChar(name, make([]string, rows)).FieldData())
		}
	}
	return data
}

// searchData builds a one-query search result whose rows are the given chunk ids.
func searchData(ids []string) *schemapb.SearchResultData {
	n := len(ids)
	cols := map[string][]string{}
	for _, f := range scalarFields {
		cols[f] = make([]string, n)
	}
	var fields []*schemapb.FieldData
	scores := make([]float32, n)
	for i, id := range ids {
		cols[FieldID][i] = id
		cols[FieldSource][i] = "ns/kb"
		cols[FieldPath][i] = "etcd/" + id + ".md"
		cols[FieldHeadingPath][i] = `["etcdMembersDown","Meaning"]`
		cols[FieldText][i] = "text of " + id
		cols[FieldTitle][i] = "etcdMembersDown"
		cols[FieldAnchor][i] = "meaning"
		scores[i] = float32(n-i) / 100
	}
	for _, f := range scalarFields {
		switch f {
		case FieldOrdinal, FieldTokenCount, FieldTrustLevel:
			v := make([]int64, n)
			for i := range v {
				v[i] = 4
			}
			fields = append(fields, entity.NewColumnInt64(f, v).FieldData())
		default:
			fields = append(fields, entity.NewColumnVarChar(f, cols[f]).FieldData())
		}
	}
	return &schemapb.SearchResultData{
		NumQueries: 1, TopK: int64(n), FieldsData: fields, Scores: scores, Topks: []int64{int64(n)},
		Ids: &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids}}},
	}
}

func fieldByName(s *schemapb.CollectionSchema, name string) *schemapb.FieldSchema {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func typeParam(f *schemapb.FieldSchema, key string) string {
	for _, kv := range f.TypeParams {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

func TestNewCreatesSchemaAndIndexes(t *testing.T) {
	m, c := startMockMilvus(t, 8)
	if _, err := New(context.Background(), c, Config{Collection: testCollection, Dimension: 8}); err != nil {
		t.Fatal(err)
	}
	s := m.created
	if s == nil || s.Name != testCollection || s.AutoID || s.EnableDynamicField {
		t.Fatalf("schema = %+v", s)
	}
	want := map[string]schemapb.DataType{
		FieldID: schemapb.DataType_VarChar, FieldText: schemapb.DataType_VarChar, FieldTitle: schemapb.DataType_VarChar,
		FieldSource: schemapb.DataType_VarChar, FieldHeadingPath: schemapb.DataType_VarChar, FieldParentID: schemapb.DataType_VarChar,
		FieldTokenCount: schemapb.DataType_Int64, FieldTrustLevel: schemapb.DataType_Int64,
		FieldDense: schemapb.DataType_FloatVector, FieldBodySparse: schemapb.DataType_SparseFloatVector, FieldTitleSparse: schemapb.DataType_SparseFloatVector,
	}
	for name, typ := range want {
		f := fieldByName(s, name)
		if f == nil || f.DataType != typ {
			t.Errorf("field %s = %+v, want type %v", name, f, typ)
		}
	}
	if f := fieldByName(s, FieldID); !f.IsPrimaryKey || f.AutoID || typeParam(f, "max_length") != "64" {
		t.Errorf("primary key = %+v", f)
	}
	if typeParam(fieldByName(s, FieldText), "max_length") != "65535" || typeParam(fieldByName(s, FieldDense), "dim") != "8" {
		t.Error("text max_length or dense dim wrong")
	}
	dense := m.indexes[FieldDense]
	if dense["index_type"] != "HNSW" || dense["metric_type"] != "COSINE" || !strings.Contains(dense["params"], `"M":"16"`) || !strings.Contains(dense["params"], `"efConstruction":"200"`) {
		t.Errorf("dense index = %v", dense)
	}
	for _, f := range []string{FieldBodySparse, FieldTitleSparse} {
		if idx := m.indexes[f]; idx["index_type"] != "SPARSE_INVERTED_INDEX" || idx["metric_type"] != "IP" {
			t.Errorf("%s index = %v", f, idx)
		}
	}
	// A second store on the existing collection creates nothing.
	m.mu.Lock()
	m.created = nil
	m.indexes = map[string]map[string]string{}
	m.mu.Unlock()
	if _, err := New(context.Background(), c, Config{Collection: testCollection, Dimension: 8}); err != nil {
		t.Fatal(err)
	}
	if m.created != nil || len(m.indexes) != 0 {
		t.Error("existing collection was re-created")
	}
}

func TestBuildSchemaWithoutDense(t *testing.T) {
	s := BuildSchema("c", 0)
	for _, f := range s.Fields {
		if f.Name == FieldDense {
			t.Fatal("dense field present without a dimension")
		}
	}
	idx, err := Indexes(0)
	if err != nil || len(idx) != 2 {
		t.Fatalf("indexes = %v err %v", idx, err)
	}
}

func testChunks() []retrieval.Chunk {
	return []retrieval.Chunk{
		{ID: "c0", DocTitle: "etcdMembersDown", HeadingPath: []string{"etcdMembersDown", "Meaning"}, Anchor: "meaning", Text: "One etcd member is down.", Tokens: 6, Domain: "runbooks", TrustLevel: 4, NextID: "c1", Vector: []float32{1, 0, 0, 0}, VectorModel: "m"},
		{ID: "c1", DocTitle: "etcdMembersDown", HeadingPath: []string{"etcdMembersDown", "Mitigation"}, Anchor: "mitigation", Text: "Reboot the \"master\" node.", Tokens: 5, Ordinal: 1, Domain: "runbooks", TrustLevel: 4, PrevID: "c0", ParentID: "c0", Vector: []float32{0, 1, 0, 0}, VectorModel: "m"},
	}
}

func TestReplaceDocumentUpsertsThenDeletesStaleRows(t *testing.T) {
	m, c := startMockMilvus(t, 4)
	s, err := New(context.Background(), c, Config{Collection: testCollection, Dimension: 4, BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceDocument(context.Background(), "ns/kb", `etcd/"x".md`, "h1", testChunks()); err != nil {
		t.Fatal(err)
	}
	if len(m.upserts) != 2 {
		t.Fatalf("upserts = %d, want one per batch of 1", len(m.upserts))
	}
	u := m.upserts[0]
	names := []string{}
	for _, fd := range u.FieldsData {
		names = append(names, fd.FieldName)
	}
	sort.Strings(names)
	if u.NumRows != 1 || len(names) != len(scalarFields)+3 {
		t.Fatalf("upsert rows %d fields %v", u.NumRows, names)
	}
	for _, fd := range u.FieldsData {
		switch fd.FieldName {
		case FieldID:
			if got := fd.GetScalars().GetStringData().GetData(); len(got) != 1 || got[0] != "c0" {
				t.Errorf("id column = %v", got)
			}
		case FieldHeadingPath:
			if got := fd.GetScalars().GetStringData().GetData()[0]; got != `["etcdMembersDown","Meaning"]` {
				t.Errorf("heading path = %s", got)
			}
		case FieldBodySparse:
			sv := fd.GetVectors().GetSparseFloatVector()
			if sv == nil || len(sv.Contents) != 1 || len(sv.Contents[0]) == 0 || len(sv.Contents[0])%8 != 0 {
				t.Errorf("body sparse = %+v", sv)
			}
		case FieldDense:
			if got := fd.GetVectors().GetFloatVector().GetData(); len(got) != 4 || got[0] != 1 {
				t.Errorf("dense = %v", got)
			}
		}
	}
	if len(m.deletes) != 1 || m.deletes[0] != `source == "ns/kb" && path == "etcd/\"x\".md" && id not in ["c0", "c1"]` {
		t.Fatalf("delete exprs = %q", m.deletes)
	}
	// Statistics now know two rows; the query-side IDF reflects them.
	if s.stats.body.n != 2 || s.stats.body.idfByTerm("etcd") >= s.stats.body.idfByTerm("reboot")+1 {
		t.Errorf("stats n=%d", s.stats.body.n)
	}
	bad := testChunks()
	bad[0].Vector = []float32{1}
	if err := s.ReplaceDocument(context.Background(), "ns/kb", "p", "h", bad); err == nil || !strings.Contains(err.Error(), "4") {
		t.Errorf("wrong vector dimension accepted: %v", err)
	}
}

func TestSearchSendsHybridRequestWithRRF(t *testing.T) {
	m, c := startMockMilvus(t, 4)
	s, err := New(context.Background(), c, Config{Collection: testCollection, Dimension: 4})
	if err != nil {
		t.Fatal(err)
	}
	m.hits = []string{"c1", "c0"}
	hits, err := s.Search(context.Background(), retrieval.Query{
		Text: "etcd member down", Vector: []float32{0, 1, 0, 0}, TopK: 5, Candidates: 20,
		Filter: retrieval.Filter{MinTrust: 3, Domains: []string{"runbooks"}}, Fusion: retrieval.Fusion{K: 15},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.hybrid) != 1 {
		t.Fatalf("hybrid requests = %d", len(m.hybrid))
	}
	r := m.hybrid[0]
	rank := map[string]string{}
	for _, kv := range r.RankParams {
		rank[kv.Key] = kv.Value
	}
	if rank["strategy"] != "rrf" || !strings.Contains(rank["params"], `"k":15`) || rank["limit"] != "5" {
		t.Errorf("rank params = %v", rank)
	}
	if len(r.Requests) != 3 {
		t.Fatalf("sub-requests = %d, want dense, body and title", len(r.Requests))
	}
	fields := []string{}
	for _, sub := range r.Requests {
		p := map[string]string{}
		for _, kv := range sub.SearchParams {
			p[kv.Key] = kv.Value
		}
		fields = append(fields, p["anns_field"]+"/"+p["metric_type"]+"/"+p["topk"])
		if sub.Dsl != `trust_level >= 3 && domain in ["runbooks"]` {
			t.Errorf("filter expr = %q", sub.Dsl)
		}
	}
	if strings.Join(fields, ",") != "dense/COSINE/20,body_sparse/IP/20,title_sparse/IP/20" {
		t.Errorf("sub-requests = %v", fields)
	}
	if len(hits) != 2 || hits[0].Chunk.ID != "c1" || hits[0].Chunk.Path != "etcd/c1.md" || hits[0].Chunk.TrustLevel != 4 ||
		len(hits[0].Chunk.HeadingPath) != 2 || hits[0].Score <= hits[1].Score || hits[0].Chunk.Citation() != "ns/kb:etcd/c1.md#meaning" {
		t.Fatalf("hits = %+v", hits)
	}
	// Body leg only, no vector: a single sparse sub-request.
	if _, err := s.Search(context.Background(), retrieval.Query{Text: "etcd", TopK: 3, Legs: []retrieval.Leg{retrieval.LegBody}}); err != nil {
		t.Fatal(err)
	}
	if n := len(m.hybrid[1].Requests); n != 1 {
		t.Errorf("body-only sub-requests = %d", n)
	}
	if _, err := s.Search(context.Background(), retrieval.Query{Vector: []float32{1}, TopK: 3}); err == nil {
		t.Error("wrong query dimension accepted")
	}
}

func TestDocumentHashesAndGetMapResults(t *testing.T) {
	m, c := startMockMilvus(t, 0)
	s, err := New(context.Background(), c, Config{Collection: testCollection, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	pages := [][]string{{"a0", "a1"}, {"b0"}}
	m.queryResp = func(r *milvuspb.QueryRequest) []*schemapb.FieldData {
		page := pages[0]
		if strings.Contains(r.Expr, `id > "a1"`) {
			page = pages[1]
		}
		paths := make([]string, len(page))
		hashes := make([]string, len(page))
		for i, id := range page {
			paths[i] = id[:1] + ".md"
			hashes[i] = "h-" + id[:1]
		}
		return []*schemapb.FieldData{
			entity.NewColumnVarChar(FieldID, page).FieldData(),
			entity.NewColumnVarChar(FieldPath, paths).FieldData(),
			entity.NewColumnVarChar(FieldDocHash, hashes).FieldData(),
		}
	}
	got, err := s.DocumentHashes(context.Background(), "ns/kb")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a.md"] != "h-a" || got["b.md"] != "h-b" {
		t.Fatalf("hashes = %v", got)
	}
	if len(m.queries) != 2 || m.queries[0].Expr != `source == "ns/kb"` || m.queries[1].Expr != `(source == "ns/kb") && id > "a1"` {
		t.Fatalf("paging exprs = %q, %q", m.queries[0].Expr, m.queries[1].Expr)
	}
	docs, chunks, err := s.Counts(context.Background(), "ns/kb")
	if err != nil || docs != 2 || chunks != 3 {
		t.Fatalf("counts %d/%d err %v", docs, chunks, err)
	}
	chs, err := s.Get(context.Background(), []string{"a0"})
	if err != nil || len(chs) == 0 || chs[0].ID != "a0" {
		t.Fatalf("get = %+v err %v", chs, err)
	}
	if last := m.queries[len(m.queries)-1]; last.Expr != `id in ["a0"]` {
		t.Errorf("get expr = %q", last.Expr)
	}
}

func TestEncodingHelpers(t *testing.T) {
	if got := filterExpr(retrieval.Filter{}); got != "" {
		t.Errorf("empty filter = %q", got)
	}
	if got := filterExpr(retrieval.Filter{Sources: []string{`a"b`}}); got != `source in ["a\"b"]` {
		t.Errorf("escaped filter = %q", got)
	}
	if got := text.Clip("héllo", 2); got != "h" {
		t.Errorf("clip = %q", got)
	}
	sv := retrieval.SparseVector{Indices: []uint32{3, 9}, Values: []float32{0.5, 1.5}}
	e, err := toEmbedding(sv)
	if err != nil {
		t.Fatal(err)
	}
	if back := fromEmbedding(e); len(back.Indices) != 2 || back.Values[1] != 1.5 {
		t.Errorf("round trip = %+v", back)
	}
	empty, _ := toEmbedding(retrieval.SparseVector{})
	if empty.Len() != 1 || len(fromEmbedding(empty).Indices) != 0 {
		t.Error("empty sparse vector should carry only the marker")
	}
	ts := newTermStats()
	if ts.idfByTerm("x") != 1 {
		t.Error("idf without statistics should be 1")
	}
	ts.add(retrieval.SparseVector{Indices: []uint32{retrieval.TermID("x")}})
	ts.add(retrieval.SparseVector{})
	if ts.idfByTerm("x") >= ts.idfByTerm("y") {
		t.Error("a rarer term should weigh more")
	}
	ts.remove(retrieval.SparseVector{Indices: []uint32{retrieval.TermID("x")}})
	if len(ts.df) != 0 || ts.n != 1 {
		t.Errorf("after remove: %+v", ts)
	}
}

// TestLiveMilvus runs against a real server when MILVUS_ADDRESS is set.
func TestLiveMilvus(t *testing.T) {
	addr := os.Getenv("MILVUS_ADDRESS")
	if addr == "" {
		t.Skip("MILVUS_ADDRESS not set: no Milvus server in this environment (the mock-server tests above cover the requests)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Connect(ctx, Config{Address: addr, Collection: "kubage_test_" + time.Now().Format("150405"), Dimension: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if err := s.ReplaceDocument(ctx, "ns/kb", "etcd.md", "h1", testChunks()); err != nil {
		t.Fatal(err)
	}
	var hits []retrieval.Hit
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && len(hits) == 0 {
		hits, err = s.Search(ctx, retrieval.Query{Text: "reboot master", Vector: []float32{0, 1, 0, 0}, TopK: 2})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(hits) == 0 || hits[0].Chunk.ID != "c1" {
		t.Fatalf("hits = %+v", hits)
	}
	if err := s.DeleteSource(ctx, "ns/kb"); err != nil {
		t.Fatal(err)
	}
}
