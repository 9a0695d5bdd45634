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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/retrieval"
)

func init() {
	registerCommand(newKBBuildCommand)
}

// Environment variables of `kubage kbbuild`, so credentials stay out of shell history.
const (
	envGitUsername      = "KUBAGE_GIT_USERNAME"
	envGitPassword      = "KUBAGE_GIT_PASSWORD"
	envEmbeddingBaseURL = "KUBAGE_EMBEDDING_BASE_URL"
	envEmbeddingModel   = "KUBAGE_EMBEDDING_MODEL"
	envEmbeddingAPIKey  = "KUBAGE_EMBEDDING_API_KEY"
)

// kbbuildOptions are the flags of `kubage kbbuild`.
type kbbuildOptions struct {
	ref        string
	paths      []string
	exclude    []string
	format     string
	domain     string
	chunking   kbbuild.ChunkOptions
	queries    []string
	k          int
	showChunks []string
	jsonOut    bool
	timeout    time.Duration
}

// newKBBuildCommand returns `kubage kbbuild`, which indexes a directory or a git
// repository the way the operator indexes a KnowledgeSource, prints what it found and
// answers queries, for tuning runbooks before they are applied.
func newKBBuildCommand() *cobra.Command {
	o := kbbuildOptions{}
	cmd := &cobra.Command{
		Use:   "kbbuild <directory | git URL>",
		Short: "Index a directory or git repository like a KnowledgeSource and answer test queries",
		Long: `Index a directory or git repository with the operator's own pipeline (same parser,
chunker, BM25 and fusion settings) and print documents, chunks and failures; then
answer each --query with cited snippets, as the knowledge_search tool would.

Git credentials come from ` + envGitUsername + ` and ` + envGitPassword + `; dense vectors
from an OpenAI-compatible endpoint when ` + envEmbeddingBaseURL + ` and ` + envEmbeddingModel + `
(and optionally ` + envEmbeddingAPIKey + `) are set.`,
		Example: `  kubage kbbuild ./runbooks -q KubePodCrashLooping -q "pod stuck in ContainerCreating"
  kubage kbbuild https://github.com/prometheus-operator/runbooks --ref main --paths 'content/**/*.md' --json
  kubage kbbuild ./runbooks --show-chunks kubernetes/KubePodCrashLooping.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), o.timeout)
			defer cancel()
			return runKBBuild(ctx, args[0], o, os.Getenv, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.ref, "ref", "", "Git branch, tag or full commit hash; the remote's default branch when empty.")
	f.StringSliceVar(&o.paths, "paths", nil, "Glob patterns of files to index, e.g. 'runbooks/**/*.md'; all files of the format when empty.")
	f.StringSliceVar(&o.exclude, "exclude", nil, "Glob patterns of files to leave out.")
	f.StringVar(&o.format, "format", string(kbbuild.FormatMarkdown), "Document format: Markdown, HTML or Text.")
	f.StringVar(&o.domain, "domain", "", "Domain label attached to every chunk.")
	f.IntVar(&o.chunking.MinTokens, "min-tokens", kbbuild.DefaultChunking.MinTokens, "Chunks smaller than this are merged with a neighbour.")
	f.IntVar(&o.chunking.TargetTokens, "target-tokens", kbbuild.DefaultChunking.TargetTokens, "Size the chunker aims for.")
	f.IntVar(&o.chunking.MaxTokens, "max-tokens", kbbuild.DefaultChunking.MaxTokens, "Hard upper bound of a chunk.")
	f.StringArrayVarP(&o.queries, "query", "q", nil, "A query to answer after indexing; repeatable.")
	f.IntVarP(&o.k, "k", "k", knowledge.DefaultK, "Snippets per query (at most 10).")
	f.StringArrayVar(&o.showChunks, "show-chunks", nil, "Print every chunk of this document (path inside the source); repeatable.")
	f.BoolVar(&o.jsonOut, "json", false, "Print one JSON object instead of text.")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "Give up after this long.")
	return cmd
}

// kbbuildReport is the --json output.
type kbbuildReport struct {
	Source   string                    `json:"source"`
	Revision string                    `json:"revision"`
	Docs     int                       `json:"documents"`
	Chunks   int                       `json:"chunks"`
	Failed   []kbbuild.DocumentError   `json:"failed,omitempty"`
	Warnings []kbbuild.DocumentError   `json:"warnings,omitempty"`
	Duration string                    `json:"duration"`
	Answers  []kbbuildAnswer           `json:"answers,omitempty"`
	Chunked  map[string][]kbbuildChunk `json:"chunks_of,omitempty"`
}

type kbbuildAnswer struct {
	Query    string              `json:"query"`
	Snippets []knowledge.Snippet `json:"snippets"`
	Warnings []string            `json:"warnings,omitempty"`
}

type kbbuildChunk struct {
	ID          string   `json:"id"`
	HeadingPath []string `json:"headingPath"`
	Anchor      string   `json:"anchor,omitempty"`
	Tokens      int      `json:"tokens"`
	Text        string   `json:"text"`
}

// looksLikeGitURL matches the URL forms GitSource accepts.
var looksLikeGitURL = regexp.MustCompile(`^((https?|ssh|file)://|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:)`)

// kbbuildNamespace is the namespace the CLI's single source lives in.
const kbbuildNamespace = "local"

func runKBBuild(ctx context.Context, target string, o kbbuildOptions, getenv func(string) string, out io.Writer) error {
	format := kbbuild.Format(o.format)
	switch format {
	case kbbuild.FormatMarkdown, kbbuild.FormatHTML, kbbuild.FormatText:
	default:
		return fmt.Errorf("--format must be Markdown, HTML or Text, not %q", o.format)
	}
	if err := o.chunking.Validate(); err != nil {
		return fmt.Errorf("chunking: %w", err)
	}
	filter := kbbuild.PathFilter{Include: o.paths, Exclude: o.exclude}
	if len(filter.Include) == 0 {
		filter.Include = defaultKBPaths(format)
	}
	if err := filter.Validate(); err != nil {
		return fmt.Errorf("--paths/--exclude: %w", err)
	}

	var src kbbuild.Source
	name := ""
	if info, err := os.Stat(target); err == nil && info.IsDir() {
		if o.ref != "" {
			return errors.New("--ref applies to git URLs, not to directories")
		}
		src = &kbbuild.DirSource{Root: target, Filter: filter}
		abs, _ := filepath.Abs(target)
		name = filepath.Base(abs)
	} else if looksLikeGitURL.MatchString(target) {
		g := &kbbuild.GitSource{URL: target, Filter: filter, Auth: kbbuild.GitAuth{
			Username: getenv(envGitUsername), Password: getenv(envGitPassword),
		}}
		switch {
		case regexp.MustCompile(`^[0-9a-fA-F]{40}$`).MatchString(o.ref):
			g.Ref.Commit = o.ref
		case strings.HasPrefix(o.ref, "refs/tags/"):
			g.Ref.Tag = strings.TrimPrefix(o.ref, "refs/tags/")
		default:
			g.Ref.Branch = strings.TrimPrefix(o.ref, "refs/heads/")
		}
		src = g
		name = strings.TrimSuffix(path.Base(strings.TrimRight(target, "/")), ".git")
	} else {
		return fmt.Errorf("%s is neither a directory nor a git URL (https://, ssh://, file:// or user@host:path)", target)
	}
	name = sourceName(name)
	rec := &recordingSource{Source: src, want: map[string]bool{}, got: map[string][]byte{}}
	for _, p := range o.showChunks {
		rec.want[p] = true
	}

	var emb retrieval.Embedder
	if base, model := getenv(envEmbeddingBaseURL), getenv(envEmbeddingModel); base != "" || model != "" {
		e, err := retrieval.NewOpenAIEmbedder(retrieval.OpenAIEmbedderConfig{BaseURL: base, Model: model, APIKey: getenv(envEmbeddingAPIKey)})
		if err != nil {
			return fmt.Errorf("embedding endpoint: %w", err)
		}
		emb = e
	}

	svc := knowledge.NewService(knowledge.Options{})
	defer func() { _ = svc.Close() }()
	stats, err := svc.Index(ctx, knowledge.SourceConfig{
		Namespace: kbbuildNamespace, Name: name, Source: rec, Domain: o.domain, TrustLevel: 3,
		Format: format, Chunking: o.chunking, Embedder: emb,
	})
	if err != nil {
		return fmt.Errorf("indexing %s: %w", target, err)
	}
	rep := kbbuildReport{
		Source: name, Revision: stats.Revision, Docs: stats.Docs, Chunks: stats.Chunks,
		Failed: stats.Failed, Warnings: stats.Warnings, Duration: stats.Duration.Round(time.Millisecond).String(),
	}
	for _, q := range o.queries {
		ans, err := svc.Search(ctx, knowledge.Query{Namespace: kbbuildNamespace, Text: q, K: o.k})
		if err != nil {
			return fmt.Errorf("query %q: %w", q, err)
		}
		rep.Answers = append(rep.Answers, kbbuildAnswer{Query: q, Snippets: ans.Snippets, Warnings: ans.Warnings})
	}
	if len(o.showChunks) > 0 {
		rep.Chunked = map[string][]kbbuildChunk{}
		for _, p := range o.showChunks {
			chunks, err := chunksOf(rec, format, name, o.domain, p, o.chunking)
			if err != nil {
				return err
			}
			rep.Chunked[p] = chunks
		}
	}
	if o.jsonOut {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printKBBuild(out, rep, o.showChunks)
	return nil
}

// recordingSource keeps the content of the documents --show-chunks asks for while the
// pipeline fetches them, so a git source is not cloned twice.
type recordingSource struct {
	kbbuild.Source
	want map[string]bool
	got  map[string][]byte
}

func (r *recordingSource) Fetch(ctx context.Context, previousRevision string) (*kbbuild.Snapshot, error) {
	snap, err := r.Source.Fetch(ctx, previousRevision)
	if err != nil {
		return nil, err
	}
	for _, d := range snap.Documents {
		if r.want[d.Path] {
			r.got[d.Path] = d.Content
		}
	}
	return snap, nil
}

// chunksOf cuts one document with the pipeline's own parser and chunker.
func chunksOf(rec *recordingSource, format kbbuild.Format, name, domain, docPath string, opts kbbuild.ChunkOptions) ([]kbbuildChunk, error) {
	content, ok := rec.got[docPath]
	if !ok {
		return nil, fmt.Errorf("--show-chunks: %s is not a document of the source (paths are relative to its root)", docPath)
	}
	parsed, err := kbbuild.Parse(format, docPath, content)
	if err != nil {
		return nil, fmt.Errorf("--show-chunks: parse %s: %w", docPath, err)
	}
	chunks, err := kbbuild.ChunkDocument(parsed, kbbuild.ChunkMeta{Source: kbbuildNamespace + "/" + name, Path: docPath, Domain: domain, TrustLevel: 3}, opts)
	if err != nil {
		return nil, fmt.Errorf("--show-chunks: chunk %s: %w", docPath, err)
	}
	out := make([]kbbuildChunk, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, kbbuildChunk{ID: c.ID, HeadingPath: c.HeadingPath, Anchor: c.Anchor, Tokens: c.Tokens, Text: c.Text})
	}
	return out, nil
}

func printKBBuild(out io.Writer, rep kbbuildReport, showChunks []string) {
	w := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	w("Source %s at revision %s\n", rep.Source, shortRevision(rep.Revision))
	w("  %d documents, %d chunks, %d failed, %d warnings, in %s\n", rep.Docs, rep.Chunks, len(rep.Failed), len(rep.Warnings), rep.Duration)
	for _, f := range rep.Failed {
		w("  failed  %s: %s\n", f.Path, f.Err)
	}
	for _, f := range rep.Warnings {
		w("  warning %s: %s\n", f.Path, f.Err)
	}
	for _, a := range rep.Answers {
		w("\nQuery: %s\n", a.Query)
		if len(a.Snippets) == 0 {
			w("  (no match)\n")
		}
		for i, sn := range a.Snippets {
			w("  %2d. %-60s score %.4f\n", i+1, sn.Citation.String(), sn.Score)
			if len(sn.Citation.HeadingPath) > 0 {
				w("      %s\n", strings.Join(sn.Citation.HeadingPath, " > "))
			}
			w("      %s\n", preview(sn.Text, 160))
		}
		for _, warn := range a.Warnings {
			w("  warning: %s\n", warn)
		}
	}
	for _, p := range showChunks {
		w("\nChunks of %s:\n", p)
		for i, c := range rep.Chunked[p] {
			w("  [%d] %s (%d tokens)\n", i, strings.Join(c.HeadingPath, " > "), c.Tokens)
			w("      %s\n", preview(c.Text, 200))
		}
	}
}

// sourceName turns a directory or repository name into a KnowledgeSource-like name.
func sourceName(s string) string {
	s = strings.Trim(regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "source"
	}
	return s
}

func shortRevision(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}

// preview flattens text to one line of at most n runes.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// defaultKBPaths mirrors the operator's default path filter for a format.
func defaultKBPaths(f kbbuild.Format) []string {
	switch f {
	case kbbuild.FormatHTML:
		return []string{"**/*.html", "**/*.htm"}
	case kbbuild.FormatText:
		return []string{"**/*.txt", "**/*.text"}
	default:
		return []string{"**/*.md", "**/*.markdown"}
	}
}
