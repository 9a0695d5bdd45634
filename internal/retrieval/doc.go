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

// Package retrieval stores knowledge chunks and answers hybrid queries over them.
//
// A query runs up to three ranked "legs" — BM25 over the chunk body, BM25 over
// the chunk's title field (document title, optional description and heading
// path) and, when an embedding model is configured, cosine similarity over dense
// vectors — and fuses them with Reciprocal Rank Fusion (RRF). Results can be
// filtered by domain, source and minimum trust level, expanded with their
// neighbours along the section tree, and always carry what a citation needs:
// source, path, heading path and a stable citation id.
//
// # Why a small inverted index instead of bleve
//
// The BM25 legs use a purpose-built in-memory inverted index (bm25.go) rather
// than bleve. The corpora this operator indexes are small (thousands of chunks),
// the index must be cheap to rebuild on start, and — decisively — the exact same
// analyzer and BM25 weighting must also produce the sparse vectors sent to
// Milvus (package retrieval/milvus), where BM25 weights are computed in Go. A
// single ~300-line index gives deterministic, fully tested scoring with per-leg
// ranks for evaluation, and keeps bleve's large dependency tree (and its
// on-disk segment machinery we would not use) out of the operator binary.
//
// # Stores
//
// Store is the one interface the indexing pipeline (package kbbuild) writes to
// and the Retriever reads from. Embedded is the default: an in-process index
// whose state is rebuilt from the KnowledgeSources on start; it can optionally
// be saved to and loaded from a snapshot file (SaveSnapshot/LoadSnapshot) so a
// restart serves immediately while the sources are re-checked. The Milvus store
// lives in its own package so its SDK stays out of the default build path.
package retrieval
