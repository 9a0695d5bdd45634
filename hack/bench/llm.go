package main

import (
	"context"

	"github.com/kubage/kubage/hack/bench/llmbench"
)

func init() {
	sections = append(sections, section{name: "llm", run: llmBench})
}

// llmBench reports prompt tokens and LLM calls per session and the operator's overhead per call,
// against the scripted model (no cluster, no real model).
func llmBench(ctx context.Context, env *Env) (any, error) {
	return llmbench.Run(ctx, llmbench.Options{})
}
