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
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A Secret or ConfigMap that charts and operators expect a Job to write (an install hook that
// generates a password, a certificate generator for a webhook) is missing when that Job did
// not write it: it failed, or it "succeeded" running a command its image does not know and
// printed only its usage. The Job named for the object, or whose command names it, is where
// the fault is: it is named with the missing object, with its state and what its log says.

// creatorJob is the Job of the namespace that is meant to write object name: its name starts
// with the object's name, or its command, arguments or env values name it.
func (e *env) creatorJob(ctx context.Context, name string) *batchv1.Job {
	jobs, err := listOnce[*batchv1.Job](ctx, e, "Job", scanMaxObjects)
	if err != nil {
		return nil
	}
	var best *batchv1.Job
	bestScore := 0
	for _, j := range jobs {
		score := 0
		if strings.HasPrefix(j.Name, name+"-") {
			score += 2
		}
		for _, c := range append(append([]corev1.Container(nil), j.Spec.Template.Spec.InitContainers...), j.Spec.Template.Spec.Containers...) {
			named := false
			for _, a := range commandLine(c) {
				named = named || hasToken(a, name)
			}
			for _, ev := range c.Env {
				named = named || ev.ValueFrom == nil && hasToken(ev.Value, name)
			}
			if named {
				score += 3
				break
			}
		}
		if score > bestScore || score == bestScore && score > 0 && best != nil && j.Name < best.Name {
			best, bestScore = j, score
		}
	}
	return best
}

// creatorJobNote describes the Job meant to write kind/name, for the missing object's
// summary: its state, its command, and what its log says. It returns "" when no Job is.
func (e *env) creatorJobNote(ctx context.Context, kind, name string) (string, ObjectRef) {
	j := e.creatorJob(ctx, name)
	if j == nil {
		return "", ObjectRef{}
	}
	jref := e.ref("Job", j.Name)
	state := "has not finished"
	switch {
	case jobCond(j, batchv1.JobFailed):
		state = "failed"
	case jobCond(j, batchv1.JobComplete):
		state = "completed without writing it"
	}
	note := fmt.Sprintf(" Job %s, which is meant to write %s %s, %s", j.Name, kind, name, state)
	if cs := j.Spec.Template.Spec.Containers; len(cs) > 0 {
		if cl := commandLine(cs[0]); len(cl) > 0 {
			note += fmt.Sprintf("; it runs %s", tokenFact(strings.Join(cl, " ")))
		}
	}
	if said := e.jobLogSays(ctx, j); said != "" {
		note += "; " + said
	}
	return note + ".", jref
}

// jobLogSays summarizes the log of a Job's newest pod: its error line, or that it printed
// only a usage text (the command is not one the image knows).
func (e *env) jobLogSays(ctx context.Context, j *batchv1.Job) string {
	pods, err := jobPods(ctx, e, j)
	if err != nil || len(pods) == 0 || len(j.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	newest := pods[0]
	for _, p := range pods[1:] {
		if p.CreationTimestamp.After(newest.CreationTimestamp.Time) {
			newest = p
		}
	}
	lr := e.logs(ctx, newest.Name, j.Spec.Template.Spec.Containers[0].Name, false)
	lines := textLines(lr)
	if len(lines) == 0 {
		return ""
	}
	if c := ExtractClues(lines); c.IsError() {
		return "its log says " + quoteLine(c.Line)
	}
	usage := 0
	for _, l := range lines {
		if usageLine.MatchString(clipBytes(l, maxClueLineLen)) {
			usage++
		}
	}
	if usage >= 2 {
		return fmt.Sprintf("its log is only a usage text (%s): the command is not one its image knows, so nothing was written", quoteLine(tools.Sanitize(firstNonEmpty(lines), 120, true)))
	}
	return ""
}

func jobCond(j *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func firstNonEmpty(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
