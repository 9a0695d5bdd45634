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
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// annLimitRanger is the annotation the LimitRanger admission plugin writes on a pod whose
// requests or limits it filled in from a LimitRange's defaults ("LimitRanger plugin set:
// memory request for container app; memory limit for container app").
const annLimitRanger = "kubernetes.io/limit-ranger"

// limitRangeDefault reports a LimitRange whose default request (or default limit, which
// becomes the request when none is given) put a resource no node can fit into a pod whose
// own spec asked for none: the namespace's default, not the workload, is what to change.
func (pc *podCheck) limitRangeDefault(ctx context.Context, p *corev1.Pod, resources []string) (ObjectRef, string, bool) {
	d, ok := defaultedRequest(ctx, pc.e, p, resources)
	if !ok {
		return ObjectRef{}, "", false
	}
	return d.ref, d.says() + ", so each such pod of the namespace asks for more than a node can give. Lower the LimitRange's " + d.field + ", or give the workload its own requests.", true
}

// defaulted is a request a LimitRange's default wrote into a container that asked for none.
type defaulted struct {
	ref                   ObjectRef
	lr, field, res, value string
	container, ann        string
}

// says is the sentence that tells where the request comes from (without its consequence).
func (d defaulted) says() string {
	return fmt.Sprintf(" The %s request %s is not in the pod template: LimitRange %s sets %s %s=%s for every container that asks for none (the LimitRanger admission plugin wrote it into container %s, annotation %s: %q)",
		d.res, d.value, d.lr, d.field, d.res, d.value, d.container, annLimitRanger, tools.Sanitize(d.ann, 200, true))
}

// defaultedRequest finds, for the first of resources a LimitRange default set in pod p, the
// LimitRange and its field.
func defaultedRequest(ctx context.Context, e *env, p *corev1.Pod, resources []string) (defaulted, bool) {
	ann := p.Annotations[annLimitRanger]
	if ann == "" {
		return defaulted{}, false
	}
	lrs, _, err := listAs[*corev1.LimitRange](ctx, e, "LimitRange", tools.ListOptions{Max: 20})
	if err != nil {
		return defaulted{}, false
	}
	for _, res := range resources {
		name := corev1.ResourceName(res)
		for _, c := range p.Spec.Containers {
			if !limitRangerSet(ann, res, "request", c.Name) {
				continue
			}
			got, ok := c.Resources.Requests[name]
			if !ok {
				continue
			}
			for _, lr := range lrs {
				for _, it := range lr.Spec.Limits {
					if it.Type != corev1.LimitTypeContainer {
						continue
					}
					def, field := it.DefaultRequest[name], "defaultRequest"
					if _, set := it.DefaultRequest[name]; !set {
						def, field = it.Default[name], "default"
					}
					if def.IsZero() || def.Cmp(got) != 0 {
						continue
					}
					return defaulted{ref: e.ref("LimitRange", lr.Name), lr: lr.Name, field: field, res: res, value: got.String(), container: c.Name, ann: ann}, true
				}
			}
		}
	}
	return defaulted{}, false
}

// quotaRequestDefaulted says when the request a quota refuses was put into the workload's
// pods by a LimitRange default (quota detail "requested: requests.cpu=500m"): the namespace's
// default, not the template, is what counts against the quota.
func (e *env) quotaRequestDefaulted(ctx context.Context, workload ObjectRef, detail string) (ObjectRef, string, bool) {
	m := quotaRequested.FindStringSubmatch(detail)
	if m == nil {
		return ObjectRef{}, "", false
	}
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	for _, p := range pods {
		if p.Annotations[annLimitRanger] == "" || e.workloadOf(ctx, p).Key() != workload.Key() {
			continue
		}
		if d, ok := defaultedRequest(ctx, e, p, []string{m[1]}); ok {
			return d.ref, d.says() + fmt.Sprintf(", so each pod of %s %s counts %s=%s against the quota. Give the workload its own (smaller) requests, or lower the LimitRange's %s.", workload.Kind, workload.Name, m[1], d.value, d.field), true
		}
	}
	return ObjectRef{}, "", false
}

// quotaRequested reads the resource a quota rejection names ("requested: requests.cpu=500m").
var quotaRequested = regexp.MustCompile(`requested: (?:requests\.)?([a-z-]+)=`)

// limitRangeBounding picks, among the namespace's LimitRanges, the one that sets the bound a
// LimitRanger rejection quotes ("maximum storage usage per PersistentVolumeClaim is 50Gi"):
// same type, same resource, max or min; the first one when none says so.
func limitRangeBounding(lrs []*corev1.LimitRange, detail string) *corev1.LimitRange {
	if len(lrs) == 0 {
		return nil
	}
	m := limitRangeBound.FindStringSubmatch(detail)
	if m == nil {
		return lrs[0]
	}
	typ, res := corev1.LimitType(m[3]), corev1.ResourceName(m[2])
	for _, lr := range lrs {
		for _, it := range lr.Spec.Limits {
			if it.Type != typ {
				continue
			}
			bounds := it.Max
			if m[1] == "minimum" {
				bounds = it.Min
			}
			if q, ok := bounds[res]; ok && strings.HasPrefix(strings.TrimSpace(m[4]), q.String()) {
				return lr
			}
		}
	}
	return lrs[0]
}

var limitRangeBound = regexp.MustCompile(`(maximum|minimum) ([a-z-]+) usage per (Container|Pod|PersistentVolumeClaim) is ([^,\]]+)`)

// defaultLimit is the namespace's LimitRange that gives containers a default limit of resource
// res (equal to val when the API server's message quoted it), with that default.
func (e *env) defaultLimit(ctx context.Context, res corev1.ResourceName, val string) (*corev1.LimitRange, string) {
	lrs, _, err := listAs[*corev1.LimitRange](ctx, e, "LimitRange", tools.ListOptions{Max: 20})
	if err != nil {
		return nil, ""
	}
	for _, lr := range lrs {
		for _, it := range lr.Spec.Limits {
			if q, ok := it.Default[res]; ok && it.Type == corev1.LimitTypeContainer && (val == "" || q.String() == val) {
				return lr, q.String()
			}
		}
	}
	return nil, ""
}

// limitRangeSlowStart reports a LimitRange whose default CPU limit, which the pod template
// does not ask for, holds a container whose liveness (or startup) probe finds nothing
// listening yet or times out: throttled to a fraction of a core, the application starts
// slower than the probe allows and is restarted before it is up. The namespace's default is
// what put the limit there.
func (pc *podCheck) limitRangeSlowStart(ctx context.Context, spec corev1.Container, msg string) (ObjectRef, string, bool) {
	low := strings.ToLower(msg)
	if !probeTimedOut(msg) && !strings.Contains(low, "connection refused") {
		return ObjectRef{}, "", false
	}
	ann := pc.pod.Annotations[annLimitRanger]
	q, ok := spec.Resources.Limits[corev1.ResourceCPU]
	if !ok || q.MilliValue() > 500 || !limitRangerSet(ann, "cpu", "limit", spec.Name) {
		return ObjectRef{}, "", false
	}
	lr, _ := pc.e.defaultLimit(ctx, corev1.ResourceCPU, q.String())
	if lr == nil {
		return ObjectRef{}, "", false
	}
	why := fmt.Sprintf(" Its cpu limit %s is not in the pod template: LimitRange %s sets default cpu=%s for every container that asks for none (the LimitRanger admission plugin wrote it into container %s, annotation %s: %q). Held to %s, the application starts slower than the probe allows and is restarted before it listens. Raise the LimitRange's default cpu limit, give the workload its own cpu limit, or a startupProbe.",
		q.String(), lr.Name, q.String(), spec.Name, annLimitRanger, tools.Sanitize(ann, 200, true), cpuWords(q.MilliValue()))
	return pc.e.ref("LimitRange", lr.Name), why, true
}

// limitRangerSet reports whether the LimitRanger's annotation says it set resource res's
// field ("request" or "limit") for container c: "LimitRanger plugin set: cpu, memory request
// for container app; cpu, memory limit for container app".
func limitRangerSet(ann, res, field, c string) bool {
	ann = strings.TrimPrefix(ann, "LimitRanger plugin set:")
	for _, part := range strings.Split(ann, ";") {
		what, ok := strings.CutSuffix(strings.TrimSpace(part), " "+field+" for container "+c)
		if !ok {
			continue
		}
		for _, r := range strings.Split(what, ",") {
			if strings.TrimSpace(r) == res {
				return true
			}
		}
	}
	return false
}
