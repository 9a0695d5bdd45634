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

package kbbuild

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubage/kubage/internal/retrieval"
)

func TestEstimateTokens(t *testing.T) {
	cases := map[string]int{
		"":                         0,
		"hello world":              2,
		"kubernetes":               2, // 10 runes: 1 + 9/6
		"a, b.":                    4,
		"kubectl get po -n x":      7, // kubectl is 2
		"données été":              3,
		"etcdMembersDown   \n\t x": 4,
	}
	for in, want := range cases {
		if got := EstimateTokens(in); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestChunkOptions(t *testing.T) {
	if got := (ChunkOptions{}).WithDefaults(); got != DefaultChunking {
		t.Errorf("zero options = %+v, want defaults", got)
	}
	if got := (ChunkOptions{TargetTokens: 100}).WithDefaults(); got.MinTokens > 100 || got.MaxTokens < 100 {
		t.Errorf("defaults around target 100 = %+v", got)
	}
	if got := (ChunkOptions{MaxTokens: 200}).WithDefaults(); got.Validate() != nil {
		t.Errorf("defaults under max 200 invalid: %+v", got)
	}
	for _, bad := range []ChunkOptions{{MinTokens: 300, TargetTokens: 200, MaxTokens: 400}, {MinTokens: 1, TargetTokens: 2, MaxTokens: 3}, {MinTokens: 1, TargetTokens: 100, MaxTokens: 100000}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) accepted", bad)
		}
	}
}

func chunk(t *testing.T, src string, o ChunkOptions) []retrieval.Chunk {
	t.Helper()
	doc, err := ParseMarkdown("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ChunkDocument(doc, ChunkMeta{Source: "src", Path: "doc.md", Domain: "d", TrustLevel: 4}, o)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func words(n int, w string) string {
	return strings.TrimSpace(strings.Repeat(w+" ", n))
}

func TestChunkerMergesTinySectionsWithHeading(t *testing.T) {
	src := "# Alert\n\n## Meaning\n\n" + words(20, "meaning") + ".\n\n## Impact\n\n" + words(20, "impact") + ".\n\n## Diagnosis\n\n" + words(150, "diag") + ".\n"
	cs := chunk(t, src, ChunkOptions{MinTokens: 50, TargetTokens: 120, MaxTokens: 200})
	if len(cs) < 2 {
		t.Fatalf("chunks = %d", len(cs))
	}
	if fmt.Sprint(cs[0].HeadingPath) != "[Alert Meaning]" || !strings.Contains(cs[0].Text, "## Impact\n\nimpact") {
		t.Errorf("first chunk %v should hold Meaning and Impact:\n%s", cs[0].HeadingPath, cs[0].Text)
	}
	for _, c := range cs {
		if c.Tokens > 200 {
			t.Errorf("chunk %v has %d tokens > max", c.HeadingPath, c.Tokens)
		}
		if c.Domain != "d" || c.TrustLevel != 4 || c.DocTitle != "Alert" {
			t.Errorf("meta not copied: %+v", c)
		}
	}
}

func TestChunkerKeepsCodeBlocksWhole(t *testing.T) {
	code := "```yaml\n" + strings.Repeat("key: value\n", 30) + "```"
	src := "## S\n\n" + words(80, "intro") + ".\n\n" + code + "\n\n" + words(80, "outro") + ".\n"
	cs := chunk(t, src, ChunkOptions{MinTokens: 20, TargetTokens: 100, MaxTokens: 200})
	found := false
	for _, c := range cs {
		if strings.Contains(c.Text, code) {
			found = true
		}
		if strings.Count(c.Text, "```")%2 != 0 {
			t.Errorf("unbalanced fence in chunk:\n%s", c.Text)
		}
	}
	if !found {
		t.Error("code block that fits the maximum was split")
	}
}

func TestChunkerSplitsOversizedCodeAndTables(t *testing.T) {
	code := "```sh\n" + strings.Repeat("echo one two three four five\n", 100) + "```"
	table := "| name | value |\n|---|---|\n" + strings.Repeat("| alpha beta | gamma delta |\n", 100)
	cs := chunk(t, "## S\n\n"+code+"\n\n"+table+"\n", ChunkOptions{MinTokens: 20, TargetTokens: 100, MaxTokens: 150})
	codeParts, tableParts := 0, 0
	for _, c := range cs {
		if c.Tokens > 150 {
			t.Errorf("chunk has %d tokens > max 150", c.Tokens)
		}
		if strings.HasPrefix(c.Text, "```sh\n") {
			codeParts++
			if !strings.HasSuffix(c.Text, "\n```") && !strings.Contains(c.Text, "\n```\n") {
				t.Errorf("code part not re-fenced:\n%s", c.Text)
			}
		}
		if strings.Contains(c.Text, "| name | value |\n| --- | --- |") {
			tableParts++
		}
	}
	if codeParts < 2 || tableParts < 2 {
		t.Errorf("code parts %d, table parts %d: oversized blocks should be split with fence/header repeated", codeParts, tableParts)
	}
}

func TestChunkerSplitsLongProse(t *testing.T) {
	long := strings.Repeat("This sentence has exactly seven words in it. ", 200)
	cs := chunk(t, "## S\n\n"+long+"\n\n"+strings.Repeat("x", 5000)+"\n", ChunkOptions{MinTokens: 20, TargetTokens: 100, MaxTokens: 120})
	for _, c := range cs {
		if c.Tokens > 120 {
			t.Errorf("chunk has %d tokens > max", c.Tokens)
		}
	}
}

func TestChunkIDsAreStableAcrossUnrelatedEdits(t *testing.T) {
	base := "## A\n\n" + words(200, "alpha") + "\n\n## B\n\n" + words(200, "beta") + "\n"
	edited := "## A\n\n" + words(200, "alpha") + "\n\n## B\n\n" + words(190, "beta") + " changed\n"
	o := ChunkOptions{MinTokens: 20, TargetTokens: 150, MaxTokens: 300}
	a, b := chunk(t, base, o), chunk(t, edited, o)
	if len(a) != len(b) {
		t.Fatalf("chunk counts differ: %d vs %d", len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			t.Errorf("chunk %d id changed: %s → %s", i, a[i].ID, b[i].ID)
		}
	}
	c := chunk(t, base, o)
	if c[0].ID != a[0].ID {
		t.Error("ids not deterministic")
	}
}

func TestChunkLinks(t *testing.T) {
	src := "## Parent\n\n" + words(120, "parent") + "\n\n### Child one\n\n" + words(120, "one") + "\n\n### Child two\n\n" + words(120, "two") + "\n"
	cs := chunk(t, src, ChunkOptions{MinTokens: 20, TargetTokens: 130, MaxTokens: 200})
	if len(cs) != 3 {
		t.Fatalf("chunks = %d", len(cs))
	}
	if cs[1].ParentID != cs[0].ID || cs[2].ParentID != cs[0].ID {
		t.Errorf("children should point to the parent section's chunk")
	}
	if cs[0].PrevID != "" || cs[0].NextID != cs[1].ID || cs[1].PrevID != cs[0].ID || cs[2].NextID != "" {
		t.Errorf("prev/next links wrong")
	}
	if cs[1].Anchor != "child-one" {
		t.Errorf("anchor = %q", cs[1].Anchor)
	}
}

// TestChunkCorpusInvariants chunks every corpus page and checks the guarantees
// the retriever relies on.
func TestChunkCorpusInvariants(t *testing.T) {
	dir := corpusDir(t)
	opts := DefaultChunking
	docs := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		doc, err := ParseMarkdown(rel, b)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		cs, err := ChunkDocument(doc, ChunkMeta{Source: "c", Path: rel}, opts)
		if err != nil {
			return err
		}
		docs++
		checkChunkInvariants(t, rel, cs, opts)
		if strings.Contains(strings.Join(chunkTexts(cs), ""), "{{<") {
			t.Errorf("%s: shortcode left in chunk text", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 200 {
		t.Errorf("only %d corpus documents", docs)
	}
}

func chunkTexts(cs []retrieval.Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

func checkChunkInvariants(t testing.TB, name string, cs []retrieval.Chunk, o ChunkOptions) {
	t.Helper()
	ids := map[string]bool{}
	for i, c := range cs {
		if c.ID == "" || ids[c.ID] {
			t.Errorf("%s: chunk %d has empty or duplicate id %q", name, i, c.ID)
		}
		ids[c.ID] = true
		if c.Tokens > o.MaxTokens {
			t.Errorf("%s: chunk %d has %d tokens > max %d", name, i, c.Tokens, o.MaxTokens)
		}
		if strings.TrimSpace(c.Text) == "" {
			t.Errorf("%s: chunk %d is empty", name, i)
		}
		if strings.Count(c.Text, "\n```") > 0 && (strings.Count("\n"+c.Text, "\n```"))%2 != 0 {
			t.Errorf("%s: chunk %d has an unbalanced code fence", name, i)
		}
		if i > 0 && c.PrevID != cs[i-1].ID {
			t.Errorf("%s: chunk %d prev link broken", name, i)
		}
	}
	for _, c := range cs {
		if c.ParentID != "" && !ids[c.ParentID] {
			t.Errorf("%s: parent %s of %s is not a chunk of the document", name, c.ParentID, c.ID)
		}
	}
}
