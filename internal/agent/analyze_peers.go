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
	corev1 "k8s.io/api/core/v1"
)

// Peers. A pod that runs but never becomes ready is often healthy itself: another part of
// the same system, which it talks to, is down (route reflectors a node agent peers with,
// the primary its replicas follow, the coordinator its workers join). When the pod's own
// text names nothing the cluster knows, the namespace's workloads that belong to the same
// system and have no ready pod become its leads: a finding on one of them explains the
// pod's symptom, and a targeted session follows it there.

// maxPeers caps the peers followed from one symptom.
const maxPeers = 2

// systemLabels are the label keys whose shared value says two workloads are parts of one
// application (the recommended labels, and Helm's release label).
var systemLabels = []string{"app.kubernetes.io/part-of", "app.kubernetes.io/instance", "release"}

// peer is a workload of the namespace that may be part of the same system.
type peer struct {
	ref      ObjectRef
	tmpl     corev1.PodTemplateSpec
	ready    int32
	desired  int32
	relation string
}

// followPeers adds to the pod's newest finding the workloads of the same system that have no
// ready pod; text is the symptom's own words (a probe message), which may name a peer.
func (pc *podCheck) followPeers(ctx context.Context, text string) {
	e := pc.e
	n := len(e.res.Findings)
	if n == 0 || e.res.Findings[n-1].Object.Key() != pc.ref.Key() {
		return
	}
	own := e.workloadOf(ctx, pc.pod)
	var down []peer
	for _, p := range pc.e.workloadsDown(ctx) {
		if p.ref.Key() == own.Key() {
			continue
		}
		if p.relation = relatedBy(pc.pod, p, text); p.relation != "" {
			down = append(down, p)
		}
	}
	if len(down) == 0 {
		return
	}
	sort.SliceStable(down, func(i, j int) bool { return down[i].ref.Key() < down[j].ref.Key() })
	if len(down) > maxPeers {
		down = down[:maxPeers]
	}
	f := &e.res.Findings[n-1]
	var parts []string
	for _, p := range down {
		f.Follow = mergeRefs(f.Follow, []ObjectRef{p.ref})
		f.Affected = mergeRefs(f.Affected, []ObjectRef{p.ref})
		parts = append(parts, fmt.Sprintf("%s %s (%s) has no ready pod (%d of %d)", p.ref.Kind, p.ref.Name, p.relation, p.ready, p.desired))
	}
	f.Summary = clipString(f.Summary+" Of the same system, "+strings.Join(parts, "; ")+".", MaxRootSummary)
}

// workloadsDown lists the namespace's Deployments, StatefulSets and DaemonSets that want
// pods and have none ready.
func (e *env) workloadsDown(ctx context.Context) []peer {
	var out []peer
	if ds, err := listOnce[*appsv1.Deployment](ctx, e, "Deployment", scanMaxObjects); err == nil {
		for _, d := range ds {
			if want := replicasOf(d.Spec.Replicas); want > 0 && d.Status.ReadyReplicas == 0 {
				out = append(out, peer{ref: e.ref("Deployment", d.Name), tmpl: d.Spec.Template, desired: want})
			}
		}
	}
	if ss, err := listOnce[*appsv1.StatefulSet](ctx, e, "StatefulSet", scanMaxObjects); err == nil {
		for _, s := range ss {
			if want := replicasOf(s.Spec.Replicas); want > 0 && s.Status.ReadyReplicas == 0 {
				out = append(out, peer{ref: e.ref("StatefulSet", s.Name), tmpl: s.Spec.Template, desired: want})
			}
		}
	}
	if ds, err := listOnce[*appsv1.DaemonSet](ctx, e, "DaemonSet", scanMaxObjects); err == nil {
		for _, d := range ds {
			if d.Status.DesiredNumberScheduled > 0 && d.Status.NumberReady == 0 {
				out = append(out, peer{ref: e.ref("DaemonSet", d.Name), tmpl: d.Spec.Template, desired: d.Status.DesiredNumberScheduled})
			}
		}
	}
	return out
}

// relatedBy says how a workload belongs to the pod's system: it runs the same image
// repository, shares a system label's value, or the symptom's text names it.
func relatedBy(pod *corev1.Pod, p peer, text string) string {
	for _, c := range pod.Spec.Containers {
		for _, pc := range p.tmpl.Spec.Containers {
			if r := imageRepo(c.Image); r != "" && r == imageRepo(pc.Image) {
				return "same image " + r
			}
		}
	}
	for _, k := range systemLabels {
		if v := pod.Labels[k]; v != "" && p.tmpl.Labels[k] == v {
			return k + "=" + v
		}
	}
	if text != "" && containsWord(strings.ToLower(text), strings.ToLower(p.ref.Name)) {
		return "named in the symptom"
	}
	return ""
}

// imageRepo is an image reference without its tag or digest ("docker.io/calico/node:v3.25.0"
// → "docker.io/calico/node").
func imageRepo(image string) string {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		image = image[:i]
	}
	return image
}

// containsWord reports whether text holds word delimited by non-name bytes.
func containsWord(text, word string) bool {
	if word == "" {
		return false
	}
	return wordAt(text, word, func(start, end int) bool {
		return (start == 0 || !isNameByte(text[start-1])) && (end == len(text) || !isNameByte(text[end]))
	})
}

// wordAt reports whether word occurs in text at a place whole accepts (given its start and end).
func wordAt(text, word string, whole func(start, end int) bool) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start := i + j
		if whole(start, start+len(word)) {
			return true
		}
		i = start + 1
	}
}
