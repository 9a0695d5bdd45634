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

// SinkType is the protocol a NotificationSink speaks.
// +kubebuilder:validation:Enum=Slack;Webhook;CloudEvents
type SinkType string

const (
	// SinkSlack posts a Block Kit message to a Slack incoming webhook.
	SinkSlack SinkType = "Slack"
	// SinkWebhook posts a JSON document signed with HMAC-SHA256 (header X-Kubage-Signature).
	SinkWebhook SinkType = "Webhook"
	// SinkCloudEvents posts a CloudEvent 1.0 in HTTP binary mode.
	SinkCloudEvents SinkType = "CloudEvents"
)

// NotificationSinkSpec says where and how to deliver notifications. Every credential,
// the URL included (a Slack webhook URL is itself a credential), comes from a Secret.
// +kubebuilder:validation:XValidation:rule="self.type == 'Webhook' || !has(self.signingKey)",message="signingKey is only used by Webhook sinks",fieldPath=".signingKey"
type NotificationSinkSpec struct {
	// type is Slack, Webhook or CloudEvents.
	// +required
	Type SinkType `json:"type"`

	// url names the Secret key holding the endpoint (http or https).
	// +required
	URL SecretKeyReference `json:"url"`

	// token names a Secret key sent as "Authorization: Bearer <token>" (Webhook and CloudEvents).
	// +optional
	Token *SecretKeyReference `json:"token,omitempty"`

	// signingKey names a Secret key with the HMAC-SHA256 key of a Webhook sink: the header
	// X-Kubage-Signature is "sha256=" + hex(HMAC(key, timestamp + "." + body)), with the
	// timestamp (Unix seconds) in X-Kubage-Timestamp.
	// +optional
	SigningKey *SecretKeyReference `json:"signingKey,omitempty"`

	// serviceAccountName is a ServiceAccount of this namespace whose rights the operator uses
	// (by impersonation) to read the Secrets above, so the author can only send what that
	// account may read. --secrets-need-service-account makes it required.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// maxPerHour bounds the messages sent to this sink; more wait their turn.
	// +optional
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	MaxPerHour int32 `json:"maxPerHour,omitempty"`
}

// NotificationSinkStatus says whether the sink's configuration can be used.
type NotificationSinkStatus struct {
	// observedGeneration is the spec generation the status was last computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (the Secrets are readable and the URL is allowed), Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// NotificationSink is a place notifications go to: a Slack channel, a webhook or a
// CloudEvents broker. TroubleshootSchedules name the sinks of their namespace.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=nsink,categories=kubage
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NotificationSink struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says where and how to deliver.
	// +required
	Spec NotificationSinkSpec `json:"spec"`

	// status says whether the configuration can be used.
	// +optional
	Status NotificationSinkStatus `json:"status,omitempty"`
}

// NotificationSinkList is a list of NotificationSink.
// +kubebuilder:object:root=true
type NotificationSinkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NotificationSink `json:"items"`
}

// Notify says which sinks hear about an object's outcomes.
type Notify struct {
	// sinks are NotificationSinks in this namespace; each gets every message.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Sinks []LocalSinkReference `json:"sinks"`

	// onResolved also sends a message when a run finds nothing after a run that found a problem.
	// +optional
	OnResolved bool `json:"onResolved,omitempty"`
}

// LocalSinkReference names a NotificationSink in the namespace of the referring object.
type LocalSinkReference struct {
	// name of the NotificationSink.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// DeliveryState is where one notification stands.
// +kubebuilder:validation:Enum=Pending;Delivered;Failed
type DeliveryState string

const (
	// DeliveryPending: not delivered yet; retried at nextAttemptTime.
	DeliveryPending DeliveryState = "Pending"
	// DeliveryDelivered: the sink accepted it (a 2xx answer).
	DeliveryDelivered DeliveryState = "Delivered"
	// DeliveryFailed: every attempt failed; it is not tried again.
	DeliveryFailed DeliveryState = "Failed"
)

// NotificationDelivery is one message to one sink, recorded before it is sent so that an
// operator restart neither loses it nor sends it twice.
type NotificationDelivery struct {
	// id identifies the message to the receiver (X-Kubage-Delivery, the CloudEvent id), the
	// same on every attempt, so a receiver can drop a repeat.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	ID string `json:"id"`

	// sink is the NotificationSink's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Sink string `json:"sink"`

	// event is NewProblem or ProblemResolved (schedules), SessionCompleted or SessionFailed (Troubleshoots).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Event string `json:"event"`

	// troubleshootName is the run the message is about.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	TroubleshootName string `json:"troubleshootName,omitempty"`

	// problem is what the run found (for NewProblem).
	// +optional
	Problem *ScheduledProblem `json:"problem,omitempty"`

	// state is Pending, Delivered or Failed.
	// +required
	State DeliveryState `json:"state"`

	// attempts made so far.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Attempts int32 `json:"attempts,omitempty"`

	// createdTime is when the message was recorded.
	// +optional
	CreatedTime *metav1.Time `json:"createdTime,omitempty"`

	// nextAttemptTime is when a pending message is tried next.
	// +optional
	NextAttemptTime *metav1.Time `json:"nextAttemptTime,omitempty"`

	// deliveredTime is when the sink accepted the message.
	// +optional
	DeliveredTime *metav1.Time `json:"deliveredTime,omitempty"`

	// lastError says why the last attempt failed.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	LastError string `json:"lastError,omitempty"`
}

func init() {
	SchemeBuilder.Register(&NotificationSink{}, &NotificationSinkList{})
}
