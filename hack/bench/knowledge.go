package main

import (
	"context"
	"path/filepath"

	"github.com/kubage/kubage/hack/bench/retrievaleval"
	"github.com/kubage/kubage/internal/knowledge"
)

func init() {
	sections = append(sections, section{name: "knowledge", run: knowledgeBench})
}

// knowledgeBench indexes the shared corpora through the knowledge Service (docs/s, chunks, peak heap).
func knowledgeBench(ctx context.Context, env *Env) (any, error) {
	shared, err := sharedDir()
	if err != nil {
		return nil, err
	}
	return knowledge.BenchIndex(ctx, filepath.Join(shared, "corpus"), retrievaleval.DefaultCorpora)
}
