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
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubage/kubage/internal/kbbuild"
)

func writeRunbooks(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "Team Runbooks")
	files := map[string]string{
		"alerts/KubePodCrashLooping.md": "---\ntitle: Pod crash looping\n---\n# KubePodCrashLooping\n\n## Diagnosis {#diagnosis}\n\nRead the previous container logs.\n\n## Mitigation\n\nRoll back the last release.\n",
		"alerts/KubeQuotaExceeded.md":   "# KubeQuotaExceeded\n\nThe namespace ResourceQuota is used up.\n",
		"README.txt":                    "not indexed: not Markdown",
		"bin/blob.md":                   "\x00\x01\x02binary",
	}
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func defaultKBOptions() kbbuildOptions {
	return kbbuildOptions{format: "Markdown", chunking: kbbuild.DefaultChunking, k: 3}
}

func noEnv(string) string { return "" }

func TestKBBuildIndexesADirectoryAndAnswersQueries(t *testing.T) {
	dir := writeRunbooks(t)
	o := defaultKBOptions()
	o.queries = []string{"KubePodCrashLooping", "zeppelin"}
	o.showChunks = []string{"alerts/KubePodCrashLooping.md"}
	var out bytes.Buffer
	if err := runKBBuild(context.Background(), dir, o, noEnv, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"Source team-runbooks at revision",
		"2 documents",
		"1 failed",
		"failed  bin/blob.md: binary file",
		"Query: KubePodCrashLooping",
		"1. team-runbooks:alerts/KubePodCrashLooping.md#",
		"Query: zeppelin\n  (no match)",
		"Chunks of alerts/KubePodCrashLooping.md:",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}

	o.jsonOut = true
	out.Reset()
	if err := runKBBuild(context.Background(), dir, o, noEnv, &out); err != nil {
		t.Fatal(err)
	}
	var rep kbbuildReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if rep.Docs != 2 || rep.Chunks < 2 || len(rep.Failed) != 1 || len(rep.Answers) != 2 {
		t.Fatalf("report = %+v", rep)
	}
	if top := rep.Answers[0].Snippets[0].Citation; top.Path != "alerts/KubePodCrashLooping.md" || top.Source != "team-runbooks" {
		t.Fatalf("top = %+v", top)
	}
	chunks := rep.Chunked["alerts/KubePodCrashLooping.md"]
	if len(chunks) == 0 || chunks[0].HeadingPath[0] != "KubePodCrashLooping" || chunks[0].Tokens == 0 {
		t.Fatalf("chunks = %+v", chunks)
	}
}

func TestKBBuildRejectsBadInput(t *testing.T) {
	dir := writeRunbooks(t)
	ctx := context.Background()
	for name, c := range map[string]struct {
		target string
		edit   func(*kbbuildOptions)
		want   string
	}{
		"unknown format":   {dir, func(o *kbbuildOptions) { o.format = "PDF" }, "--format"},
		"bad chunking":     {dir, func(o *kbbuildOptions) { o.chunking.MinTokens = 4096 }, "chunking"},
		"bad glob":         {dir, func(o *kbbuildOptions) { o.paths = []string{"[abc"} }, "--paths"},
		"ref on directory": {dir, func(o *kbbuildOptions) { o.ref = "main" }, "--ref"},
		"neither":          {filepath.Join(dir, "missing"), func(*kbbuildOptions) {}, "neither a directory nor a git URL"},
		"unknown document": {dir, func(o *kbbuildOptions) { o.showChunks = []string{"nope.md"} }, "not a document"},
		"unreachable git":  {"http://127.0.0.1:1/runbooks.git", func(*kbbuildOptions) {}, "indexing"},
	} {
		t.Run(name, func(t *testing.T) {
			o := defaultKBOptions()
			c.edit(&o)
			err := runKBBuild(ctx, c.target, o, noEnv, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}
