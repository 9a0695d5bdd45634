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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DocumentFormat is how the documents of a KnowledgeSource are written.
// +kubebuilder:validation:Enum=Markdown;HTML;Text
type DocumentFormat string

const (
	FormatMarkdown DocumentFormat = "Markdown"
	FormatHTML     DocumentFormat = "HTML"
	FormatText     DocumentFormat = "Text"
)

// StoreType is where the index of a KnowledgeSource lives.
// +kubebuilder:validation:Enum=Embedded;Milvus
type StoreType string

const (
	// StoreEmbedded is the in-process index, rebuilt from the KnowledgeSources on start.
	StoreEmbedded StoreType = "Embedded"
	// StoreMilvus is an external Milvus with dense and sparse fields.
	StoreMilvus StoreType = "Milvus"
)

// KnowledgeSourcePhase is the step the indexing of a source is at.
// +kubebuilder:validation:Enum=Pending;Fetching;Indexing;Ready;Failed
type KnowledgeSourcePhase string

const (
	KnowledgePending  KnowledgeSourcePhase = "Pending"
	KnowledgeFetching KnowledgeSourcePhase = "Fetching"
	KnowledgeIndexing KnowledgeSourcePhase = "Indexing"
	KnowledgeReady    KnowledgeSourcePhase = "Ready"
	KnowledgeFailed   KnowledgeSourcePhase = "Failed"
)

// KnowledgeSourceSpec says where documents come from and how to index them.
// +kubebuilder:validation:XValidation:rule="[has(self.git), has(self.http), has(self.configMapRef), has(self.inline)].exists_one(x, x)",message="set exactly one of git, http, configMapRef or inline"
type KnowledgeSourceSpec struct {
	// serviceAccountName, when set, names a ServiceAccount of this namespace whose rights
	// the operator uses (by impersonation) to read the Secrets and ConfigMaps this source
	// refers to (git, embedding and Milvus credentials, configMapRef). The operator flag
	// --secrets-need-service-account makes it required for sources that refer to Secrets.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// git fetches documents from a Git repository.
	// +optional
	Git *GitSource `json:"git,omitempty"`

	// http fetches documents from a list of URLs.
	// +optional
	HTTP *HTTPSource `json:"http,omitempty"`

	// configMapRef reads documents from the data of a ConfigMap in this namespace, one
	// document per key.
	// +optional
	ConfigMapRef *LocalConfigMapReference `json:"configMapRef,omitempty"`

	// inline holds small documents directly in the object.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Inline []InlineDocument `json:"inline,omitempty"`

	// format of the documents: Markdown (default), HTML or Text.
	// +optional
	// +kubebuilder:default=Markdown
	Format DocumentFormat `json:"format,omitempty"`

	// domain labels what the documents are about, e.g. "kubernetes" or "prometheus";
	// retrieval may filter on it.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Domain string `json:"domain,omitempty"`

	// trustLevel from 1 (unvetted) to 5 (authoritative); retrieval filters and ranks by it.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	TrustLevel int32 `json:"trustLevel,omitempty"`

	// copyright is the documents' copyright or licence notice, shown with every passage
	// quoted from them, e.g. "© Example Corp, internal use only" or "CC BY 4.0, The Kubernetes Authors".
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Copyright string `json:"copyright,omitempty"`

	// quotable says whether passages may be quoted in prompts and reports. When false only
	// the title, the link and at most one sentence of a passage leave the index (e.g. for
	// documents whose licence forbids reproduction).
	// +optional
	// +kubebuilder:default=true
	Quotable *bool `json:"quotable,omitempty"`

	// refreshInterval is how often the source is checked for a new revision, between 1m and 720h.
	// +optional
	// +kubebuilder:default="1h"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) >= duration('1m') && duration(self) <= duration('720h'))",message="refreshInterval must be between 1m and 720h"
	RefreshInterval *metav1.Duration `json:"refreshInterval,omitempty"`

	// chunking sets the size of indexed chunks in tokens.
	// +optional
	// +kubebuilder:default={minTokens: 128, targetTokens: 512, maxTokens: 1024}
	Chunking Chunking `json:"chunking,omitempty"`

	// embedding configures dense vectors. Unset means sparse (BM25) retrieval only.
	// +optional
	Embedding *EmbeddingSpec `json:"embedding,omitempty"`

	// store is where the index lives: Embedded (default) or Milvus.
	// +optional
	// +kubebuilder:default={type: Embedded}
	Store StoreSpec `json:"store,omitempty"`
}

// GitSource is a Git repository to index.
type GitSource struct {
	// url of the repository: https://, http://, ssh:// or user@host:path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^((https?|ssh)://[^\s]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+)$`
	URL string `json:"url"`

	// ref is a branch, tag or commit; unset means the remote's default branch.
	// +optional
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	Ref string `json:"ref,omitempty"`

	// paths are glob patterns of files to index, relative to the repository root, e.g. "runbooks/**/*.md".
	// Unset means every file of the source's format.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	Paths []string `json:"paths,omitempty"`

	// secretRef names a Secret in this namespace with credentials: username and password
	// (or a token as password) for HTTPS, identity and known_hosts for SSH.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty"`
}

// HTTPSource is a list of documents served over HTTP(S).
type HTTPSource struct {
	// urls of the documents.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MaxLength=2048
	// +kubebuilder:validation:items:Pattern=`^https?://[^\s]+$`
	URLs []string `json:"urls"`
}

// InlineDocument is one small document held in the KnowledgeSource itself.
type InlineDocument struct {
	// name of the document, used in citations, e.g. "oncall/db-failover.md".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._/-]+$`
	Name string `json:"name"`

	// content of the document.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32768
	Content string `json:"content"`
}

// Chunking bounds the size of indexed chunks in tokens. The defaults match
// kbbuild.DefaultChunking, which retrieval was tuned with.
// +kubebuilder:validation:XValidation:rule="self.minTokens <= self.targetTokens && self.targetTokens <= self.maxTokens",message="chunking must satisfy minTokens <= targetTokens <= maxTokens"
type Chunking struct {
	// minTokens: smaller sections are merged with their neighbours.
	// +optional
	// +kubebuilder:default=128
	// +kubebuilder:validation:Minimum=16
	// +kubebuilder:validation:Maximum=8192
	MinTokens int32 `json:"minTokens,omitempty"`

	// targetTokens is the size the chunker aims for.
	// +optional
	// +kubebuilder:default=512
	// +kubebuilder:validation:Minimum=16
	// +kubebuilder:validation:Maximum=8192
	TargetTokens int32 `json:"targetTokens,omitempty"`

	// maxTokens: larger sections are split.
	// +optional
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=16
	// +kubebuilder:validation:Maximum=8192
	MaxTokens int32 `json:"maxTokens,omitempty"`
}

// EmbeddingSpec configures the model that turns chunks into dense vectors.
type EmbeddingSpec struct {
	// secretRef names a Secret in this namespace with the keys baseURL, model and apiKey of
	// an OpenAI-compatible embeddings endpoint.
	// +required
	SecretRef LocalSecretReference `json:"secretRef"`

	// dimensions of the vectors, when the model supports choosing them.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=8192
	Dimensions int32 `json:"dimensions,omitempty"`
}

// StoreSpec selects the index store.
// +kubebuilder:validation:XValidation:rule="self.type != 'Milvus' || has(self.milvus)",message="milvus is required when type is Milvus",fieldPath=".milvus"
// +kubebuilder:validation:XValidation:rule="self.type == 'Milvus' || !has(self.milvus)",message="milvus is only allowed when type is Milvus",fieldPath=".milvus"
type StoreSpec struct {
	// type is Embedded (default) or Milvus.
	// +optional
	// +kubebuilder:default=Embedded
	Type StoreType `json:"type,omitempty"`

	// milvus settings; required when type is Milvus.
	// +optional
	Milvus *MilvusStore `json:"milvus,omitempty"`
}

// MilvusStore is the connection to a Milvus instance.
type MilvusStore struct {
	// address of Milvus, "host:port" or an http(s) URL.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^((https?://)?[A-Za-z0-9.-]+(:[0-9]{1,5})?)$`
	Address string `json:"address"`

	// database in Milvus; unset means "default".
	// +optional
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	Database string `json:"database,omitempty"`

	// collection holding the chunks.
	// +optional
	// +kubebuilder:default=kubage_knowledge
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	Collection string `json:"collection,omitempty"`

	// secretRef names a Secret in this namespace with username and password, or token.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty"`
}

// KnowledgeSourceStatus reports the state of the index.
type KnowledgeSourceStatus struct {
	// observedGeneration is the spec generation the status was last computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready first, then Reconciling, Stalled, Degraded.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// phase is the step indexing is at.
	// +optional
	Phase KnowledgeSourcePhase `json:"phase,omitempty"`

	// revision of the indexed content: a commit for git, a content hash otherwise.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Revision string `json:"revision,omitempty"`

	// documentCount is the number of indexed documents.
	// +optional
	// +kubebuilder:validation:Minimum=0
	DocumentCount int32 `json:"documentCount,omitempty"`

	// chunkCount is the number of indexed chunks.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ChunkCount int32 `json:"chunkCount,omitempty"`

	// lastIndexTime is when the index last changed or was confirmed up to date.
	// +optional
	LastIndexTime *metav1.Time `json:"lastIndexTime,omitempty"`

	// nextIndexTime is when the source will be checked again.
	// +optional
	NextIndexTime *metav1.Time `json:"nextIndexTime,omitempty"`

	// failedDocuments lists documents that could not be indexed (the first few).
	// +optional
	// +kubebuilder:validation:MaxItems=20
	FailedDocuments []FailedDocument `json:"failedDocuments,omitempty"`
}

// FailedDocument is a document that could not be indexed and why.
type FailedDocument struct {
	// path of the document within the source.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Path string `json:"path"`

	// error that stopped it.
	// +required
	// +kubebuilder:validation:MaxLength=1024
	Error string `json:"error"`
}

// KnowledgeSource is a set of documents (runbooks, docs, past incidents) the operator
// fetches, chunks and indexes for retrieval during investigations.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ks,categories=kubage
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Revision",type=string,JSONPath=`.status.revision`
// +kubebuilder:printcolumn:name="Chunks",type=integer,JSONPath=`.status.chunkCount`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KnowledgeSource struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says where documents come from and how to index them.
	// +required
	Spec KnowledgeSourceSpec `json:"spec"`

	// status reports the state of the index.
	// +optional
	Status KnowledgeSourceStatus `json:"status,omitempty"`
}

// KnowledgeSourceList is a list of KnowledgeSource.
// +kubebuilder:object:root=true
type KnowledgeSourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KnowledgeSource `json:"items"`
}

func init() {
	SchemeBuilder.Register(&KnowledgeSource{}, &KnowledgeSourceList{})
}
