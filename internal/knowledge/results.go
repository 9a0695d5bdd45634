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

import "github.com/kubage/kubage/internal/kbbuild"

// What an indexing run reports, as the reconciler reads it: callers above knowledge see
// indexing through this package, not through kbbuild.
type (
	// IndexStats counts an indexing run's documents and chunks.
	IndexStats = kbbuild.Stats
	// DocumentError is one document that failed to index.
	DocumentError = kbbuild.DocumentError
)

// ErrRefNotFound is returned when the branch or tag does not exist on the remote.
var ErrRefNotFound = kbbuild.ErrRefNotFound

// ErrTooLarge is returned when a source exceeds its size cap.
var ErrTooLarge = kbbuild.ErrTooLarge
