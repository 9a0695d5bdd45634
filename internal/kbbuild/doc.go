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

// Package kbbuild turns a knowledge source into indexed chunks.
//
// It fetches documents from a Source (git, HTTP(S), ConfigMap data, inline text
// or a local directory), parses each into a section tree (Markdown with front
// matter and the Hugo shortcodes of the Kubernetes docs, HTML, or plain text),
// cuts the tree into chunks of bounded token size that keep their heading path
// and parent/sibling links, and writes them to a retrieval.Store. Indexing is
// incremental: a document whose content hash (and pipeline settings) did not
// change is neither re-parsed nor re-embedded, removed documents are deleted,
// and a document that fails is reported without failing the whole source.
//
// The package knows nothing of Kubernetes objects; the KnowledgeSource
// controller maps its spec onto the config structs defined here.
package kbbuild
