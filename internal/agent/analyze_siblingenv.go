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
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// The same image run twice (the web Deployment and its migration Job or hook, a worker and
// its CronJob) needs the same settings. When the failing one is given fewer (its template
// forgot the Secret the other loads) and its error names no setting, the names only the
// healthy one is given are what it lacks: "settings.DATABASES is improperly configured" from
// a Job that never loads DATABASE_URL.

// envNames are the variable names a container gets, with where each comes from.
func (e *env) envNames(ctx context.Context, c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, ev := range c.Env {
		out[ev.Name] = "env"
	}
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	for _, ef := range c.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			if m := cm(ef.ConfigMapRef.Name); m != nil {
				for k := range m.Data {
					out[ef.Prefix+k] = "ConfigMap " + m.Name
				}
			}
		case ef.SecretRef != nil:
			if s, err := getAs[*corev1.Secret](ctx, e, "Secret", ef.SecretRef.Name); err == nil {
				for k := range s.Data {
					out[ef.Prefix+k] = "Secret " + s.Name
				}
			}
		}
	}
	return out
}

// sameImageSibling reports the settings a healthy workload running the same image is given
// and the failing container is not.
func (pc *podCheck) sameImageSibling(ctx context.Context, d *depCheck) bool {
	e := pc.e
	repo := imageRepo(d.spec.Image)
	if repo == "" {
		return false
	}
	self := e.workloadOf(ctx, pc.pod)
	type tmpl struct {
		ref  ObjectRef
		spec corev1.PodSpec
	}
	var others []tmpl
	if ds, err := listOnce[*appsv1.Deployment](ctx, e, "Deployment", scanMaxObjects); err == nil {
		for _, x := range ds {
			if x.Status.ReadyReplicas > 0 {
				others = append(others, tmpl{e.ref("Deployment", x.Name), x.Spec.Template.Spec})
			}
		}
	}
	if ss, err := listOnce[*appsv1.StatefulSet](ctx, e, "StatefulSet", scanMaxObjects); err == nil {
		for _, x := range ss {
			if x.Status.ReadyReplicas > 0 {
				others = append(others, tmpl{e.ref("StatefulSet", x.Name), x.Spec.Template.Spec})
			}
		}
	}
	if cjs, err := listOnce[*batchv1.CronJob](ctx, e, "CronJob", scanMaxObjects); err == nil {
		for _, x := range cjs {
			if x.Status.LastSuccessfulTime != nil {
				others = append(others, tmpl{e.ref("CronJob", x.Name), x.Spec.JobTemplate.Spec.Template.Spec})
			}
		}
	}
	mine := e.envNames(ctx, d.spec)
	for _, o := range others {
		if o.ref.Key() == self.Key() {
			continue
		}
		for _, c := range o.spec.Containers {
			if imageRepo(c.Image) != repo {
				continue
			}
			theirs := e.envNames(ctx, c)
			var missing []string
			from := map[string]bool{}
			for k, src := range theirs {
				if _, ok := mine[k]; !ok {
					missing = append(missing, k)
					if src != "env" {
						from[src] = true
					}
				}
			}
			if len(missing) == 0 || len(missing) > 12 {
				continue
			}
			sort.Strings(missing)
			var srcs []string
			var extra []ObjectRef
			for s := range from {
				srcs = append(srcs, s)
				kind, name, _ := strings.Cut(s, " ")
				extra = append(extra, e.ref(kind, name))
			}
			sort.Strings(srcs)
			loads := ""
			if len(srcs) > 0 {
				loads = fmt.Sprintf(" (loaded from %s)", strings.Join(srcs, ", "))
			}
			d.report(ctx, "config-value-missing", 65, self, fmt.Sprintf("%s. Nothing its error names explains it, but %s %s runs the same image (%s) with environment variables this container is not given: %s%s. Give %s %s the same env (envFrom the same sources), then run it again.",
				d.opening(), o.ref.Kind, o.ref.Name, repo, strings.Join(clipList(missing, 8), ", "), loads, self.Kind, self.Name), nil, append(extra, o.ref),
				map[string]string{"key": missing[0], "sourceResource": kubectlResource(self)})
			return true
		}
	}
	return false
}
