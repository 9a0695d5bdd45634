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

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// When a finding blames a setting, the value a working workload of the namespace gives the
// same setting is the likeliest right one: teams copy configuration between their services,
// and the one that still runs kept the value the failing one lost. It is offered as a
// comparison, never as a verdict (another service may rightly use another value).

// Bounds of the comparison.
const (
	maxComparedTemplates = 60
	maxComparisons       = 2
)

// workingTemplate is the pod template of a workload that runs: Ready replicas, or a CronJob
// whose last run succeeded.
type workingTemplate struct {
	ref  ObjectRef
	spec corev1.PodSpec
	meta metav1.ObjectMeta
}

// workingTemplates lists the namespace's working workloads' templates (bounded).
func (e *env) workingTemplates(ctx context.Context) []workingTemplate {
	var out []workingTemplate
	add := func(kind, name string, ready bool, t corev1.PodTemplateSpec) {
		if ready && len(out) < maxComparedTemplates {
			out = append(out, workingTemplate{ref: e.ref(kind, name), spec: t.Spec, meta: t.ObjectMeta})
		}
	}
	if l, err := listOnce[*appsv1.Deployment](ctx, e, "Deployment", scanMaxObjects); err == nil {
		for _, x := range l {
			add("Deployment", x.Name, x.Status.ReadyReplicas > 0, x.Spec.Template)
		}
	}
	if l, err := listOnce[*appsv1.StatefulSet](ctx, e, "StatefulSet", scanMaxObjects); err == nil {
		for _, x := range l {
			add("StatefulSet", x.Name, x.Status.ReadyReplicas > 0, x.Spec.Template)
		}
	}
	if l, err := listOnce[*batchv1.CronJob](ctx, e, "CronJob", scanMaxObjects); err == nil {
		for _, x := range l {
			add("CronJob", x.Name, x.Status.LastSuccessfulTime != nil, x.Spec.JobTemplate.Spec.Template)
		}
	}
	return out
}

// othersSet says which working workloads give setting name a value that neither is nor holds
// value (the failing one's value, or the token its error quotes), as a sentence ("" when none
// does). self is the failing workload, left out.
func (e *env) othersSet(ctx context.Context, name, value string, self ObjectRef) string {
	if name == "" {
		return ""
	}
	var said []string
	seen := map[string]bool{}
	for _, t := range e.workingTemplates(ctx) {
		if t.ref.Key() == self.Key() || len(said) >= maxComparisons {
			continue
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: t.ref.Name, Namespace: e.s.Namespace, Labels: t.meta.Labels}, Spec: t.spec}
		for _, c := range t.spec.Containers {
			for _, s := range e.configSettings(ctx, p, c, t.ref) {
				if s.secret || s.name != name || s.value == "" || strings.EqualFold(s.value, value) || hasToken(s.value, value) || seen[t.ref.Key()] {
					continue
				}
				seen[t.ref.Key()] = true
				from := ""
				if s.ref.Key() != t.ref.Key() {
					from = " (" + clipString(s.where, 80) + ")"
				}
				said = append(said, fmt.Sprintf("%s %s, which runs, sets %s = %s%s", t.ref.Kind, t.ref.Name, name, s.value, from))
			}
		}
	}
	if len(said) == 0 {
		return ""
	}
	return " For comparison, " + strings.Join(said, "; ") + "."
}
