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

// Transport is the MCP transport a ToolServer speaks.
// +kubebuilder:validation:Enum=StreamableHTTP;SSE
type Transport string

const (
	TransportStreamableHTTP Transport = "StreamableHTTP"
	TransportSSE            Transport = "SSE"
)

// ToolCategory routes investigation tasks to the right servers.
// +kubebuilder:validation:Enum=logs;metrics;alerts;kubernetes;knowledge;other
type ToolCategory string

const (
	ToolCategoryLogs       ToolCategory = "logs"
	ToolCategoryMetrics    ToolCategory = "metrics"
	ToolCategoryAlerts     ToolCategory = "alerts"
	ToolCategoryKubernetes ToolCategory = "kubernetes"
	ToolCategoryKnowledge  ToolCategory = "knowledge"
	ToolCategoryOther      ToolCategory = "other"
)

// NamespacesFrom says which namespaces may use a ToolServer.
// +kubebuilder:validation:Enum=Same;All;Selector
type NamespacesFrom string

const (
	// NamespacesFromSame admits only the ToolServer's own namespace.
	NamespacesFromSame NamespacesFrom = "Same"
	// NamespacesFromAll admits every namespace.
	NamespacesFromAll NamespacesFrom = "All"
	// NamespacesFromSelector admits namespaces whose labels match a selector.
	NamespacesFromSelector NamespacesFrom = "Selector"
)

// ToolServerSpec describes an MCP server and how investigations may use its tools.
type ToolServerSpec struct {
	// transport is StreamableHTTP (default) or SSE.
	// +optional
	// +kubebuilder:default=StreamableHTTP
	Transport Transport `json:"transport,omitempty"`

	// url of the MCP endpoint; http or https only.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="url must be an absolute http or https URL"
	URL string `json:"url"`

	// serviceAccountName, when set, names a ServiceAccount of this namespace whose rights
	// the operator uses (by impersonation) to read the Secrets and ConfigMaps of headers:
	// the author can only send what that account may read. The operator flag
	// --secrets-need-service-account makes it required for headers from Secrets.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// headers sent with every request, with values read from Secrets or ConfigMaps in this
	// namespace (e.g. Authorization).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Headers []HeaderSource `json:"headers,omitempty"`

	// timeout of one request to the server, between 1s and 5m.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) >= duration('1s') && duration(self) <= duration('5m'))",message="timeout must be between 1s and 5m"
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// tools filters and classifies the server's tools.
	// +optional
	// +kubebuilder:default={}
	Tools ToolPolicy `json:"tools,omitempty"`

	// category routes tasks to this server: logs, metrics, alerts, kubernetes, knowledge or other.
	// +optional
	// +kubebuilder:default=other
	Category ToolCategory `json:"category,omitempty"`

	// healthCheckInterval is how often the server is probed and its tools re-listed, between 10s and 24h.
	// +optional
	// +kubebuilder:default="1m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) >= duration('10s') && duration(self) <= duration('24h'))",message="healthCheckInterval must be between 10s and 24h"
	HealthCheckInterval *metav1.Duration `json:"healthCheckInterval,omitempty"`

	// allowedNamespaces says whose Troubleshoots may use this server; default only its own namespace.
	// +optional
	// +kubebuilder:default={from: Same}
	AllowedNamespaces AllowedNamespaces `json:"allowedNamespaces,omitempty"`
}

// HeaderSource is one HTTP header whose value comes from a Secret or a ConfigMap.
// +kubebuilder:validation:XValidation:rule="has(self.secretKeyRef) != has(self.configMapKeyRef)",message="set exactly one of secretKeyRef or configMapKeyRef"
type HeaderSource struct {
	// name of the header, e.g. Authorization.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9!#$%&'*+.^_|~-]+$`
	Name string `json:"name"`

	// secretKeyRef reads the value from a Secret key in this namespace.
	// +optional
	SecretKeyRef *SecretKeyReference `json:"secretKeyRef,omitempty"`

	// configMapKeyRef reads the value from a ConfigMap key in this namespace.
	// +optional
	ConfigMapKeyRef *ConfigMapKeyReference `json:"configMapKeyRef,omitempty"`
}

// ToolPolicy filters the server's tools and marks the ones that change things.
// +kubebuilder:validation:XValidation:rule="!has(self.allow) || !has(self.deny) || !self.allow.exists(t, t in self.deny)",message="a tool cannot be both in allow and in deny"
type ToolPolicy struct {
	// allow lists the tool names investigations may call; unset means all tools not denied.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9_./-]+$`
	Allow []string `json:"allow,omitempty"`

	// deny lists tool names investigations must never call.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9_./-]+$`
	Deny []string `json:"deny,omitempty"`

	// mutating lists tools that change state, in addition to those the server annotates as
	// destructive. They need approval and never run in Diagnose mode.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9_./-]+$`
	Mutating []string `json:"mutating,omitempty"`
}

// AllowedNamespaces says which namespaces' Troubleshoots may use a ToolServer.
// +kubebuilder:validation:XValidation:rule="(self.from == 'Selector') == has(self.selector)",message="selector is required when from is Selector, and only then",fieldPath=".selector"
type AllowedNamespaces struct {
	// from is Same (default: the ToolServer's namespace), All, or Selector.
	// +optional
	// +kubebuilder:default=Same
	From NamespacesFrom `json:"from,omitempty"`

	// selector matches namespace labels when from is Selector.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// ToolServerStatus reports what the server offers and whether it answers.
type ToolServerStatus struct {
	// observedGeneration is the spec generation the status was last computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready first, then Degraded (serving last-known tools) and others.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// discoveredTools are the tools the server listed last time it answered.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=256
	DiscoveredTools []DiscoveredTool `json:"discoveredTools,omitempty"`

	// toolCount is the number of tools the server listed (may exceed len(discoveredTools)).
	// +optional
	// +kubebuilder:validation:Minimum=0
	ToolCount int32 `json:"toolCount,omitempty"`

	// serverInfo is what the server said about itself during initialization.
	// +optional
	ServerInfo *ServerInfo `json:"serverInfo,omitempty"`

	// lastSeenTime is when the server last answered.
	// +optional
	LastSeenTime *metav1.Time `json:"lastSeenTime,omitempty"`

	// consecutiveFailures counts failed health checks since the last success; it drives backoff.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ConsecutiveFailures int32 `json:"consecutiveFailures,omitempty"`
}

// DiscoveredTool is one tool the server lists.
type DiscoveredTool struct {
	// name of the tool.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`

	// description of the tool, truncated.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Description string `json:"description,omitempty"`

	// mutating is true when the tool changes state (by spec.tools.mutating or the server's annotations).
	// +optional
	Mutating bool `json:"mutating,omitempty"`

	// allowed is true when spec.tools lets investigations call the tool.
	// +optional
	Allowed bool `json:"allowed,omitempty"`
}

// ServerInfo identifies an MCP server implementation.
type ServerInfo struct {
	// name of the server implementation.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// version of the server implementation.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Version string `json:"version,omitempty"`

	// protocolVersion is the MCP protocol version agreed on, e.g. "2025-06-18".
	// +optional
	// +kubebuilder:validation:MaxLength=32
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// ToolServer is an MCP server whose tools investigations may call.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tsv,categories=kubage
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`
// +kubebuilder:printcolumn:name="Category",type=string,JSONPath=`.spec.category`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Tools",type=integer,JSONPath=`.status.toolCount`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ToolServer struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the server and how its tools may be used.
	// +required
	Spec ToolServerSpec `json:"spec"`

	// status reports the server's tools and health.
	// +optional
	Status ToolServerStatus `json:"status,omitempty"`
}

// ToolServerList is a list of ToolServer.
// +kubebuilder:object:root=true
type ToolServerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ToolServer `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ToolServer{}, &ToolServerList{})
}
