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
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A pod names its scheduler in spec.schedulerName. When no scheduler of that name runs, nothing
// binds the pod and nothing records an event about it: the pod is Pending with no
// FailedScheduling event and no PodScheduled condition. The default scheduler answers within
// seconds, so a pod naming another scheduler that has waited longer than that, with no pod of
// that scheduler in sight, is explained by the name.

// unservedSchedulerAfter is how long a pod may wait for a non-default scheduler's first word.
const unservedSchedulerAfter = 10 * time.Second

// schedulerUnserved explains a pod with no scheduling decision at all by its schedulerName;
// false when the pod uses the default scheduler, is too young, or a pod of that scheduler runs.
func (pc *podCheck) schedulerUnserved(ctx context.Context, evIDs []string) bool {
	p := pc.pod
	name := p.Spec.SchedulerName
	if name == "" || name == corev1.DefaultSchedulerName || pc.e.now.Sub(p.CreationTimestamp.Time) < unservedSchedulerAfter {
		return false
	}
	if runner := pc.schedulerPod(ctx, name); runner != "" {
		pc.e.evidence(fmt.Sprintf("Pod %s names schedulerName %q, served by pod %s", p.Name, name, runner), pc.objSource(), "")
		return false
	}
	wl := pc.e.workloadOf(ctx, p)
	pc.find(ctx, "unschedulable", "", fmt.Sprintf("%s %s's pods stay Pending with no scheduling event at all: pod %s names spec.schedulerName %q, and no scheduler of that name runs (no pod of it in the namespace), so nothing ever binds them to a node. Set schedulerName to %s (or remove it), or deploy the %s scheduler.",
		wl.Kind, wl.Name, p.Name, name, corev1.DefaultSchedulerName, name),
		wl, evIDs, map[string]string{"schedulerName": name, "message": "no FailedScheduling event or condition"})
	fs := pc.e.res.Findings
	fs[len(fs)-1].Confidence = 86
	return true
}

// schedulerPod names a running pod of the namespace that looks like the scheduler: its name
// or a label value is the scheduler's name, or its command line passes that name.
func (pc *podCheck) schedulerPod(ctx context.Context, name string) string {
	pods, err := listOnce[*corev1.Pod](ctx, pc.e, "Pod", scanMaxObjects)
	if err != nil {
		return ""
	}
	for _, o := range pods {
		if o.Status.Phase != corev1.PodRunning {
			continue
		}
		if strings.HasPrefix(o.Name, name) {
			return o.Name
		}
		for _, v := range o.Labels {
			if v == name {
				return o.Name
			}
		}
		for _, c := range o.Spec.Containers {
			for _, a := range append(append([]string{}, c.Command...), c.Args...) {
				if strings.Contains(a, "scheduler-name="+name) || strings.Contains(a, "schedulerName: "+name) {
					return o.Name
				}
			}
		}
	}
	return ""
}

func (pc *podCheck) objSource() Source {
	r := pc.ref
	return Source{Kind: SourceObject, Object: &r}
}
