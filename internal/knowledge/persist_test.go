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

package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/retrieval"
)

// countingSource counts fetches and reports the revision it was asked about as unchanged.
type countingSource struct {
	inner   kbbuild.Source
	fetches int
	prev    []string
}

func (c *countingSource) Fetch(ctx context.Context, prev string) (*kbbuild.Snapshot, error) {
	c.fetches++
	c.prev = append(c.prev, prev)
	return c.inner.Fetch(ctx, prev)
}

func TestSnapshotsServeAfterRestartAndResumeFromTheirRevision(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snapshots") // created by the first save
	ctx := context.Background()
	first := NewService(Options{SnapshotDir: dir})
	cfgs := []SourceConfig{
		{Namespace: "ns", Name: "crash", Labels: map[string]string{"team": "a"}, Source: docs("a.md", crashLoop), Fingerprint: "v1", TrustLevel: 4},
		{Namespace: "ns", Name: "disk", Source: docs("b.md", diskFull), Fingerprint: "v1"},
		{Namespace: "other", Name: "gone", Source: docs("c.md", diskFull), Fingerprint: "v1"},
	}
	for _, c := range cfgs {
		mustIndex(t, first, c)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+snapshotExt))
	if len(files) != 3 {
		t.Fatalf("one snapshot per source, got %v", files)
	}

	// A damaged snapshot and a save cut short by a crash.
	if err := os.WriteFile(filepath.Join(dir, "0123456789abcdef01234567"+snapshotExt), []byte("half-written"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, retrieval.SnapshotTempPrefix+"123"), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}

	restarted := NewService(Options{SnapshotDir: dir})
	n, err := restarted.Restore(ctx)
	if err != nil || n != 3 {
		t.Fatalf("restored %d, %v", n, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 3 {
		t.Fatalf("the damaged snapshot and the temporary file are removed: %v", left)
	}
	ans, err := restarted.Search(ctx, Query{Namespace: "ns", Text: "CrashLoopBackOff"})
	if err != nil || len(ans.Snippets) == 0 || ans.Snippets[0].Citation.Source != "crash" {
		t.Fatalf("no answer from the restored index before any fetch: %+v %v", ans, err)
	}
	info, ok := restarted.Source("ns", "crash")
	want, _ := first.Source("ns", "crash")
	if !ok || info.Revision != want.Revision || info.TrustLevel != 4 || info.Stats.Docs != 1 {
		t.Fatalf("restored info %+v, want %+v", info, want)
	}

	// The first run after the restart starts from the snapshot's revision: nothing is re-read.
	counted := &countingSource{inner: cfgs[0].Source}
	cfg := cfgs[0]
	cfg.Source = counted
	st := mustIndex(t, restarted, cfg)
	if !st.RevisionUnchanged || counted.prev[0] != want.Revision {
		t.Fatalf("after restart: %+v, asked with %q", st, counted.prev)
	}

	// A source deleted while no manager ran is dropped with its snapshot.
	gone, err := restarted.ForgetRestored(ctx, func(ns, name string) bool { return ns == "ns" })
	if err != nil || gone != 1 {
		t.Fatalf("forgot %d, %v", gone, err)
	}
	if _, ok := restarted.Source("other", "gone"); ok {
		t.Fatal("a deleted source is still served")
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*"+snapshotExt)); len(files) != 2 {
		t.Fatalf("its snapshot stays: %v", files)
	}
}
