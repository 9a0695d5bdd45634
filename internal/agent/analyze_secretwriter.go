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

package agent

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Short-lived credentials (a registry token, a cloud login) are written into a Secret by a
// Job or CronJob that refreshes them. When the credentials are rejected and that writer's
// latest run failed, the writer is the cause: the Secret only holds what it last wrote.

// secretWriter finds the failing Job (or the CronJob owning it) whose command or arguments
// name secret. It returns the writer, the failed Job, what the run said, and ok.
func (e *env) secretWriter(ctx context.Context, secret string) (ObjectRef, ObjectRef, string, bool) {
	word, err := regexp.Compile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(secret) + `($|[^a-z0-9-])`)
	if err != nil {
		return ObjectRef{}, ObjectRef{}, "", false
	}
	jobs, err := listOnce[*batchv1.Job](ctx, e, "Job", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, ObjectRef{}, "", false
	}
	sorted := append([]*batchv1.Job(nil), jobs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CreationTimestamp.After(sorted[j].CreationTimestamp.Time) })
	for _, j := range sorted {
		reason := ""
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
				reason = c.Reason
			}
		}
		if reason == "" || !mentions(j.Spec.Template.Spec, word) {
			continue
		}
		jref := e.ref("Job", j.Name)
		writer := jref
		if or := controllerOfObj(j); or != nil && or.Kind == "CronJob" {
			writer = e.ref("CronJob", or.Name)
		}
		said := e.jobPodMessage(ctx, j)
		detail := fmt.Sprintf("%s %s writes Secret %s, and its latest Job %s failed (%s)", writer.Kind, writer.Name, secret, j.Name, reason)
		if said != "" {
			detail += ": " + said
		}
		return writer, jref, detail, true
	}
	return ObjectRef{}, ObjectRef{}, "", false
}

// mentions reports whether a pod template's commands, arguments or env values match word.
func mentions(spec corev1.PodSpec, word *regexp.Regexp) bool {
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		parts := commandLine(c)
		for _, ev := range c.Env {
			parts = append(parts, ev.Value)
		}
		if word.MatchString(strings.Join(parts, " ")) {
			return true
		}
	}
	return false
}

// jobPodMessage is the termination message (or reason) of a failed pod of Job j.
func (e *env) jobPodMessage(ctx context.Context, j *batchv1.Job) string {
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return ""
	}
	for _, p := range pods {
		if or := controllerOf(p); or == nil || or.Kind != "Job" || or.Name != j.Name {
			continue
		}
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
				if t.Message != "" {
					return fmt.Sprintf("exit code %d, %s", t.ExitCode, tools.Sanitize(t.Message, 300, true))
				}
				return fmt.Sprintf("exit code %d (%s)", t.ExitCode, t.Reason)
			}
		}
	}
	return ""
}
