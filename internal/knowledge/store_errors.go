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
	"errors"

	"github.com/kubage/kubage/internal/retrieval"
)

// tagStoreErrors marks the errors of a store as *StoreError so callers can tell them
// from errors of the source.
type tagStoreErrors struct {
	retrieval.Store
}

func tagStore(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var se *StoreError
	if errors.As(err, &se) {
		return err
	}
	return &StoreError{Err: err}
}

func (t tagStoreErrors) DocumentHashes(ctx context.Context, source string) (map[string]string, error) {
	m, err := t.Store.DocumentHashes(ctx, source)
	return m, tagStore(err)
}

func (t tagStoreErrors) ReplaceDocument(ctx context.Context, source, path, hash string, chunks []retrieval.Chunk) error {
	return tagStore(t.Store.ReplaceDocument(ctx, source, path, hash, chunks))
}

func (t tagStoreErrors) DeleteDocument(ctx context.Context, source, path string) error {
	return tagStore(t.Store.DeleteDocument(ctx, source, path))
}

func (t tagStoreErrors) DeleteSource(ctx context.Context, source string) error {
	return tagStore(t.Store.DeleteSource(ctx, source))
}

func (t tagStoreErrors) Counts(ctx context.Context, source string) (int, int, error) {
	d, c, err := t.Store.Counts(ctx, source)
	return d, c, tagStore(err)
}
