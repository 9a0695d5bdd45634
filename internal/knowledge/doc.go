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

// Package knowledge is the operator's shared knowledge base: the one place where the
// KnowledgeSource controller indexes documents and where the brains, the
// knowledge_search tool, `kubage mcp` and reports search them.
//
// A Service holds one process-wide Embedded store (package retrieval) for every source
// with `store: Embedded`, plus one Milvus store per distinct Milvus connection, shared by
// the sources that point at it. It remembers, per KnowledgeSource, which store holds it,
// its labels, domain, trust level and embedding model, so a search can select sources by
// namespace and label selector and cite them by KnowledgeSource name.
//
// The Embedded store lives in memory only. After the operator starts it is empty: the
// first reconcile of each KnowledgeSource finds no record of the source in the Service
// and re-indexes it in full (the "unchanged revision" fast path applies only to revisions
// this process has indexed itself), so the embedded index is rebuilt from the
// KnowledgeSources on start. Sources become searchable one by one as they are indexed.
// Milvus keeps its data across restarts; there the re-index finds every document hash
// unchanged and only re-reads the source.
//
// The package knows nothing of controller-runtime; the controller maps a KnowledgeSource
// spec onto a SourceConfig.
package knowledge
