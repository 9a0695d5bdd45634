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

package retrieval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSourceSnapshotRoundTripAndCorruption(t *testing.T) {
	ctx := context.Background()
	src := NewEmbedded(DefaultEmbeddedOptions)
	put := func(e *Embedded, source, path, id, text string) {
		t.Helper()
		if err := e.ReplaceDocument(ctx, source, path, "h-"+id, []Chunk{{ID: id, Text: text, DocTitle: path}}); err != nil {
			t.Fatal(err)
		}
	}
	put(src, "ns/a", "one.md", "a1", "etcd loses quorum when two members are down")
	put(src, "ns/a", "two.md", "a2", "certificates expire after a year")
	put(src, "ns/b", "three.md", "b1", "disk pressure evicts pods")

	dir := t.TempDir()
	file := filepath.Join(dir, "a.snap")
	if err := src.SaveSourceSnapshot(file, "ns/a", []byte(`{"revision":"abc"}`)); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".kb-snapshot-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}

	dst := NewEmbedded(DefaultEmbeddedOptions)
	put(dst, "ns/a", "stale.md", "s1", "stale content that the snapshot replaces")
	put(dst, "ns/c", "other.md", "c1", "another source stays as it is")
	source, meta, err := dst.LoadSourceSnapshot(file)
	if err != nil {
		t.Fatal(err)
	}
	if source != "ns/a" || string(meta) != `{"revision":"abc"}` {
		t.Fatalf("source %q meta %q", source, meta)
	}
	if d, c, _ := dst.Counts(ctx, "ns/a"); d != 2 || c != 2 {
		t.Fatalf("restored %d docs %d chunks", d, c)
	}
	if d, _, _ := dst.Counts(ctx, "ns/c"); d != 1 {
		t.Fatal("another source was touched")
	}
	hits, err := dst.Search(ctx, Query{Text: "quorum", TopK: 1})
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != "a1" {
		t.Fatalf("restored chunks not searchable: %+v %v", hits, err)
	}

	// Every truncation and a flipped byte are refused without touching the store.
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.snap")
	for _, b := range [][]byte{raw[:len(raw)-1], raw[:len(raw)/2], raw[:10], append(append([]byte(nil), raw[:40]...), append([]byte{raw[40] ^ 1}, raw[41:]...)...)} {
		if err := os.WriteFile(bad, b, 0o600); err != nil {
			t.Fatal(err)
		}
		fresh := NewEmbedded(DefaultEmbeddedOptions)
		if _, _, err := fresh.LoadSourceSnapshot(bad); !errors.Is(err, ErrCorruptSnapshot) {
			t.Fatalf("%d bytes: want ErrCorruptSnapshot, got %v", len(b), err)
		}
		if fresh.Len() != 0 {
			t.Fatal("a corrupt snapshot was partly loaded")
		}
	}
}
