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
	"regexp"
	"strings"
)

// Competing findings are ranked by cause, not by loudness: an explicit "explains" relation
// links a finding to the findings it accounts for (a quota explains pods that cannot be
// created, which explain a Deployment short of replicas, which explains an HPA that cannot
// scale), and the roots of that graph are the candidate root causes.

// causeLayer places a rule between symptom (0), mechanism (1) and cause (2, the default):
// when two findings touch the same objects, the one in the higher layer explains the other.
var causeLayer = map[string]int{
	// Symptoms: something is visibly wrong, the reason lies elsewhere.
	"workload-pods-unhealthy": 0, "rollout-stuck": 0, "service-no-ready-endpoints": 0, "service-workload-no-pods": 0, "cronjob-job-failing": 0,
	"container-not-ready": 0, "hpa-maxed-out": 0, "hpa-metrics-unavailable": 0, "job-backoff-limit": 0, "job-failed": 0,
	"job-deadline-exceeded": 0, "crash-loop": 0, "container-failed": 0, "dependency-unreachable": 0, "app-error-logged": 0,
	"pod-evicted": 0, "pdb-blocking": 0, "hpa-scale-blocked": 0, "cronjob-missed-schedules": 0, "cronjob-concurrency-blocked": 0, "workload-create-failed": 0,
	// Mechanisms: how the symptom happens on the object itself.
	"readiness-probe-failing": 1, "liveness-probe-failing": 1, "oom-killed": 1, "image-pull-error": 1,
	"unschedulable": 1, "unschedulable-insufficient-resources": 1, "unschedulable-taint": 1, "unschedulable-node-affinity": 1,
	"unschedulable-nodes-cordoned": 1, "create-container-error": 1, "pod-pvc-pending": 1, "statefulset-pvc-pending": 1,
	"pod-on-unhealthy-node": 1, "volume-mount-failed": 1, "init-container-blocked": 1, "pod-stuck-terminating": 1, "quota-exhausted": 1,
}

func layerOf(rule string) int {
	if l, ok := causeLayer[rule]; ok {
		return l
	}
	return 2
}

// explainGraph holds, for each candidate, the candidates it explains.
type explainGraph struct {
	cands    []*candidate
	explains map[*candidate][]*candidate
	by       map[*candidate][]*candidate
}

func refSet(refs ...ObjectRef) map[string]bool {
	m := make(map[string]bool, len(refs))
	for _, r := range refs {
		if !r.IsZero() {
			m[r.Key()] = true
		}
	}
	return m
}

// pointsAt reports whether b's follow-ups name a's object (any of the objects merged into it)
// or culprit: b said its cause may lie where a was found.
func pointsAt(b, a *candidate) bool {
	f := refSet(b.Follow...)
	for _, o := range append([]ObjectRef{a.Object}, a.objects...) {
		if f[o.Key()] && o.Key() != b.Object.Key() {
			return true
		}
	}
	return f[a.Culprit.Key()] && a.Culprit.Key() != b.Culprit.Key()
}

// followsTo reports whether a's follow-ups name b's object or culprit: a said its own cause
// lies where b is, so a cannot explain b.
func followsTo(a, b *candidate) bool {
	f := refSet(a.Follow...)
	return f[b.Object.Key()] || f[b.Culprit.Key()]
}

// overlaps reports whether two findings touch a common object (their object, culprit or
// affected objects): then they are about the same failure and the layers order them.
func overlaps(a, b *candidate) bool {
	ta := refSet(append([]ObjectRef{a.Object, a.Culprit}, a.Affected...)...)
	for _, r := range append([]ObjectRef{b.Object, b.Culprit}, b.Affected...) {
		if r.Kind != "Namespace" && ta[r.Key()] {
			return true
		}
	}
	return false
}

// namesProvider reports whether b's own error text (the line its application wrote) calls
// the Service a is about, by name or as pod.service: a consumer that fails talking to a
// Service is explained by what is wrong with that Service, even when no analyzer walked
// from one to the other (a namespace scan finds both on its own).
func namesProvider(b, a *candidate) bool {
	if a.Object.Kind != "Service" || a.Object.Name == "" || b.Object.Key() == a.Object.Key() {
		return false
	}
	var lines []string
	for _, k := range []string{"errorLine", "message"} {
		if v := b.Facts[k]; v != "" {
			lines = append(lines, v)
		}
	}
	if len(lines) == 0 {
		return false
	}
	for _, h := range ExtractClues(lines).Hosts {
		name, hns, scope := classifyHost(h.Host, a.Object.Namespace)
		if scope == hostInNamespace && name == a.Object.Name || scope == hostOtherNS && hns == a.Object.Name {
			return true
		}
	}
	return false
}

// kindWords are the words an API error or a log line uses for an object of a kind that
// constrains others (exceeded quota: NAME, persistentvolumeclaim "NAME", …).
var kindWords = map[string][]string{
	"ResourceQuota": {"quota"}, "LimitRange": {"limitrange", "limit range"}, "PersistentVolumeClaim": {"persistentvolumeclaim", "pvc", "claim"},
	"ConfigMap": {"configmap", "config map"}, "Secret": {"secret"}, "NetworkPolicy": {"networkpolic", "network polic"},
	"ServiceAccount": {"serviceaccount", "service account"}, "Role": {"role"}, "ClusterRole": {"clusterrole", "role"},
	"StorageClass": {"storageclass", "storage class"}, "PodDisruptionBudget": {"disruption budget", "poddisruptionbudget", "pdb"},
	"PriorityClass": {"priorityclass", "priority class"}, "Node": {"node"},
}

// errorNamesCulprit reports whether b's own error text names a's culprit by its name and its kind's
// word: an application that logs "exceeded quota: ci-builds" is explained by what is wrong
// with ResourceQuota ci-builds, even when no analyzer walked from one to the other.
func errorNamesCulprit(b, a *candidate) bool {
	words, ok := kindWords[a.Culprit.Kind]
	if !ok || len(a.Culprit.Name) < 4 || b.Culprit.Key() == a.Culprit.Key() || b.Object.Key() == a.Culprit.Key() {
		return false
	}
	low := strings.ToLower(b.Facts["errorLine"])
	if low == "" {
		return false
	}
	if !containsWord(low, strings.ToLower(a.Culprit.Name)) {
		return false
	}
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

func buildExplainGraph(cands []*candidate) *explainGraph {
	g := &explainGraph{cands: cands, explains: map[*candidate][]*candidate{}, by: map[*candidate][]*candidate{}}
	edge := map[[2]*candidate]bool{}
	add := func(a, b *candidate) {
		if a == b || edge[[2]*candidate{a, b}] {
			return
		}
		edge[[2]*candidate{a, b}] = true
		g.explains[a] = append(g.explains[a], b)
		g.by[b] = append(g.by[b], a)
	}
	for _, a := range cands {
		for _, b := range cands {
			if a != b && (pointsAt(b, a) || namesProvider(b, a) || errorNamesCulprit(b, a)) {
				add(a, b)
			}
		}
	}
	for _, a := range cands {
		for _, b := range cands {
			if a == b || edge[[2]*candidate{b, a}] || layerOf(a.Rule) <= layerOf(b.Rule) {
				continue
			}
			// A finding that follows its cause to b's object is b's consumer, whatever its layer.
			if overlaps(a, b) && !followsTo(a, b) {
				add(a, b)
			}
		}
	}
	return g
}

// roots are the candidates nothing else explains; in a cycle every member is kept.
func (g *explainGraph) roots() []*candidate {
	var out []*candidate
	for _, c := range g.cands {
		explained := false
		for _, a := range g.by[c] {
			if !g.reaches(c, a) { // a explains c and c does not (transitively) explain a
				explained = true
				break
			}
		}
		if !explained {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return g.cands
	}
	return out
}

// reaches reports whether from explains to, directly or through others.
func (g *explainGraph) reaches(from, to *candidate) bool {
	seen := map[*candidate]bool{}
	stack := []*candidate{from}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, n := range g.explains[c] {
			if n == to {
				return true
			}
			if !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return false
}

// explained lists everything root explains, nearest first.
func (g *explainGraph) explained(root *candidate) []*candidate {
	seen := map[*candidate]bool{root: true}
	var out []*candidate
	queue := []*candidate{root}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, n := range g.explains[c] {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
				queue = append(queue, n)
			}
		}
	}
	return out
}

// chain is the path from a symptom the root explains up to the root, symptom first: the
// one through the most distinct objects (each one a hop a reader can check), then the longest.
func (g *explainGraph) chain(root *candidate) []*candidate {
	var best []*candidate
	bestObjs, steps := 0, 0
	var walk func(c *candidate, path []*candidate)
	walk = func(c *candidate, path []*candidate) {
		// Bounded: a dense graph of many findings has too many paths to enumerate.
		if steps++; steps > maxChainSteps {
			return
		}
		path = append(path, c)
		if n := distinctObjects(path); n > bestObjs || n == bestObjs && len(path) > len(best) {
			best, bestObjs = append([]*candidate(nil), path...), n
		}
		if len(path) >= 8 {
			return
		}
		for _, n := range g.explains[c] {
			if !containsCand(path, n) {
				walk(n, path)
			}
		}
	}
	walk(root, nil)
	for i, j := 0, len(best)-1; i < j; i, j = i+1, j-1 {
		best[i], best[j] = best[j], best[i]
	}
	return best
}

// maxChainSteps caps the path search per root.
const maxChainSteps = 5000

func distinctObjects(path []*candidate) int {
	seen := map[string]bool{}
	for _, c := range path {
		seen[c.Object.Key()] = true
	}
	return len(seen)
}

func containsCand(l []*candidate, c *candidate) bool {
	for _, x := range l {
		if x == c {
			return true
		}
	}
	return false
}

// hasVictim reports whether a root accounts for a failing pod or workload: a cause that
// explains an observed failure outranks an anomaly nothing suffers from.
func (g *explainGraph) hasVictim(root *candidate) bool {
	for _, c := range append([]*candidate{root}, g.explained(root)...) {
		switch c.Object.Kind {
		case "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob":
			return true
		}
	}
	return false
}

// pathString renders a chain as "Pod/a → Service/b → Secret/c" for the summary.
func pathString(chain []*candidate) string {
	var parts []string
	seen := map[string]bool{}
	for _, c := range chain {
		for _, r := range []ObjectRef{c.Object, c.Culprit} {
			s := r.Kind + "/" + r.Name
			if !seen[s] && !r.IsZero() {
				parts = append(parts, s)
				seen[s] = true
			}
		}
	}
	if len(parts) < 2 {
		return ""
	}
	return strings.Join(parts, " → ")
}

// namedConstraintRe finds an object a constraint's refusal names: "exceeded quota: NAME",
// `limitrange "NAME"`, "poddisruptionbudget NAME".
var namedConstraintRe = regexp.MustCompile(`(?i)\b(quota|limitrange|poddisruptionbudget|persistentvolumeclaim|networkpolicy)s?["']?[:\s]+["']?([a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?)`)

// constraintKinds map the word to the kind it names.
var constraintKinds = map[string]string{"quota": "ResourceQuota", "limitrange": "LimitRange", "poddisruptionbudget": "PodDisruptionBudget",
	"persistentvolumeclaim": "PersistentVolumeClaim", "networkpolicy": "NetworkPolicy"}

// followNamedConstraints looks next at the objects of the namespace an error line names by
// kind and name (an application told "exceeded quota: ci-builds" by the API server): what is
// wrong with them explains the error (errorNamesCulprit), even on a targeted session.
func (e *env) followNamedConstraints(ctx context.Context, line string) {
	for _, m := range namedConstraintRe.FindAllStringSubmatch(clipBytes(line, maxClueLineLen), 3) {
		kind := constraintKinds[strings.ToLower(m[1])]
		if _, err := e.get(ctx, kind, m[2]); err == nil {
			e.followUp(e.ref(kind, m[2]))
		}
	}
}
