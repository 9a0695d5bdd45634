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

package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubage/kubage/internal/text"
	corev1 "k8s.io/api/core/v1"
)

func describePod(b *summaryBuilder, p *corev1.Pod) {
	ready, total, restarts := 0, len(p.Spec.Containers), int32(0)
	var problems []string
	for _, cs := range p.Status.InitContainerStatuses {
		restarts += cs.RestartCount
		if st := ContainerProblem(cs); st != "" {
			problems = append(problems, "init:"+cs.Name+":"+st)
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		restarts += cs.RestartCount
		if cs.Ready {
			ready++
		}
		if st := ContainerProblem(cs); st != "" {
			problems = append(problems, cs.Name+":"+st)
		}
	}
	phase := string(p.Status.Phase)
	if p.Status.Reason != "" {
		phase += " (" + p.Status.Reason + ")"
	}
	if c := PodCondition(p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse {
		phase += " (" + c.Reason + ")"
	}
	b.s.Status = fmt.Sprintf("%s, ready %d/%d, restarts %d, node %s", phase, ready, total, restarts, orNone(p.Spec.NodeName))
	if len(problems) > 0 {
		b.s.Status += ", " + strings.Join(problems, ", ")
	}
	if p.Status.Message != "" {
		b.field("message", "%s", p.Status.Message)
	}
	b.field("images", "%s", images(p.Spec))
	for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		b.field("container "+c.Name, "%s", containerSpecLine(c))
	}
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		b.field("state "+cs.Name, "%s", ContainerStateLine(cs))
	}
	for _, c := range p.Status.Conditions {
		b.cond(string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime)
	}
}

func containerSpecLine(c corev1.Container) string {
	parts := []string{"image " + c.Image}
	if len(c.Resources.Requests) > 0 {
		parts = append(parts, "requests "+resourceList(c.Resources.Requests))
	}
	if len(c.Resources.Limits) > 0 {
		parts = append(parts, "limits "+resourceList(c.Resources.Limits))
	}
	var ports []string
	for _, p := range c.Ports {
		if p.Name != "" {
			ports = append(ports, fmt.Sprintf("%s=%d", p.Name, p.ContainerPort))
		} else {
			ports = append(ports, strconv.Itoa(int(p.ContainerPort)))
		}
	}
	if len(ports) > 0 {
		parts = append(parts, "ports "+strings.Join(ports, ","))
	}
	if c.ReadinessProbe != nil {
		parts = append(parts, "readiness "+ProbeLine(c.ReadinessProbe))
	}
	if c.LivenessProbe != nil {
		parts = append(parts, "liveness "+ProbeLine(c.LivenessProbe))
	}
	return strings.Join(parts, "; ")
}

// ProbeLine renders a probe's handler compactly.
func ProbeLine(p *corev1.Probe) string {
	switch {
	case p.HTTPGet != nil:
		return fmt.Sprintf("http-get %s port %s", p.HTTPGet.Path, p.HTTPGet.Port.String())
	case p.TCPSocket != nil:
		return "tcp port " + p.TCPSocket.Port.String()
	case p.Exec != nil:
		return "exec " + text.ClipMarked(strings.Join(p.Exec.Command, " "), 80)
	case p.GRPC != nil:
		return fmt.Sprintf("grpc port %d", p.GRPC.Port)
	}
	return "unknown"
}

// ContainerProblem names a container's bad state ("" when it looks fine).
func ContainerProblem(cs corev1.ContainerStatus) string {
	switch {
	case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "ContainerCreating" && cs.State.Waiting.Reason != "PodInitializing":
		s := cs.State.Waiting.Reason
		if t := cs.LastTerminationState.Terminated; t != nil {
			s += fmt.Sprintf("(last exit %d %s)", t.ExitCode, t.Reason)
		}
		return s
	case cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0:
		return fmt.Sprintf("Terminated(%s exit %d)", cs.State.Terminated.Reason, cs.State.Terminated.ExitCode)
	case cs.State.Running != nil && !cs.Ready && cs.Started != nil && *cs.Started:
		return "NotReady"
	}
	return ""
}

// ContainerStateLine renders a container status like kubectl describe does, in one line.
func ContainerStateLine(cs corev1.ContainerStatus) string {
	var s string
	switch {
	case cs.State.Waiting != nil:
		s = "Waiting " + cs.State.Waiting.Reason
		if cs.State.Waiting.Message != "" {
			s += ": " + cs.State.Waiting.Message
		}
	case cs.State.Running != nil:
		s = "Running"
	case cs.State.Terminated != nil:
		t := cs.State.Terminated
		s = fmt.Sprintf("Terminated %s exit %d", t.Reason, t.ExitCode)
		if t.Message != "" {
			s += ": " + t.Message
		}
	default:
		s = "Unknown"
	}
	s += fmt.Sprintf("; ready=%t restarts=%d", cs.Ready, cs.RestartCount)
	if t := cs.LastTerminationState.Terminated; t != nil {
		s += fmt.Sprintf("; last terminated %s exit %d", t.Reason, t.ExitCode)
	}
	return Sanitize(s, maxFieldValue, true)
}

// PodCondition returns the pod condition of a type, or nil.
func PodCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
