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
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kubage/kubage/internal/retrieval"
	"github.com/kubage/kubage/internal/text"
)

// emptyTermID stands in for "no terms": Milvus rejects empty sparse rows.
var emptyTermID = retrieval.TermID("\x00empty")

// toEmbedding converts a sparse vector to the SDK's form.
func toEmbedding(sv retrieval.SparseVector) (entity.SparseEmbedding, error) {
	if len(sv.Indices) == 0 {
		return entity.NewSliceSparseEmbedding([]uint32{emptyTermID}, []float32{1e-6})
	}
	return entity.NewSliceSparseEmbedding(sv.Indices, sv.Values)
}

// fromEmbedding converts back, dropping the empty marker.
func fromEmbedding(e entity.SparseEmbedding) retrieval.SparseVector {
	var sv retrieval.SparseVector
	for i := 0; i < e.Len(); i++ {
		pos, val, ok := e.Get(i)
		if !ok || pos == emptyTermID {
			continue
		}
		sv.Indices = append(sv.Indices, pos)
		sv.Values = append(sv.Values, val)
	}
	return sv
}

// encoder turns chunks into column data.
type encoder struct {
	analyzer         retrieval.Analyzer
	body, title      retrieval.BM25Params
	avgBody, avgTitl float64
	titleDescription bool
	bodyHeadings     bool
	dim              int
	// fields are the scalar fields the collection has (scalarFields unless it is older).
	fields []string
}

func (e *encoder) bodyTerms(c *retrieval.Chunk) []string {
	text := c.Text
	if e.bodyHeadings {
		text = strings.Join(c.HeadingPath, "\n") + "\n" + text
	}
	return e.analyzer.Terms(text)
}

func (e *encoder) titleTerms(c *retrieval.Chunk) []string {
	return e.analyzer.Terms(c.TitleText(e.titleDescription))
}

// sparse returns the chunk's body and title BM25 document vectors.
func (e *encoder) sparse(c *retrieval.Chunk) (body, title retrieval.SparseVector) {
	return retrieval.DocumentSparse(e.bodyTerms(c), e.avgBody, e.body),
		retrieval.DocumentSparse(e.titleTerms(c), e.avgTitl, e.title)
}

// columns builds one column per field for the chunks of one document.
func (e *encoder) columns(source, path, hash string, chunks []retrieval.Chunk) ([]entity.Column, []sparsePair, error) {
	n := len(chunks)
	str := map[string][]string{}
	ints := map[string][]int64{}
	for _, f := range e.fields {
		switch f {
		case FieldOrdinal, FieldTokenCount, FieldTrustLevel:
			ints[f] = make([]int64, n)
		default:
			str[f] = make([]string, n)
		}
	}
	dense := make([][]float32, 0, n)
	bodies := make([]entity.SparseEmbedding, n)
	titles := make([]entity.SparseEmbedding, n)
	pairs := make([]sparsePair, n)
	for i := range chunks {
		c := &chunks[i]
		hp, _ := json.Marshal(c.HeadingPath)
		row := map[string]string{
			FieldID: c.ID, FieldSource: source, FieldPath: path, FieldDocHash: hash, FieldTitle: c.DocTitle,
			FieldDescription: c.DocDescription, FieldHeadingPath: string(hp), FieldAnchor: c.Anchor, FieldText: c.Text,
			FieldParentID: c.ParentID, FieldPrevID: c.PrevID, FieldNextID: c.NextID, FieldDomain: c.Domain,
			FieldVectorModel: c.VectorModel, FieldLinks: linksJSON(c.Links),
		}
		for f, v := range row {
			if _, ok := str[f]; !ok {
				continue // a field this collection does not have
			}
			if f == FieldID && (v == "" || len(v) > maxIDLen) {
				return nil, nil, fmt.Errorf("chunk id %q is empty or longer than %d bytes", v, maxIDLen)
			}
			str[f][i] = text.Clip(v, varcharLimits[f])
		}
		ints[FieldOrdinal][i] = int64(c.Ordinal)
		ints[FieldTokenCount][i] = int64(c.Tokens)
		ints[FieldTrustLevel][i] = int64(c.TrustLevel)
		if e.dim > 0 {
			if len(c.Vector) != e.dim {
				return nil, nil, fmt.Errorf("chunk %s has a %d-dimensional vector, collection expects %d", c.ID, len(c.Vector), e.dim)
			}
			dense = append(dense, c.Vector)
		}
		b, t := e.sparse(c)
		pairs[i] = sparsePair{body: b, title: t}
		var err error
		if bodies[i], err = toEmbedding(b); err != nil {
			return nil, nil, err
		}
		if titles[i], err = toEmbedding(t); err != nil {
			return nil, nil, err
		}
	}
	var cols []entity.Column
	for _, f := range e.fields {
		if v, ok := ints[f]; ok {
			cols = append(cols, entity.NewColumnInt64(f, v))
		} else {
			cols = append(cols, entity.NewColumnVarChar(f, str[f]))
		}
	}
	if e.dim > 0 {
		cols = append(cols, entity.NewColumnFloatVector(FieldDense, e.dim, dense))
	}
	cols = append(cols, entity.NewColumnSparseVectors(FieldBodySparse, bodies), entity.NewColumnSparseVectors(FieldTitleSparse, titles))
	return cols, pairs, nil
}

// linksJSON encodes links within the field's bound, dropping the last ones that do not fit
// (clipping the JSON would make it unreadable).
func linksJSON(links []retrieval.Link) string {
	for n := len(links); n > 0; n = n * 3 / 4 {
		if b, err := json.Marshal(links[:n]); err == nil && len(b) <= maxTextLen {
			return string(b)
		}
	}
	return ""
}

type sparsePair struct {
	body, title retrieval.SparseVector
}

// quote renders a Milvus expression string literal.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// filterExpr renders a retrieval.Filter as a Milvus boolean expression ("" for none).
func filterExpr(f retrieval.Filter) string {
	var parts []string
	if f.MinTrust > 0 {
		parts = append(parts, FieldTrustLevel+" >= "+strconv.Itoa(f.MinTrust))
	}
	if len(f.Domains) > 0 {
		parts = append(parts, FieldDomain+" in "+quoteList(f.Domains))
	}
	if len(f.Sources) > 0 {
		parts = append(parts, FieldSource+" in "+quoteList(f.Sources))
	}
	return strings.Join(parts, " && ")
}

func docExpr(source, path string) string {
	return FieldSource + " == " + quote(source) + " && " + FieldPath + " == " + quote(path)
}

// chunksFromColumns maps result columns back to chunks (vectors are not returned).
func chunksFromColumns(cols client.ResultSet) ([]retrieval.Chunk, error) {
	n := cols.Len()
	out := make([]retrieval.Chunk, n)
	for _, col := range cols {
		for i := 0; i < n; i++ {
			c := &out[i]
			switch col.Name() {
			case FieldOrdinal, FieldTokenCount, FieldTrustLevel:
				v, err := col.GetAsInt64(i)
				if err != nil {
					return nil, fmt.Errorf("field %s: %w", col.Name(), err)
				}
				switch col.Name() {
				case FieldOrdinal:
					c.Ordinal = int(v)
				case FieldTokenCount:
					c.Tokens = int(v)
				default:
					c.TrustLevel = int(v)
				}
			case FieldBodySparse, FieldTitleSparse, FieldDense:
			default:
				v, err := col.GetAsString(i)
				if err != nil {
					return nil, fmt.Errorf("field %s: %w", col.Name(), err)
				}
				setString(c, col.Name(), v)
			}
		}
	}
	return out, nil
}

func setString(c *retrieval.Chunk, field, v string) {
	switch field {
	case FieldID:
		c.ID = v
	case FieldSource:
		c.Source = v
	case FieldPath:
		c.Path = v
	case FieldDocHash:
		c.DocHash = v
	case FieldTitle:
		c.DocTitle = v
	case FieldDescription:
		c.DocDescription = v
	case FieldHeadingPath:
		_ = json.Unmarshal([]byte(v), &c.HeadingPath)
	case FieldAnchor:
		c.Anchor = v
	case FieldText:
		c.Text = v
	case FieldParentID:
		c.ParentID = v
	case FieldPrevID:
		c.PrevID = v
	case FieldNextID:
		c.NextID = v
	case FieldDomain:
		c.Domain = v
	case FieldVectorModel:
		c.VectorModel = v
	case FieldLinks:
		if v != "" {
			_ = json.Unmarshal([]byte(v), &c.Links)
		}
	}
}

// sortedKeys returns map keys in order (deterministic requests for tests and logs).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
