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
	"context"
	"reflect"
	"testing"
)

func rerankFixture() []Hit {
	return []Hit{
		{Chunk: Chunk{ID: "generic", Source: "s", Path: "a.md", DocTitle: "Pods", Text: "Pods run containers. Pods have names."}, Score: 1.0},
		{Chunk: Chunk{ID: "other", Source: "s", Path: "b.md", DocTitle: "Nodes", Text: "Nodes host pods."}, Score: 0.95},
		{Chunk: Chunk{ID: "downward", Source: "s", Path: "c.md", DocTitle: "Downward API", HeadingPath: []string{"Expose pod name as environment variable"},
			Text: "Expose the pod name and namespace to the container as environment variables."}, Score: 0.9},
	}
}

func TestDeterministicRerankerPrefersHeadingAndCoverage(t *testing.T) {
	r := &DeterministicReranker{Blend: -1}
	out, err := r.Rerank(context.Background(), "pod name and namespace as env vars", rerankFixture())
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(out); got[0] != "downward" {
		t.Fatalf("order = %v", got)
	}
	// Blended with the fused order, a first-stage winner is not overturned by a small margin:
	// the result is a mix of both orders, and deterministic.
	b := &DeterministicReranker{}
	o1, _ := b.Rerank(context.Background(), "pod name and namespace as env vars", rerankFixture())
	o2, _ := b.Rerank(context.Background(), "pod name and namespace as env vars", rerankFixture())
	if !reflect.DeepEqual(ids(o1), ids(o2)) || len(o1) != 3 {
		t.Fatalf("blended order not deterministic: %v vs %v", ids(o1), ids(o2))
	}
	if ids(o1)[2] != "other" {
		t.Errorf("blended order = %v: the chunk both orders put below stays last", ids(o1))
	}
}

func TestDeterministicRerankerTrustBreaksTies(t *testing.T) {
	hits := []Hit{
		{Chunk: Chunk{ID: "notes", Source: "notes", Path: "x.md", Text: "restart the kubelet", TrustLevel: 1}, Score: 1},
		{Chunk: Chunk{ID: "runbook", Source: "rb", Path: "x.md", Text: "restart the kubelet", TrustLevel: 5}, Score: 1},
	}
	out, _ := (&DeterministicReranker{Blend: -1}).Rerank(context.Background(), "restart kubelet", hits)
	if ids(out)[0] != "runbook" {
		t.Fatalf("order = %v, want the trusted source first", ids(out))
	}
}

func TestRetrieverRerankStage(t *testing.T) {
	s := linkedStore(t)
	r := &Retriever{Store: s, Reranker: &DeterministicReranker{}}
	resp, err := r.Search(context.Background(), Request{Query: "replace failed disk", TopK: 2})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].Path != "node/DiskFailure.md" {
		t.Fatalf("results = %+v err %v", resp, err)
	}
	// A failing reranker leaves the fused order and says so.
	r.Reranker = failingReranker{}
	resp, err = r.Search(context.Background(), Request{Query: "replace failed disk", TopK: 2})
	if err != nil || len(resp.Results) == 0 || len(resp.Warnings) != 1 {
		t.Fatalf("resp = %+v err %v", resp, err)
	}
}

type failingReranker struct{}

func (failingReranker) Rerank(context.Context, string, []Hit) ([]Hit, error) {
	return nil, context.DeadlineExceeded
}

func TestDeterministicRerankerTitleAndDocumentCoverage(t *testing.T) {
	// Two pages match the query equally well chunk by chunk; one is named after what was
	// asked and covers the rest of the question in another section.
	hits := []Hit{
		{Chunk: Chunk{ID: "lb", Source: "s", Path: "service.md", DocTitle: "Service", Text: "A cloud load balancer sends traffic to nodes."}, Score: 1},
		{Chunk: Chunk{ID: "nodes-1", Source: "s", Path: "nodes.md", DocTitle: "Nodes", Text: "A cloud load balancer sends traffic to nodes."}, Score: 1},
		{Chunk: Chunk{ID: "nodes-2", Source: "s", Path: "nodes.md", DocTitle: "Nodes", Text: "Cordon marks a node unschedulable."}, Score: 0.5},
	}
	w := RerankWeights{Fused: 1, Title: 1, DocCoverage: 1}
	out, err := (&DeterministicReranker{Weights: w, Blend: -1}).Rerank(context.Background(), "cordoned nodes leave the cloud load balancer", hits)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(out); got[0] != "nodes-1" {
		t.Fatalf("order = %v, want the page named after the question and covering all of it first", got)
	}
}

func TestDeterministicRerankerSubject(t *testing.T) {
	// Both pages hold the query's words; one is named after what was asked, the other only
	// mentions it.
	hits := []Hit{
		{Chunk: Chunk{ID: "quota", Source: "s", Path: "quotas.md", DocTitle: "Resource Quotas", Text: "A secret object counts against the quota when the object is too large."}, Score: 1},
		{Chunk: Chunk{ID: "secret", Source: "s", Path: "secret.md", DocTitle: "Secrets", Text: "A secret object is limited in size."}, Score: 0.9},
		{Chunk: Chunk{ID: "nodes", Source: "s", Path: "nodes.md", DocTitle: "Nodes", Text: "A node object that is too large."}, Score: 0.8},
	}
	rr := &DeterministicReranker{Weights: RerankWeights{Fused: 1, Subject: 1}, Blend: -1}
	out, err := rr.Rerank(context.Background(), "secret object too large", hits)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(out); got[0] != "secret" {
		t.Fatalf("order = %v, want the page named after the subject first", got)
	}
	// A title word every candidate holds names nothing: here all three hold "object".
	hits[1].Chunk.DocTitle = "Objects"
	out, _ = rr.Rerank(context.Background(), "object too large", hits)
	if got := ids(out); got[0] != "quota" {
		t.Fatalf("order = %v, want the fused order kept", got)
	}
	// A camelCase title is named by its parts.
	alert := []Hit{
		{Chunk: Chunk{ID: "other", Source: "s", Path: "x.md", DocTitle: "Cluster health", Text: "etcd members down after a reboot"}, Score: 1},
		{Chunk: Chunk{ID: "alert", Source: "s", Path: "etcdMembersDown.md", DocTitle: "etcdMembersDown", Text: "etcd members down after a reboot"}, Score: 0.9},
		{Chunk: Chunk{ID: "unrelated", Source: "s", Path: "y.md", DocTitle: "Volumes", Text: "a reboot"}, Score: 0.5},
	}
	out, _ = rr.Rerank(context.Background(), "etcd members down after reboot", alert)
	if got := ids(out); got[0] != "alert" {
		t.Fatalf("order = %v, want the alert named by its parts first", got)
	}
}
