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

// ConcurrencyPolicy says what a TroubleshootSchedule does when a run is due while an
// earlier one is still investigating (the CronJob's policy).
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// ConcurrencyAllow starts the new run alongside the old one.
	ConcurrencyAllow ConcurrencyPolicy = "Allow"
	// ConcurrencyForbid skips the new run while the old one is active.
	ConcurrencyForbid ConcurrencyPolicy = "Forbid"
	// ConcurrencyReplace deletes the active run and starts the new one.
	ConcurrencyReplace ConcurrencyPolicy = "Replace"
)

// TroubleshootScheduleSpec says when to investigate and what.
// +kubebuilder:validation:XValidation:rule="!has(self.troubleshootTemplate.spec.alert)",message="a scheduled run is not an alert's session: template.spec.alert is not allowed",fieldPath=".troubleshootTemplate.spec.alert"
// +kubebuilder:validation:XValidation:rule="!has(self.troubleshootTemplate.spec.approvals) || size(self.troubleshootTemplate.spec.approvals) == 0",message="approvals are given on each run, not in the template",fieldPath=".troubleshootTemplate.spec.approvals"
// +kubebuilder:validation:XValidation:rule="!has(self.troubleshootTemplate.spec.notify)",message="set notify on the schedule, which tells a problem once; runs notifying on their own would repeat it every run",fieldPath=".troubleshootTemplate.spec.notify"
type TroubleshootScheduleSpec struct {
	// schedule in cron format, as a CronJob reads it: five fields (minute hour
	// day-of-month month day-of-week), names, ranges, steps, @hourly-style descriptors and @every.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('TZ=') && !self.startsWith('CRON_TZ=')",message="time zones in the schedule are not supported; use spec.timeZone"
	Schedule string `json:"schedule"`

	// timeZone is the IANA name of the zone the schedule is read in, e.g. "Europe/Berlin";
	// unset means UTC.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$`
	TimeZone *string `json:"timeZone,omitempty"`

	// startingDeadlineSeconds skips a run that could not start within this many seconds of
	// its scheduled time (the operator was down, or Forbid held it back). Unset means no deadline.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy says what happens when a run is due while another is active:
	// Forbid (the default) skips it, Allow runs both, Replace stops the old one.
	// +optional
	// +kubebuilder:default=Forbid
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// suspend stops new runs; active runs go on.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// successfulRunsHistoryLimit is how many finished runs that found a problem are kept.
	// A run that found nothing is kept only until a newer run finishes.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	SuccessfulRunsHistoryLimit *int32 `json:"successfulRunsHistoryLimit,omitempty"`

	// failedRunsHistoryLimit is how many failed runs are kept.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	FailedRunsHistoryLimit *int32 `json:"failedRunsHistoryLimit,omitempty"`

	// notify names the sinks told about a new problem (and, with onResolved, its end).
	// +optional
	Notify *Notify `json:"notify,omitempty"`

	// troubleshootTemplate is the Troubleshoot each run creates, owned by this schedule.
	// +required
	TroubleshootTemplate TroubleshootTemplate `json:"troubleshootTemplate"`
}

// TroubleshootTemplate is the Troubleshoot a scheduled run creates.
type TroubleshootTemplate struct {
	// metadata of each run: labels and annotations only.
	// +optional
	Metadata TemplateMetadata `json:"metadata,omitempty"`

	// spec of each run.
	// +required
	Spec TroubleshootSpec `json:"spec"`
}

// TemplateMetadata is the part of an object's metadata a template may set.
type TemplateMetadata struct {
	// labels of each created object.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Labels map[string]string `json:"labels,omitempty"`

	// annotations of each created object.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ScheduledProblem is the problem the runs of a schedule last found.
type ScheduledProblem struct {
	// fingerprint identifies the root cause across runs: its category and the objects it
	// affects, not its wording. A run with another fingerprint is a new problem.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Fingerprint string `json:"fingerprint"`

	// summary of the root cause as the run that first found it wrote it.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Summary string `json:"summary,omitempty"`

	// category of the root cause.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Category string `json:"category,omitempty"`

	// troubleshootName is the newest run that found this problem.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	TroubleshootName string `json:"troubleshootName,omitempty"`

	// firstSeenTime is the scheduled time of the first run that found this problem.
	// +optional
	FirstSeenTime *metav1.Time `json:"firstSeenTime,omitempty"`

	// lastSeenTime is the scheduled time of the newest run that found this problem.
	// +optional
	LastSeenTime *metav1.Time `json:"lastSeenTime,omitempty"`

	// runs counts the runs in a row that found this problem.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Runs int32 `json:"runs,omitempty"`
}

// TroubleshootScheduleStatus is what the schedule has done.
type TroubleshootScheduleStatus struct {
	// observedGeneration is the spec generation the status was last computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready first, then Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// active lists the runs that are still investigating.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MaxLength=253
	Active []string `json:"active,omitempty"`

	// lastScheduleTime is the scheduled time of the newest run created.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastJudgedScheduleTime is the scheduled time of the newest finished run whose
	// outcome has been judged; older runs that finish later are not judged again.
	// +optional
	LastJudgedScheduleTime *metav1.Time `json:"lastJudgedScheduleTime,omitempty"`

	// nextScheduleTime is when the next run is due (unset while suspended).
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`

	// lastProblem is the problem the newest judged run found; unset when it found none.
	// +optional
	LastProblem *ScheduledProblem `json:"lastProblem,omitempty"`

	// notifications are the newest messages to spec.notify's sinks, pending or done.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=32
	Notifications []NotificationDelivery `json:"notifications,omitempty"`
}

// TroubleshootSchedule investigates its namespace on a cron schedule, CronJob-style: each
// run is an owned Troubleshoot; a newly found problem is reported once, not on every run.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tss,categories=kubage
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Next",type=string,JSONPath=`.status.nextScheduleTime`,priority=1
// +kubebuilder:printcolumn:name="Problem",type=string,JSONPath=`.status.lastProblem.summary`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 52",message="the name is at most 52 characters, so a run's name (name-<unix time>) fits in 63"
type TroubleshootSchedule struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says when to investigate and what.
	// +required
	Spec TroubleshootScheduleSpec `json:"spec"`

	// status is what the schedule has done.
	// +optional
	Status TroubleshootScheduleStatus `json:"status,omitempty"`
}

// TroubleshootScheduleList is a list of TroubleshootSchedule.
// +kubebuilder:object:root=true
type TroubleshootScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TroubleshootSchedule `json:"items"`
}

func init() {
	SchemeBuilder.Register(&TroubleshootSchedule{}, &TroubleshootScheduleList{})
}
