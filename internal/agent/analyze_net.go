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
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

func init() {
	analyzers["service"] = analyzeService
	analyzers["networkpolicy"] = analyzeNetworkPolicy
}

const maxServicePods = 200

func analyzeService(ctx context.Context, e *env, ref ObjectRef) error {
	svc, err := getAs[*corev1.Service](ctx, e, "Service", ref.Name)
	if err != nil {
		return e.missingTarget(ObjectRef{Kind: "Service", Name: ref.Name}, err)
	}
	sref := e.ref("Service", svc.Name)
	e.examine(sref)
	statusEv := e.objEvidence(sref, "Service "+svc.Name+": "+tools.Summarize(svc, e.now).Status)
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	slices, err := listSlices(ctx, e, svc.Name)
	if err != nil {
		return err
	}
	ready, total := tools.ReadyEndpoints(slices)
	sliceEv := e.evidence(fmt.Sprintf("Service %s has %d ready of %d endpoint(s) in %d EndpointSlice(s)", svc.Name, ready, total, len(slices)),
		Source{Kind: SourceObject, Object: &sref, Tool: "k8s_related"}, "")
	facts := map[string]string{"selector": tools.LabelsString(svc.Spec.Selector)}
	if ready > 1 && e.sessionAffinity(ctx, svc, ready, []string{statusEv, sliceEv}) {
		return nil
	}
	if len(svc.Spec.Selector) == 0 {
		if total == 0 {
			e.selectorlessFinding(ctx, svc, []string{statusEv, sliceEv})
		} else {
			e.slicePortFinding(svc, slices, []string{statusEv, sliceEv})
		}
		return nil
	}
	pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String(), Max: maxServicePods})
	if err != nil {
		return err
	}
	pods = matching(pods, svc.Spec.Selector)
	if len(pods) == 0 {
		return serviceWithoutPods(ctx, e, svc, []string{statusEv, sliceEv})
	}
	var readyPods, unready []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil && isReady(p) {
			readyPods = append(readyPods, p)
		} else {
			unready = append(unready, p)
		}
	}
	if len(readyPods) == 0 {
		reps := representatives(unready, 3)
		var follow []ObjectRef
		for _, p := range reps {
			follow = append(follow, e.ref("Pod", p.Name))
		}
		e.find(Finding{Rule: "service-no-ready-endpoints", Object: sref, Culprit: sref, Follow: follow, Evidence: []string{statusEv, sliceEv}, Facts: facts,
			Affected: follow, Summary: fmt.Sprintf("Service %s selects %d pod(s) but none is ready, so it has no endpoints to send traffic to.", svc.Name, len(pods))})
		return nil
	}
	if portFinding(e, svc, readyPods, sref, []string{statusEv, sliceEv}) {
		return nil
	}
	// Ready endpoints, yet a share of them serves nothing (analyze_backends.go).
	if f := e.judgeBackends(ctx, svc, sref, pods); f != nil {
		facts["fix"] = f.fix
		e.find(Finding{Rule: "service-backends-wrong", Object: sref, Culprit: sref, Affected: f.refs, Evidence: []string{statusEv, sliceEv}, Facts: facts,
			Summary: fmt.Sprintf("Requests to Service %s partly fail: Service %s%s", svc.Name, svc.Name, f.text)})
		return nil
	}
	return e.checkNetworkPolicies(ctx, readyPods, sref)
}

func listSlices(ctx context.Context, e *env, svc string) ([]*discoveryv1.EndpointSlice, error) {
	if err := e.budget(); err != nil {
		return nil, err
	}
	s, err := e.c.EndpointSlicesFor(ctx, svc)
	return s, e.record("k8s_list", "EndpointSlice -l kubernetes.io/service-name="+svc, err)
}

// matching re-checks a selector client-side (fakes and some servers ignore it).
func matching(pods []*corev1.Pod, sel map[string]string) []*corev1.Pod {
	s := labels.SelectorFromSet(sel)
	out := pods[:0]
	for _, p := range pods {
		if s.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// representatives picks up to n pods with different problem signatures first.
func representatives(pods []*corev1.Pod, n int) []*corev1.Pod {
	seen := map[string]bool{}
	var out, rest []*corev1.Pod
	for _, p := range pods {
		sig := podSignature(p)
		if !seen[sig] && len(out) < n {
			seen[sig] = true
			out = append(out, p)
		} else {
			rest = append(rest, p)
		}
	}
	for _, p := range rest {
		if len(out) >= n {
			break
		}
		out = append(out, p)
	}
	return out
}

// podSignature groups pods by how they fail (phase, first bad container state).
func podSignature(p *corev1.Pod) string {
	sig := string(p.Status.Phase)
	if c := tools.PodCondition(p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse {
		return sig + "/Unschedulable"
	}
	if p.Status.Reason != "" {
		sig += "/" + p.Status.Reason
	}
	for _, cs := range allStatuses(p) {
		if pr := tools.ContainerProblem(cs); pr != "" {
			if i := strings.IndexByte(pr, '('); i > 0 {
				pr = pr[:i]
			}
			return sig + "/" + pr
		}
	}
	if p.DeletionTimestamp != nil {
		sig += "/Terminating"
	}
	return sig
}

// serviceWithoutPods explains a Service whose selector matches nothing.
func serviceWithoutPods(ctx context.Context, e *env, svc *corev1.Service, evIDs []string) error {
	sref := e.ref("Service", svc.Name)
	type wl struct {
		ref      ObjectRef
		labels   map[string]string
		replicas int32
		has      int32 // pods the controller reports it has
	}
	var wls []wl
	deps, _, err := listAs[*appsv1.Deployment](ctx, e, "Deployment", tools.ListOptions{Max: 200})
	if err != nil {
		return err
	}
	for _, d := range deps {
		r := int32(1)
		if d.Spec.Replicas != nil {
			r = *d.Spec.Replicas
		}
		wls = append(wls, wl{e.ref("Deployment", d.Name), d.Spec.Template.Labels, r, d.Status.Replicas})
	}
	stss, _, err := listAs[*appsv1.StatefulSet](ctx, e, "StatefulSet", tools.ListOptions{Max: 200})
	if err != nil {
		return err
	}
	for _, s := range stss {
		r := int32(1)
		if s.Spec.Replicas != nil {
			r = *s.Spec.Replicas
		}
		wls = append(wls, wl{e.ref("StatefulSet", s.Name), s.Spec.Template.Labels, r, s.Status.Replicas})
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	// A workload whose template matches but runs no pods: it is scaled to zero.
	for _, w := range wls {
		if sel.Matches(labels.Set(w.labels)) && w.replicas == 0 {
			e.find(Finding{Rule: "deployment-scaled-to-zero", Object: sref, Culprit: w.ref, Evidence: evIDs, Affected: []ObjectRef{sref},
				Facts:   map[string]string{"resource": kubectlResource(w.ref)},
				Summary: fmt.Sprintf("Service %s has no endpoints because %s, whose pods it selects, is scaled to 0 replicas.", svc.Name, w.ref.Kind+" "+w.ref.Name)})
			return nil
		}
		// The selector is right but the workload has none of its pods: it cannot create
		// them (quota, admission, a missing ServiceAccount...), and that is what to follow.
		if sel.Matches(labels.Set(w.labels)) && w.replicas > 0 && w.has == 0 {
			e.followUp(w.ref)
			e.find(Finding{Rule: "service-workload-no-pods", Object: sref, Culprit: w.ref, Evidence: evIDs, Affected: []ObjectRef{sref, w.ref}, Follow: []ObjectRef{w.ref},
				Facts:   map[string]string{"resource": kubectlResource(w.ref), "selector": tools.LabelsString(svc.Spec.Selector)},
				Summary: fmt.Sprintf("Service %s has no endpoints: it selects the pods of %s %s, which wants %d replica(s) but has created none.", svc.Name, w.ref.Kind, w.ref.Name, w.replicas)})
			return nil
		}
	}
	// Otherwise find the workload the Service most likely meant: most selector keys shared,
	// then a name match (the same name over one that is a prefix of the other: Service
	// api-db means Deployment api-db, not api), then the longer shared name prefix.
	var best *wl
	bestScore, bestShared := 0, 0
	for i := range wls {
		w := &wls[i]
		score := 0
		for k, v := range svc.Spec.Selector {
			if lv, ok := w.labels[k]; ok {
				score += 2
				if lv == v {
					score++
				}
			}
		}
		switch {
		case w.ref.Name == svc.Name:
			score += 3
		case strings.HasPrefix(w.ref.Name, svc.Name) || strings.HasPrefix(svc.Name, w.ref.Name):
			score += 2
		}
		shared := sharedPrefix(w.ref.Name, svc.Name)
		if score > bestScore || (score == bestScore && score > 0 && shared > bestShared) {
			best, bestScore, bestShared = w, score, shared
		}
	}
	facts := map[string]string{"selector": tools.LabelsString(svc.Spec.Selector), "podLabels": "<pod labels>", "podLabelsJSON": "<labels>"}
	summary := fmt.Sprintf("Service %s has selector %s, but no pod in %s has those labels, so it has no endpoints.", svc.Name, tools.LabelsString(svc.Spec.Selector), e.s.Namespace)
	conf := 0
	var affected []ObjectRef
	if best != nil {
		keep := map[string]string{}
		for k := range svc.Spec.Selector {
			if v, ok := best.labels[k]; ok {
				keep[k] = v
			}
		}
		if len(keep) == 0 {
			keep = best.labels
		}
		facts["podLabels"] = tools.LabelsString(best.labels)
		facts["podLabelsJSON"] = labelsJSON(keep)
		summary += fmt.Sprintf(" %s %s labels its pods %s.", best.ref.Kind, best.ref.Name, tools.LabelsString(best.labels))
		affected = []ObjectRef{best.ref}
		evIDs = append(evIDs, e.objEvidence(best.ref, fmt.Sprintf("%s %s pod template labels: %s", best.ref.Kind, best.ref.Name, tools.LabelsString(best.labels))))
	} else {
		conf = 75
		summary += " No Deployment or StatefulSet in the namespace has matching pod labels either."
	}
	e.find(Finding{Rule: "service-selector-mismatch", Confidence: conf, Object: sref, Culprit: sref, Evidence: evIDs, Facts: facts, Affected: affected, Summary: summary})
	return nil
}

// portFinding checks the Service's targetPorts against the ready pods' container ports.
func portFinding(e *env, svc *corev1.Service, pods []*corev1.Pod, sref ObjectRef, evIDs []string) bool {
	p := pods[0]
	declared := describePorts(p)
	for i, sp := range svc.Spec.Ports {
		tp := sp.TargetPort
		bad := !targetPortServed(sp, p)
		if !bad {
			continue
		}
		e.find(Finding{Rule: "service-target-port-mismatch", Object: sref, Culprit: sref, Evidence: evIDs,
			Facts:   map[string]string{"containerPorts": declared, "portIndex": fmt.Sprint(i), "targetPort": tp.String()},
			Summary: fmt.Sprintf("Service %s port %d sends traffic to targetPort %s, but pod %s exposes %s; connections will fail.", svc.Name, sp.Port, tp.String(), p.Name, declared)})
		return true
	}
	if sp, cp, c := protocolUnserved(svc, p); sp != nil {
		want, got := protocolOf(sp.Protocol), protocolOf(cp.Protocol)
		e.find(Finding{Rule: "service-target-port-mismatch", Object: sref, Culprit: sref, Evidence: evIDs,
			Facts: map[string]string{"containerPorts": declared, "targetPort": sp.TargetPort.String(), "protocol": string(want)},
			Summary: fmt.Sprintf("Service %s port %d/%s sends traffic to targetPort %s, which container %s of pod %s declares only as %d/%s: kube-proxy forwards %s only, so nothing the clients send over %s reaches the container (UDP packets are dropped without an error). Set protocol: %s on the Service port (a Service may list the same port twice, once per protocol).",
				svc.Name, sp.Port, want, sp.TargetPort.String(), c, p.Name, cp.ContainerPort, got, want, got, got)})
		return true
	}
	return false
}

func namedPortExists(p *corev1.Pod, name string) bool {
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == name {
				return true
			}
		}
	}
	return false
}

func describePorts(p *corev1.Pod) string {
	var out []string
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name != "" {
				out = append(out, fmt.Sprintf("%s:%d", cp.Name, cp.ContainerPort))
			} else {
				out = append(out, fmt.Sprint(cp.ContainerPort))
			}
		}
	}
	if len(out) == 0 {
		return "no declared ports"
	}
	return strings.Join(out, ", ")
}

// checkNetworkPolicies reports a policy that isolates the pods for ingress with no rule
// letting anything in, unless another policy selecting them allows some ingress.
func (e *env) checkNetworkPolicies(ctx context.Context, pods []*corev1.Pod, subject ObjectRef) error {
	if len(pods) == 0 {
		return nil
	}
	pols, _, err := listAs[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", tools.ListOptions{Max: 200})
	if err != nil || len(pols) == 0 {
		return err
	}
	p := pods[0]
	var deny *networkingv1.NetworkPolicy
	allows := false
	for _, pol := range pols {
		sel, err := metav1Selector(&pol.Spec.PodSelector)
		if err != nil || !sel.Matches(labels.Set(p.Labels)) || !policyHasIngress(pol) {
			continue
		}
		if len(pol.Spec.Ingress) == 0 {
			if deny == nil {
				deny = pol
			}
		} else {
			allows = true
		}
	}
	if deny == nil || allows {
		return nil
	}
	nref := e.ref("NetworkPolicy", deny.Name)
	ev := e.objEvidence(nref, "NetworkPolicy "+deny.Name+": "+tools.Summarize(deny, e.now).Status)
	var names []string
	for i, x := range pods {
		if i >= 5 {
			break
		}
		names = append(names, x.Name)
	}
	e.find(Finding{Rule: "networkpolicy-deny-ingress", Object: subject, Culprit: nref, Evidence: []string{ev}, Affected: []ObjectRef{subject},
		Facts:   map[string]string{"pods": strings.Join(names, ","), "name": deny.Name},
		Summary: fmt.Sprintf("NetworkPolicy %s selects pod(s) %s (podSelector %s) with policy type Ingress and no ingress rules, so all incoming traffic to them is dropped.", deny.Name, strings.Join(names, ","), policySelector(deny))})
	return nil
}

func policyHasIngress(p *networkingv1.NetworkPolicy) bool {
	if len(p.Spec.PolicyTypes) == 0 {
		return true // Ingress is implied when policyTypes is empty.
	}
	for _, t := range p.Spec.PolicyTypes {
		if t == networkingv1.PolicyTypeIngress {
			return true
		}
	}
	return false
}

func analyzeNetworkPolicy(ctx context.Context, e *env, ref ObjectRef) error {
	pol, err := getAs[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", ref.Name)
	if err != nil {
		return e.missingTarget(ObjectRef{Kind: "NetworkPolicy", Name: ref.Name}, err)
	}
	sel, err := metav1Selector(&pol.Spec.PodSelector)
	if err != nil {
		return err
	}
	pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: sel.String(), Max: 50})
	if err != nil {
		return err
	}
	var sel2 []*corev1.Pod
	for _, p := range pods {
		if sel.Matches(labels.Set(p.Labels)) {
			sel2 = append(sel2, p)
		}
	}
	e.objEvidence(e.ref("NetworkPolicy", pol.Name), fmt.Sprintf("NetworkPolicy %s: %s; selects %d pod(s)", pol.Name, tools.Summarize(pol, e.now).Status, len(sel2)))
	return e.checkNetworkPolicies(ctx, sel2, e.ref("NetworkPolicy", pol.Name))
}

func metav1Selector(s *metav1.LabelSelector) (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(s)
}

// sharedPrefix is the length in bytes of the longest common prefix of a and b.
func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
