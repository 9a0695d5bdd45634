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

package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kubage/kubage/internal/text"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
)

// Check implements Runner.
func (r *Job) Check(ctx context.Context, owner Owner, taskID string) (Outcome, error) {
	res, err := ReadResult(ctx, r.client, owner, taskID)
	switch {
	case errors.Is(err, ErrMalformedResult):
		return Outcome{State: StateFailed, Reason: clipReason(err.Error())}, nil
	case err != nil:
		return Outcome{}, err
	case res != nil:
		return Outcome{State: StateDone, Result: res}, nil
	}
	name := JobName(owner, taskID)
	job, err := r.client.BatchV1().Jobs(owner.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Outcome{State: StateMissing}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("reading Job %s/%s: %w", owner.Namespace, name, err)
	}
	if !owner.Owns(job.OwnerReferences) {
		return Outcome{State: StateMissing}, nil
	}
	pods, err := r.client.CoreV1().Pods(owner.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.Set{jobNameLabel: job.Name}.String(),
		Limit:         20,
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("listing pods of Job %s/%s: %w", owner.Namespace, name, err)
	}
	// Pods of a deleted namesake may linger while they are collected.
	ownPods := pods.Items[:0]
	for _, p := range pods.Items {
		if c := metav1.GetControllerOf(&p); c != nil && c.UID == job.UID {
			ownPods = append(ownPods, p)
		}
	}
	pods.Items = ownPods
	if c := jobCondition(job, batchv1.JobFailed); c != nil {
		return Outcome{State: StateFailed, Reason: clipReason(failedJobReason(job, c, pods.Items))}, nil
	}
	if c := jobCondition(job, batchv1.JobComplete); c != nil {
		// The result is read first, so a complete Job without one wrote nothing usable.
		return Outcome{State: StateFailed, Reason: clipReason(fmt.Sprintf("agent Job %s completed without writing its result ConfigMap %s", job.Name, ResultName(owner, taskID)))}, nil
	}
	if reason := r.startFailure(job, pods.Items); reason != "" {
		return Outcome{State: StateFailed, Reason: clipReason(reason)}, nil
	}
	if len(pods.Items) == 0 && r.now().Sub(job.CreationTimestamp.Time) > r.opts.StartTimeout {
		if msg := r.createFailure(ctx, job); msg != "" {
			return Outcome{State: StateFailed, Reason: clipReason(fmt.Sprintf("agent Job %s cannot create its pod: %s", job.Name, msg))}, nil
		}
	}
	return Outcome{State: StateRunning}, nil
}

func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if c := &job.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// failedJobReason explains a Failed Job in one line, with what its last pod said.
func failedJobReason(job *batchv1.Job, c *batchv1.JobCondition, pods []corev1.Pod) string {
	var what string
	switch c.Reason {
	case batchv1.JobReasonDeadlineExceeded:
		what = fmt.Sprintf("exceeded its deadline of %ds", ptr.Deref(job.Spec.ActiveDeadlineSeconds, 0))
	case batchv1.JobReasonBackoffLimitExceeded:
		what = fmt.Sprintf("failed %d time(s)", job.Status.Failed)
	default:
		what = "failed: " + strings.TrimSpace(c.Reason+" "+c.Message)
	}
	msg := "agent Job " + job.Name + " " + what
	if last := lastPodState(pods); last != "" {
		msg += "; last pod: " + last
	}
	return msg
}

// lastPodState describes the agent container of the newest pod: its exit, or why it waits.
func lastPodState(pods []corev1.Pod) string {
	if len(pods) == 0 {
		return ""
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].CreationTimestamp.After(pods[j].CreationTimestamp.Time) })
	p := &pods[0]
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != agentContainer {
			continue
		}
		switch {
		case cs.State.Terminated != nil:
			t := cs.State.Terminated
			return strings.TrimSpace(fmt.Sprintf("exit code %d (%s) %s", t.ExitCode, t.Reason, lastLine(t.Message)))
		case cs.State.Waiting != nil:
			return strings.TrimSpace(cs.State.Waiting.Reason + " " + cs.State.Waiting.Message)
		}
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			return strings.TrimSpace("Pending: " + cond.Reason + " " + cond.Message)
		}
	}
	return string(p.Status.Phase)
}

// startFailures are the waiting reasons of a container that cannot start without a change.
var startFailures = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true,
}

// startFailure reports a pod whose agent container has not been able to start for longer
// than StartTimeout.
func (r *Job) startFailure(job *batchv1.Job, pods []corev1.Pod) string {
	for _, p := range pods {
		if r.now().Sub(p.CreationTimestamp.Time) <= r.opts.StartTimeout || p.DeletionTimestamp != nil {
			continue
		}
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && startFailures[w.Reason] {
				return fmt.Sprintf("agent Job %s cannot start its pod for %s: %s: %s",
					job.Name, r.now().Sub(p.CreationTimestamp.Time).Round(time.Second), w.Reason, lastLine(w.Message))
			}
		}
	}
	return ""
}

// createFailure returns the latest FailedCreate event of a Job that has no pod, or "".
func (r *Job) createFailure(ctx context.Context, job *batchv1.Job) string {
	evs, err := r.client.CoreV1().Events(job.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.kind": "Job", "involvedObject.name": job.Name}.String(),
		Limit:         50,
	})
	if err != nil {
		return ""
	}
	var latest *corev1.Event
	for i := range evs.Items {
		e := &evs.Items[i]
		if e.Reason != "FailedCreate" || e.InvolvedObject.UID != job.UID {
			continue
		}
		if latest == nil || e.LastTimestamp.After(latest.LastTimestamp.Time) {
			latest = e
		}
	}
	if latest == nil {
		return ""
	}
	return lastLine(latest.Message)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	return text.Clip(s, 300)
}

func clipReason(s string) string { return text.Clip(s, maxReason) }
