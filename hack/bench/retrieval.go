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

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kubage/kubage/hack/bench/retrievaleval"
)

func init() {
	sections = append(sections, section{name: "retrieval", run: retrievalBench})
}

// retrievalLatencyQueries is the number of searches behind the latency percentiles (issue 7).
const retrievalLatencyQueries = 10000

// retrievalBench reports quality per leg (body BM25, title BM25, fused), index cost and query latency
// on the shared corpora with the development queries, then per stage (BM25 only, + links, + rerank)
// with Recall@5, MRR@10, nDCG@10 on all queries and on the tune/holdout halves, and p50/p99 latency.
func retrievalBench(ctx context.Context, env *Env) (any, error) {
	shared, err := sharedDir()
	if err != nil {
		return nil, err
	}
	queries, err := retrievaleval.LoadQueries(filepath.Join(shared, "eval", "retrieval-dev.jsonl"))
	if err != nil {
		return nil, err
	}
	cfg := retrievaleval.Config{CorpusRoot: filepath.Join(shared, "corpus"), Corpora: retrievaleval.DefaultCorpora}
	return retrievaleval.Bench(ctx, cfg, queries, retrievalLatencyQueries)
}

// sharedDir is ../shared next to the repository root: the corpora and query files live there.
func sharedDir() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("locating the repository root (git rev-parse --show-toplevel): %w", err)
	}
	dir := filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), "shared")
	for _, need := range []string{"corpus", filepath.Join("eval", "retrieval-dev.jsonl")} {
		if _, err := os.Stat(filepath.Join(dir, need)); err != nil {
			return "", fmt.Errorf("the shared corpora are missing: %s must hold corpus/ and eval/retrieval-dev.jsonl: %w", dir, err)
		}
	}
	return dir, nil
}
