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
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/knowledge"
)

// knowledgeOptions are the `kubage manager` flags of the knowledge base: where git sources
// are cloned and the embedded index is persisted, and the caps that keep a source's
// size from becoming the manager's memory.
type knowledgeOptions struct {
	dir            string
	maxSourceBytes string
	maxTotalBytes  string
}

func (o *knowledgeOptions) bindFlags(f *pflag.FlagSet) {
	f.StringVar(&o.dir, "knowledge-dir", "", "Directory (a volume, e.g. an emptyDir) where git KnowledgeSources are cloned (under git/) and the embedded index is persisted (under snapshots/, one file per source, loaded on start so a restart serves at once and re-fetches only changed sources). Empty: clones go to a temporary directory and nothing is persisted.")
	f.StringVar(&o.maxSourceBytes, "knowledge-max-source-bytes", "64Mi", "Cap of one git KnowledgeSource: bytes its clone may write to disk and bytes of its matching documents. A source over it is Ready=False, reason TooLarge.")
	f.StringVar(&o.maxTotalBytes, "knowledge-max-total-bytes", "256Mi", "Cap of all git clones in flight together; each clone reserves --knowledge-max-source-bytes of it, and clones beyond it wait.")
}

// service builds the knowledge service and restores its persisted index.
func (o *knowledgeOptions) service(ctx context.Context) (*knowledge.Service, error) {
	perSource, err := parseBytes("--knowledge-max-source-bytes", o.maxSourceBytes)
	if err != nil {
		return nil, err
	}
	total, err := parseBytes("--knowledge-max-total-bytes", o.maxTotalBytes)
	if err != nil {
		return nil, err
	}
	opts := knowledge.Options{}
	gitDir := filepath.Join(o.dir, "git")
	if o.dir == "" {
		// A directory of this process: another manager on the machine sweeps only its own.
		if gitDir, err = os.MkdirTemp("", "kubage-git-"); err != nil {
			return nil, fmt.Errorf("git clone directory: %w", err)
		}
		go func() {
			<-ctx.Done()
			_ = os.RemoveAll(gitDir)
		}()
	} else {
		opts.SnapshotDir = filepath.Join(o.dir, "snapshots")
	}
	if opts.GitWorkspace, err = kbbuild.NewGitWorkspace(gitDir, perSource, total); err != nil {
		return nil, err
	}
	know := knowledge.NewService(opts)
	log := ctrl.Log.WithName("knowledge")
	start := time.Now()
	n, err := know.Restore(ctrl.LoggerInto(ctx, log))
	if err != nil {
		return nil, err
	}
	if opts.SnapshotDir != "" {
		log.Info("Restored the knowledge index from its snapshots", "sources", n, "chunks", know.Embedded().Len(), "duration", time.Since(start))
	}
	return know, nil
}

func parseBytes(flag, v string) (int64, error) {
	q, err := resource.ParseQuantity(v)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("%s must be a positive size such as 64Mi, not %q", flag, v)
	}
	return q.Value(), nil
}
