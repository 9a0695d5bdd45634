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

// Package milvus is the retrieval.Store for knowledge bases that outgrow one
// operator process. It keeps every chunk in one Milvus collection with a dense
// vector (HNSW, cosine) and two sparse vectors (body and title) holding BM25
// weights computed in Go with the same analyzer as the embedded store, and
// answers queries with one HybridSearch fused by Milvus' RRF reranker.
//
// The package lives apart from package retrieval so the Milvus SDK (gRPC,
// protobufs, cockroachdb/errors) is only linked into binaries that use it.
//
// BM25 in Milvus: a chunk's sparse vector holds each term's saturated term
// frequency (normalised against a configured expected field length); the
// query's sparse vector holds each term's IDF. Their inner product is the BM25
// score. IDF needs document frequencies, which this store keeps in memory:
// updated by every write it makes and rebuilt from the collection by
// WarmStats. Until statistics exist, every query term weighs 1.
//
// Limits: Milvus' RRF reranker has no per-leg weights, so Fusion.Weights is
// ignored (Fusion.K is honoured), and hits carry no per-leg ranks.
package milvus

import (
	"fmt"

	"github.com/milvus-io/milvus-sdk-go/v2/entity"
)

// Field names of the collection.
const (
	FieldID          = "id"
	FieldSource      = "source"
	FieldPath        = "path"
	FieldDocHash     = "doc_hash"
	FieldTitle       = "title"
	FieldDescription = "description"
	FieldHeadingPath = "heading_path"
	FieldAnchor      = "anchor"
	FieldText        = "text"
	FieldParentID    = "parent_id"
	FieldPrevID      = "prev_id"
	FieldNextID      = "next_id"
	FieldOrdinal     = "ordinal"
	FieldTokenCount  = "token_count"
	FieldDomain      = "domain"
	FieldTrustLevel  = "trust_level"
	FieldVectorModel = "vector_model"
	// FieldLinks holds the chunk's links as JSON; collections created before it existed
	// lack it and are written and read without links.
	FieldLinks       = "links"
	FieldDense       = "dense"
	FieldBodySparse  = "body_sparse"
	FieldTitleSparse = "title_sparse"
)

// VarChar bounds (bytes). Milvus rejects longer values, so writes truncate to them.
const (
	maxIDLen      = 64
	maxShortLen   = 512
	maxPathLen    = 2048
	maxHeadingLen = 4096
	maxTextLen    = 65535
)

var varcharLimits = map[string]int{
	FieldID: maxIDLen, FieldSource: maxShortLen, FieldPath: maxPathLen, FieldDocHash: 128,
	FieldTitle: maxShortLen * 2, FieldDescription: maxHeadingLen, FieldHeadingPath: maxHeadingLen,
	FieldAnchor: maxShortLen, FieldText: maxTextLen, FieldParentID: maxIDLen, FieldPrevID: maxIDLen,
	FieldNextID: maxIDLen, FieldDomain: maxShortLen, FieldVectorModel: maxShortLen, FieldLinks: maxTextLen,
}

// scalarFields are returned with every hit.
var scalarFields = []string{
	FieldID, FieldSource, FieldPath, FieldDocHash, FieldTitle, FieldDescription, FieldHeadingPath, FieldAnchor,
	FieldText, FieldParentID, FieldPrevID, FieldNextID, FieldOrdinal, FieldTokenCount, FieldDomain,
	FieldTrustLevel, FieldVectorModel, FieldLinks,
}

// fieldsWithout returns scalarFields less the named ones (for collections of an older schema).
func fieldsWithout(drop ...string) []string {
	out := make([]string, 0, len(scalarFields))
	for _, f := range scalarFields {
		keep := true
		for _, d := range drop {
			keep = keep && f != d
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

// BuildSchema returns the collection schema. dim is the dense vector size; 0
// leaves the dense field out (a knowledge base without an embedding model).
func BuildSchema(collection string, dim int) *entity.Schema {
	s := entity.NewSchema().WithName(collection).
		WithDescription("KubAge knowledge chunks").
		WithAutoID(false).
		WithDynamicFieldEnabled(false)
	for _, name := range scalarFields {
		f := entity.NewField().WithName(name)
		switch name {
		case FieldOrdinal, FieldTokenCount, FieldTrustLevel:
			f = f.WithDataType(entity.FieldTypeInt64)
		default:
			f = f.WithDataType(entity.FieldTypeVarChar).WithMaxLength(int64(varcharLimits[name]))
		}
		if name == FieldID {
			f = f.WithIsPrimaryKey(true).WithIsAutoID(false)
		}
		s = s.WithField(f)
	}
	if dim > 0 {
		s = s.WithField(entity.NewField().WithName(FieldDense).WithDataType(entity.FieldTypeFloatVector).WithDim(int64(dim)))
	}
	s = s.WithField(entity.NewField().WithName(FieldBodySparse).WithDataType(entity.FieldTypeSparseVector))
	s = s.WithField(entity.NewField().WithName(FieldTitleSparse).WithDataType(entity.FieldTypeSparseVector))
	return s
}

// HNSW build parameters for the dense index.
const (
	hnswM              = 16
	hnswEfConstruction = 200
	hnswEf             = 128
)

// Indexes returns the index to create on each vector field.
func Indexes(dim int) (map[string]entity.Index, error) {
	out := map[string]entity.Index{}
	if dim > 0 {
		idx, err := entity.NewIndexHNSW(entity.COSINE, hnswM, hnswEfConstruction)
		if err != nil {
			return nil, fmt.Errorf("dense index: %w", err)
		}
		out[FieldDense] = idx
	}
	for _, f := range []string{FieldBodySparse, FieldTitleSparse} {
		// dropRatio 0: keep every term weight; BM25 vectors are short already.
		idx, err := entity.NewIndexSparseInverted(entity.IP, 0)
		if err != nil {
			return nil, fmt.Errorf("sparse index: %w", err)
		}
		out[f] = idx
	}
	return out, nil
}
