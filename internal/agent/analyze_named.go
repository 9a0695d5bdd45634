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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxNamedWorkloads bounds how many workloads the problem text may put first in line.
const maxNamedWorkloads = 2

// namedWorkload is a workload the problem text names, directly or through a Service, an
// Ingress host or a label value, with its pods in the namespace.
type namedWorkload struct {
	ref   ObjectRef
	score int
	stem  bool // named only by a word sharing its stem
	via   string
	pods  []*corev1.Pod
}

// followNamed puts the workloads the user names first in the next round, with one of their
// pods: a Running, Ready pod has its recent log read, so "orders API is slow" looks at
// orders-api even when other pods in the namespace fail louder. The named object is where
// the symptom shows; the findings on it lead on to the cause.
func (e *env) followNamed(inv *nsInventory, ings []*networkingv1.Ingress) {
	named := namedWorkloads(mentionForms(e.s.Problem, e.s.Hints), inv, ings)
	if len(named) == 0 {
		return
	}
	var first []ObjectRef
	var parts []string
	for _, w := range named {
		parts = append(parts, w.ref.Kind+" "+w.ref.Name+" ("+w.via+")")
		// One pod shows how the workload fails (or what its log repeats); a workload
		// without pods is read itself (why it creates none).
		if p := e.representative(w.pods); p != nil {
			first = append(first, e.ref("Pod", p.Name))
		} else {
			first = append(first, w.ref)
		}
	}
	nsRef := ObjectRef{Kind: "Namespace", Name: e.s.Namespace}
	e.evidence(clipString("The problem names "+strings.Join(parts, ", ")+": looked at first.", MaxEvidenceSummary),
		Source{Kind: SourceQuery, Query: "problem text", Object: &nsRef}, "")
	e.followFirst(first)
}

// representative picks the pod to read: one already followed (it fails), else a Ready one
// (its log may repeat an error), else any.
func (e *env) representative(pods []*corev1.Pod) *corev1.Pod {
	followed := map[string]bool{}
	for _, r := range e.res.FollowUps {
		if r.Kind == "Pod" {
			followed[r.Name] = true
		}
	}
	var ready, any *corev1.Pod
	for _, p := range pods {
		if followed[p.Name] {
			return p
		}
		if ready == nil && isReady(p) {
			ready = p
		}
		if any == nil && p.Status.Phase != corev1.PodSucceeded {
			any = p
		}
	}
	if ready != nil {
		return ready
	}
	return any
}

// followFirst moves refs to the front of the follow-ups, keeping their order.
func (e *env) followFirst(refs []ObjectRef) {
	old := e.res.FollowUps
	e.res.FollowUps = nil
	for _, r := range refs {
		e.followUp(r)
	}
	for _, r := range old {
		e.followUp(r)
	}
}

// namedWorkloads scores the namespace's workloads against the forms and returns the best
// ones (at most maxNamedWorkloads; none when a mere part of a name fits too many).
func namedWorkloads(forms map[string]int, inv *nsInventory, ings []*networkingv1.Ingress) []*namedWorkload {
	if len(forms) == 0 {
		return nil
	}
	type tmpl struct {
		ref    ObjectRef
		labels map[string]string
		sel    *metav1.LabelSelector
	}
	var ts []tmpl
	for _, d := range inv.deps {
		ts = append(ts, tmpl{ObjectRef{Kind: "Deployment", Name: d.Name}, d.Spec.Template.Labels, d.Spec.Selector})
	}
	for _, s := range inv.stss {
		ts = append(ts, tmpl{ObjectRef{Kind: "StatefulSet", Name: s.Name}, s.Spec.Template.Labels, s.Spec.Selector})
	}
	for _, d := range inv.dss {
		ts = append(ts, tmpl{ObjectRef{Kind: "DaemonSet", Name: d.Name}, d.Spec.Template.Labels, d.Spec.Selector})
	}
	for _, c := range inv.cjs {
		ts = append(ts, tmpl{ObjectRef{Kind: "CronJob", Name: c.Name}, c.Spec.JobTemplate.Spec.Template.Labels, nil})
	}
	for _, j := range inv.jobs {
		if controllerOf(j) == nil {
			ts = append(ts, tmpl{ObjectRef{Kind: "Job", Name: j.Name}, j.Spec.Template.Labels, j.Spec.Selector})
		}
	}
	// Services named by name, DNS name or an Ingress host that routes to them.
	svcScore := map[string]int{}
	svcVia := map[string]string{}
	for _, s := range inv.svcs {
		if sc := mentionScore(forms, s.Name); sc > 0 {
			svcScore[s.Name], svcVia[s.Name] = sc, "Service "+s.Name
		}
	}
	for _, ing := range ings {
		for _, r := range ing.Spec.Rules {
			if r.Host == "" || forms[strings.ToLower(r.Host)] == 0 || r.HTTP == nil {
				continue
			}
			for _, p := range r.HTTP.Paths {
				if p.Backend.Service != nil {
					svcScore[p.Backend.Service.Name], svcVia[p.Backend.Service.Name] = mentionExact, "host "+r.Host+" of Ingress "+ing.Name
				}
			}
		}
	}
	var out []*namedWorkload
	stems := 0
	for _, t := range ts {
		w := &namedWorkload{ref: t.ref}
		if sc := mentionScore(forms, t.ref.Name); sc > 0 {
			w.score, w.via = sc, "by name"
		} else if stemScore(forms, t.ref.Name) > 0 {
			// "notifications stopped" for notifier: weaker than a part of the name.
			w.stem, w.via = true, "a word of the problem"
			stems++
		}
		for _, k := range sortedKeys(t.labels) {
			// A label value the user writes (app=checkout) names the pods that carry it.
			if v := strings.ToLower(t.labels[k]); len(v) >= 3 && !mentionStop[v] && forms[v] >= mentionExact && w.score < mentionExact-1 {
				w.score, w.via = mentionExact-1, "label "+k+"="+t.labels[k]
			}
		}
		for _, s := range inv.svcs {
			if sc := svcScore[s.Name]; sc > w.score && len(s.Spec.Selector) > 0 && labelsMatch(s.Spec.Selector, t.labels) {
				w.score, w.via = sc, svcVia[s.Name]
			}
		}
		if w.score == 0 && !w.stem {
			continue
		}
		for _, p := range inv.pods {
			if t.sel != nil && selectorMatches(t.sel, p.Labels) || t.sel == nil && ownedByName(p, t.ref.Name) {
				w.pods = append(w.pods, p)
			}
		}
		out = append(out, w)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	if len(out) == 0 {
		return nil
	}
	if out[0].score == 0 && stems > maxNamedWorkloads {
		return nil // the words fit too many workloads to say which
	}
	best := out[0].score
	n := 0
	for n < len(out) && out[n].score == best {
		n++
	}
	if best < mentionExact && n > maxNamedWorkloads {
		return nil // "payments" fits payments-api, payments-db and payments-sync alike
	}
	return out[:min(n, maxNamedWorkloads)]
}

// labelsMatch reports whether every key of sel has its value in l.
func labelsMatch(sel, l map[string]string) bool {
	for k, v := range sel {
		if l[k] != v {
			return false
		}
	}
	return true
}

// ownedByName reports a pod whose controller (a Job of a CronJob) starts with name.
func ownedByName(p *corev1.Pod, name string) bool {
	or := controllerOf(p)
	return or != nil && strings.HasPrefix(or.Name, name+"-")
}
