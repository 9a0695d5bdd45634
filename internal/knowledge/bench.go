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
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/kubage/kubage/internal/kbbuild"
)

// BenchCorpus is the indexing cost of one corpus.
type BenchCorpus struct {
	Name     string        `json:"name"`
	Docs     int           `json:"docs"`
	Chunks   int           `json:"chunks"`
	Failed   int           `json:"failed"`
	Duration time.Duration `json:"duration_ns"`
}

// BenchReport is the indexing cost of the shared corpora through the Service, i.e. what
// the KnowledgeSource controller pays for the same documents.
type BenchReport struct {
	Corpora       []BenchCorpus `json:"corpora"`
	Docs          int           `json:"docs"`
	Chunks        int           `json:"chunks"`
	Duration      time.Duration `json:"duration_ns"`
	DocsPerSecond float64       `json:"docs_per_second"`
	// PeakHeapBytes is the largest live-and-unswept heap seen while indexing (sampled).
	PeakHeapBytes uint64 `json:"peak_heap_bytes"`
	// HeapBytes is the heap after indexing and a GC: what keeping the index costs.
	HeapBytes uint64 `json:"heap_bytes"`
	// ReindexDuration is a second pass over the same corpora, which must find every
	// document unchanged.
	ReindexDuration time.Duration `json:"reindex_duration_ns"`
}

// benchFilter keeps Markdown pages and leaves out the provenance note next to each corpus.
var benchFilter = kbbuild.PathFilter{Include: []string{"**/*.md"}, Exclude: []string{"SOURCE.md"}}

// BenchIndex indexes each corpus directory under root (e.g. ../shared/corpus with
// "runbooks" and "k8s-docs") as one KnowledgeSource of a fresh Service and reports
// documents per second, chunks and peak heap. `make bench` prints it as JSON.
func BenchIndex(ctx context.Context, root string, corpora []string) (*BenchReport, error) {
	svc := NewService(Options{})
	defer func() { _ = svc.Close() }()
	rep := &BenchReport{}
	runtime.GC()
	stop := samplePeakHeap(&rep.PeakHeapBytes)
	start := time.Now()
	for _, c := range corpora {
		st, err := svc.Index(ctx, SourceConfig{
			Namespace: "bench", Name: c, Domain: c, TrustLevel: 3,
			Source:      &kbbuild.DirSource{Root: filepath.Join(root, c), Filter: benchFilter},
			Fingerprint: c,
		})
		if err != nil {
			stop()
			return nil, fmt.Errorf("index corpus %s: %w", c, err)
		}
		rep.Corpora = append(rep.Corpora, BenchCorpus{Name: c, Docs: st.Docs, Chunks: st.Chunks, Failed: len(st.Failed), Duration: st.Duration})
		rep.Docs += st.Docs
		rep.Chunks += st.Chunks
	}
	rep.Duration = time.Since(start)
	stop()
	if s := rep.Duration.Seconds(); s > 0 {
		rep.DocsPerSecond = float64(rep.Docs) / s
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.HeapBytes = ms.HeapAlloc

	// A second pass: the directory source has no cheap revision check beyond hashing, so
	// this measures the per-document hash comparison the controller does on every refresh.
	start = time.Now()
	for _, c := range corpora {
		st, err := svc.Index(ctx, SourceConfig{
			Namespace: "bench", Name: c, Domain: c, TrustLevel: 3,
			Source:      &kbbuild.DirSource{Root: filepath.Join(root, c), Filter: benchFilter},
			Fingerprint: c,
		})
		if err != nil {
			return nil, fmt.Errorf("re-index corpus %s: %w", c, err)
		}
		if st.Added+st.Updated+st.Removed != 0 {
			return nil, fmt.Errorf("re-index of unchanged corpus %s changed %d documents", c, st.Added+st.Updated+st.Removed)
		}
	}
	rep.ReindexDuration = time.Since(start)
	return rep, nil
}

// samplePeakHeap records the largest heap size seen until the returned stop is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			*peak = max(*peak, sample[0].Value.Uint64())
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			read()
		})
	}
}
