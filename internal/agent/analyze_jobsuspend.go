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
)

// suspendedJob is the finding for a suspended Job. A Job a CronJob creates inherits its
// jobTemplate: when that template sets suspend, every run starts suspended and, under
// concurrencyPolicy Forbid, the first one stays active and blocks the rest; the CronJob is
// the object to edit (its own spec.suspend pauses the schedule, not the Jobs).
func suspendedJob(ctx context.Context, e *env, j *batchv1.Job, jref, wl ObjectRef, evIDs []string) Finding {
	f := Finding{Rule: "job-suspended", Object: jref, Culprit: jref, Evidence: evIDs, Facts: map[string]string{},
		Summary: fmt.Sprintf("Job %s is suspended, so it runs no pods.", j.Name)}
	queue := ""
	for k, v := range j.Labels {
		if strings.HasSuffix(k, "/queue-name") {
			queue = fmt.Sprintf(" It carries label %s=%s: a queueing controller (Kueue) creates such Jobs suspended and resumes them only when it admits them, and none has here.", k, v)
		}
	}
	if wl.Kind != "CronJob" {
		f.Summary += queue
		return f
	}
	cj, err := getAs[*batchv1.CronJob](ctx, e, "CronJob", wl.Name)
	if err != nil || cj.Spec.JobTemplate.Spec.Suspend == nil || !*cj.Spec.JobTemplate.Spec.Suspend {
		f.Summary += queue
		return f
	}
	f.Culprit, f.Affected = wl, []ObjectRef{wl, jref}
	f.Facts["field"] = "spec.jobTemplate.spec.suspend"
	blocked := ""
	if cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent {
		blocked = " With concurrencyPolicy Forbid the suspended Job stays active, so every later run is skipped."
	}
	f.Summary = fmt.Sprintf("Job %s, created by CronJob %s, is suspended and runs no pods: the CronJob's spec.jobTemplate.spec.suspend is true, so every Job it creates starts suspended.%s%s Set spec.jobTemplate.spec.suspend to false in CronJob %s (its own spec.suspend is what pauses the schedule), then delete the suspended Job.",
		j.Name, cj.Name, blocked, queue, cj.Name)
	return f
}
