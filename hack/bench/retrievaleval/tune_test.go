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

package retrievaleval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
)

// TestTune sweeps the tuning knobs and prints one line per setting. It only runs
// with KUBAGE_TUNE=1 because it rebuilds the index many times.
func TestTune(t *testing.T) {
	if os.Getenv("KUBAGE_TUNE") == "" {
		t.Skip("set KUBAGE_TUNE=1 to sweep retrieval settings")
	}
	dir := sharedDir(t)
	qs, err := LoadQueries(filepath.Join(dir, "eval", "retrieval-dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	chunkings := []kbbuild.ChunkOptions{
		{MinTokens: 96, TargetTokens: 384, MaxTokens: 768},
		{MinTokens: 128, TargetTokens: 512, MaxTokens: 1024},
	}
	for _, ch := range chunkings {
		for _, bh := range []bool{true} {
			for _, noexp := range []bool{true, false} {
				for _, bp := range []retrieval.BM25Params{{K1: 1.2, B: 0.75}, {K1: 0.9, B: 0.4}, {K1: 0.9, B: 0.6}, {K1: 0.6, B: 0.4}} {
					opts := retrieval.EmbeddedOptions{BodyHeadings: bh, Body: bp, MaxChunks: retrieval.DefaultMaxChunks, Analyzer: retrieval.Analyzer{NoExpand: noexp}}
					store, ir, err := Build(ctx, Config{CorpusRoot: filepath.Join(dir, "corpus"), Chunking: ch, Store: opts})
					if err != nil {
						t.Fatal(err)
					}
					for _, k := range []int{5, 10, 15, 20} {
						for _, tw := range []float64{0.3, 0.4, 0.5, 0.6} {
							r := &retrieval.Retriever{Store: store, Fusion: retrieval.Fusion{K: k, Weights: map[retrieval.Leg]float64{retrieval.LegTitle: tw}}}
							m, err := Evaluate(ctx, r, qs, nil, 100, nil)
							if err != nil {
								t.Fatal(err)
							}
							fmt.Printf("chunk=%d/%d/%d bh=%v noexp=%v bp=%.1f/%.2f k=%d tw=%.2f chunks=%d | R5=%.3f R10=%.3f MRR=%.3f nDCG=%.3f\n",
								ch.MinTokens, ch.TargetTokens, ch.MaxTokens, bh, noexp, bp.K1, bp.B, k, tw, ir.Chunks, m.Recall5, m.Recall10, m.MRR10, m.NDCG10)
						}
					}
				}
			}
		}
	}
}
