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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/kubage/kubage/internal/schedule"
	"github.com/kubage/kubage/internal/tools"
)

func init() {
	analyzers["namespace"] = analyzeNamespace
	analyzers["selector"] = analyzeSelector
}

// Bounds of the namespace scan: objects read per kind and leads handed to the next round.
const (
	scanMaxPods    = tools.HardListMax
	scanMaxObjects = 500
	scanMaxLeads   = 3
	scanPodGroups  = 5
	scanLogSamples = 4
)

// podGroup is a set of pods failing the same way under the same owner.
type podGroup struct {
	key   string
	count int
	rep   *corev1.Pod
}

// groupPods aggregates unhealthy pods so thousands of pods cost one lead per failure mode.
func groupPods(pods []*corev1.Pod, now time.Time) (groups []*podGroup, unhealthy int) {
	idx := map[string]*podGroup{}
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded || !needsLook(p, now) {
			continue
		}
		unhealthy++
		owner := "none"
		if or := controllerOf(p); or != nil {
			owner = or.Kind + "/" + or.Name
		}
		key := owner + " " + restartSignature(p)
		g, ok := idx[key]
		if !ok {
			g = &podGroup{key: key, rep: p}
			idx[key] = g
			groups = append(groups, g)
		}
		g.count++
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].count != groups[j].count {
			return groups[i].count > groups[j].count
		}
		return groups[i].key < groups[j].key
	})
	return groups, unhealthy
}

func analyzeNamespace(ctx context.Context, e *env, _ ObjectRef) error {
	e.examine(ObjectRef{Kind: "Namespace", Name: e.s.Namespace})
	nsRef := ObjectRef{Kind: "Namespace", Name: e.s.Namespace}
	pods, more, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{Max: scanMaxPods})
	if err != nil {
		return err
	}
	groups, unhealthy := groupPods(pods, e.now)
	var parts []string
	for i, g := range groups {
		if i < scanPodGroups {
			e.followUp(e.ref("Pod", g.rep.Name))
		}
		if i < 10 {
			parts = append(parts, fmt.Sprintf("%d× %s", g.count, g.key))
		}
	}
	scanned := fmt.Sprintf("%d", len(pods))
	if more {
		scanned = fmt.Sprintf("first %d", len(pods))
	}
	e.evidence(fmt.Sprintf("Namespace %s: %s pod(s) scanned, %d unhealthy in %d group(s): %s", e.s.Namespace, scanned, unhealthy, len(groups), orDefault(strings.Join(parts, "; "), "none")),
		Source{Kind: SourceQuery, Tool: "k8s_list", Query: "pods in " + e.s.Namespace, Object: &nsRef}, "")
	troubledOwners := map[string]bool{}
	for _, g := range groups {
		troubledOwners[strings.SplitN(g.key, " ", 2)[0]] = true
	}
	leads, steadyLeads := 0, 0
	lead := func(ref ObjectRef) {
		if leads < scanMaxLeads*4 {
			e.followUp(ref)
			leads++
			if ref.Kind != "Job" {
				steadyLeads++
			}
		}
	}
	// Controllers that cannot create their pods have no pods to show it.
	deps, _, err := listAs[*appsv1.Deployment](ctx, e, "Deployment", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return err
	}
	n := 0
	for _, d := range deps {
		if n >= scanMaxLeads {
			break
		}
		want := replicasOf(d.Spec.Replicas)
		// A paused Deployment holding back a template change fails nothing, visibly.
		bad := d.Status.Replicas < want || d.Spec.Paused && d.Status.UpdatedReplicas < want || d.DeletionTimestamp != nil
		for _, c := range d.Status.Conditions {
			if (c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue) ||
				(c.Type == appsv1.DeploymentProgressing && c.Reason == "ProgressDeadlineExceeded") {
				bad = true
			}
		}
		if bad {
			lead(e.ref("Deployment", d.Name))
			n++
		}
	}
	stss, _, err := listAs[*appsv1.StatefulSet](ctx, e, "StatefulSet", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return err
	}
	n = 0
	for _, s := range stss {
		if n < scanMaxLeads && (s.Status.Replicas < replicasOf(s.Spec.Replicas) && !troubledOwners["StatefulSet/"+s.Name] || s.DeletionTimestamp != nil) {
			lead(e.ref("StatefulSet", s.Name))
			n++
		}
	}
	jobs, _, err := listAs[*batchv1.Job](ctx, e, "Job", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return err
	}
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].CreationTimestamp.After(jobs[j].CreationTimestamp.Time) })
	n = 0
	for _, j := range jobs {
		suspended := (j.Spec.Suspend != nil && *j.Spec.Suspend || j.Spec.Parallelism != nil && *j.Spec.Parallelism == 0) && j.Status.CompletionTime == nil
		failed := false
		for _, c := range j.Status.Conditions {
			failed = failed || c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue
		}
		if n < scanMaxLeads && (failed || suspended || j.DeletionTimestamp != nil) {
			lead(e.ref("Job", j.Name))
			n++
		}
	}
	cjs, _, err := listAs[*batchv1.CronJob](ctx, e, "CronJob", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return err
	}
	n = 0
	for _, cj := range cjs {
		if n >= scanMaxLeads {
			continue
		}
		if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
			lead(e.ref("CronJob", cj.Name))
			n++
		} else if s, err := schedule.Parse(cj.Spec.Schedule, ptr.Deref(cj.Spec.TimeZone, "")); err != nil {
			lead(e.ref("CronJob", cj.Name))
			n++
		} else if p, ok := s.Prev(e.now.Add(-5 * time.Minute)); ok &&
			(cj.Status.LastScheduleTime == nil && cj.CreationTimestamp.Time.Before(p) || cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Time.Before(p.Add(-time.Minute))) {
			lead(e.ref("CronJob", cj.Name))
			n++
		} else if replaceWithoutSuccess(cj, s.Interval(e.now), e.now) {
			// Replace deletes every run that outlasts the interval: runs start, none finish.
			lead(e.ref("CronJob", cj.Name))
			n++
		} else if e.activeRunOverdue(ctx, cj, s.Interval(e.now)) {
			// Forbid skips every run while one hangs: nothing fails, nothing is missed yet.
			lead(e.ref("CronJob", cj.Name))
			n++
		}
	}
	svcs, _, err := listAs[*corev1.Service](ctx, e, "Service", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return err
	}
	slices, _, err := listAs[*discoveryv1.EndpointSlice](ctx, e, "EndpointSlice", tools.ListOptions{Max: 2000})
	if err != nil {
		return err
	}
	readyBySvc, slicesOf := map[string]int{}, map[string][]*discoveryv1.EndpointSlice{}
	for _, es := range slices {
		r, _ := tools.ReadyEndpoints([]*discoveryv1.EndpointSlice{es})
		readyBySvc[es.Labels[discoveryv1.LabelServiceName]] += r
		slicesOf[es.Labels[discoveryv1.LabelServiceName]] = append(slicesOf[es.Labels[discoveryv1.LabelServiceName]], es)
	}
	svcByName := map[string]*corev1.Service{}
	n = 0
	for _, s := range svcs {
		svcByName[s.Name] = s
		// A Service without a selector has the endpoints someone wrote by hand: none at all
		// means its clients connect to nothing.
		selectorless := len(s.Spec.Selector) == 0 && len(slicesOf[s.Name]) == 0
		_, _, unnamed := slicePortUnnamed(s, slicesOf[s.Name])
		sticky := s.Spec.SessionAffinity == corev1.ServiceAffinityClientIP && readyBySvc[s.Name] > 1 && e.asksUnevenTraffic()
		// A port whose protocol the pods do not serve has ready endpoints and no error anywhere.
		wrongProto := false
		if p := firstSelected(s, pods); p != nil {
			sp, _, _ := protocolUnserved(s, p)
			wrongProto = sp != nil
		}
		if n < scanMaxLeads && ((len(s.Spec.Selector) > 0 || selectorless) && s.Spec.Type != corev1.ServiceTypeExternalName && readyBySvc[s.Name] == 0 || s.DeletionTimestamp != nil || unnamed || sticky || wrongProto || backendsSuspect(s, pods)) {
			lead(e.ref("Service", s.Name))
			n++
		}
	}
	pvcs, _, err := listAs[*corev1.PersistentVolumeClaim](ctx, e, "PersistentVolumeClaim", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return err
	}
	n = 0
	for _, c := range pvcs {
		if n < scanMaxLeads && (c.Status.Phase != corev1.ClaimBound || c.DeletionTimestamp != nil) {
			lead(e.ref("PersistentVolumeClaim", c.Name))
			n++
		}
	}
	// Objects whose rules need no further reads are judged right here.
	hpas, _, err := listAs[*autoscalingv2.HorizontalPodAutoscaler](ctx, e, "HorizontalPodAutoscaler", tools.ListOptions{Max: 50})
	if err != nil {
		return err
	}
	for _, h := range hpas {
		// An autoscaler at its maximum may have taken back a manual scale-up: only its
		// events say so.
		var evs []tools.EventGroup
		if h.Spec.MaxReplicas > 0 && h.Status.CurrentReplicas >= h.Spec.MaxReplicas {
			evs = e.events(ctx, "HorizontalPodAutoscaler", h.Name)
		}
		if err := e.checkHPA(ctx, h, evs); err != nil {
			return err
		}
	}
	pdbs, _, err := listAs[*policyv1.PodDisruptionBudget](ctx, e, "PodDisruptionBudget", tools.ListOptions{Max: 50})
	if err != nil {
		return err
	}
	for _, p := range pdbs {
		if err := e.checkPDB(ctx, p, false); err != nil {
			return err
		}
	}
	ings, _, err := listAs[*networkingv1.Ingress](ctx, e, "Ingress", tools.ListOptions{Max: 100})
	if err != nil {
		return err
	}
	for _, ing := range ings {
		iref := e.ref("Ingress", ing.Name)
		n := len(e.res.Findings)
		ingEv := e.objEvidence(iref, "Ingress "+ing.Name+": "+tools.Summarize(ing, e.now).Status)
		e.ingressTLS(ctx, ing, ingEv)
		e.ingressClass(ctx, ing, ingEv)
		e.ingressAnnotationsIgnored(ctx, ing, ingEv)
		if len(e.res.Findings) > n {
			continue
		}
		for _, be := range tools.IngressBackends(ing) {
			if svc, ok := svcByName[be.Service]; ok && !servicePortExists(svc, be) {
				lead(iref) // the Ingress analyzer names the port and the Service's ports
				break
			}
			if svc, ok := svcByName[be.Service]; ok && backendPortUnserved(svc, be, pods) {
				lead(e.ref("Service", svc.Name)) // the Service analyzer names the targetPort and the pods' ports
				break
			}
			if _, ok := svcByName[be.Service]; !ok {
				e.find(Finding{Rule: "ingress-backend-missing", Object: iref, Culprit: iref, Affected: []ObjectRef{e.ref("Service", be.Service)},
					Evidence: []string{e.objEvidence(iref, "Ingress "+ing.Name+": "+tools.Summarize(ing, e.now).Status)}, Facts: map[string]string{"service": be.Service},
					Summary: fmt.Sprintf("Ingress %s routes %s to Service %s, which does not exist in %s.", ing.Name, be.String(), be.Service, e.s.Namespace)})
				break
			}
		}
	}
	quotas, _, err := listAs[*corev1.ResourceQuota](ctx, e, "ResourceQuota", tools.ListOptions{Max: 50})
	if err != nil {
		return err
	}
	for _, q := range quotas {
		e.checkQuota(q)
	}
	for _, st := range stss {
		if _, ok := svcByName[st.Spec.ServiceName]; st.Spec.ServiceName != "" && !ok {
			lead(e.ref("StatefulSet", st.Name))
		}
	}
	dss, _, err := listAs[*appsv1.DaemonSet](ctx, e, "DaemonSet", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return err
	}
	for _, ds := range dss {
		ev := []string{e.objEvidence(e.ref("DaemonSet", ds.Name), "DaemonSet "+ds.Name+": "+tools.Summarize(ds, e.now).Status)}
		if !e.daemonSetNowhere(ctx, ds, ev) && !e.heldDaemonSet(ds, ev) && e.daemonSetShortfall(ctx, ds) {
			e.daemonSetTaintedNodes(ctx, ds, ev, nil)
		}
	}
	for _, st := range stss {
		e.heldStatefulSet(st, []string{e.objEvidence(e.ref("StatefulSet", st.Name), "StatefulSet "+st.Name+": "+tools.Summarize(st, e.now).Status)})
	}
	// A policy that isolates pods for ingress and admits nothing cuts them off whatever else works.
	pols, err := listOnce[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", maxPolicyList)
	if err != nil {
		return err
	}
	for _, pol := range pols {
		if !isolates(pol, networkingv1.PolicyTypeIngress) || len(pol.Spec.Ingress) > 0 {
			continue
		}
		for _, p := range pods {
			if selectsPod(pol, p.Labels) {
				lead(e.ref("NetworkPolicy", pol.Name))
				break
			}
		}
	}
	e.creationFailuresInNamespace(ctx)
	quiet := unhealthy == 0 && leads == 0 && len(e.res.Findings) == 0
	// Only one-shot work failed (a migration or setup Job): the long-running workloads it
	// prepares for may be Ready yet failing on what it left undone, and their errors are
	// what users see, so they are read too.
	oneShotOnly := !quiet && steadyLeads == 0 && len(e.res.Findings) == 0 && groupsOneShot(groups)
	if quiet || oneShotOnly {
		// Nothing (or only one-shot work) is visibly down: a Running, Ready workload may still
		// be failing at its job. Read the logs of one pod per workload next round.
		seen := map[string]bool{}
		for _, p := range pods {
			owner := "none/" + p.Name
			if or := controllerOf(p); or != nil {
				owner = or.Kind + "/" + or.Name
			}
			if len(seen) >= scanLogSamples || seen[owner] || !isReady(p) || oneShotOnly && strings.HasPrefix(owner, "Job/") {
				continue
			}
			seen[owner] = true
			e.followUp(e.ref("Pod", p.Name))
		}
	}
	// Last, so a namespace that spends the task's calls still gets every check above.
	inv := &nsInventory{pods: pods, deps: deps, stss: stss, dss: dss, jobs: jobs, cjs: cjs, svcs: svcs, pvcs: pvcs}
	e.followNamed(inv, ings)
	e.scanReferences(ctx, inv)
	e.scanRoleBindings(ctx, quiet)
	return nil
}

// groupsOneShot reports whether every group of unhealthy pods belongs to a Job.
func groupsOneShot(groups []*podGroup) bool {
	for _, g := range groups {
		if !strings.HasPrefix(g.key, "Job/") {
			return false
		}
	}
	return true
}

func analyzeSelector(ctx context.Context, e *env, _ ObjectRef) error {
	raw := e.task.Args["selector"]
	sel, err := labels.Parse(raw)
	if err != nil {
		ev := e.evidence("invalid label selector "+raw+": "+err.Error(), Source{Kind: SourceQuery, Query: raw}, "")
		r := ObjectRef{Kind: "Pod", Namespace: e.s.Namespace, Name: tools.Sanitize(raw, 253, true)}
		e.find(Finding{Rule: "target-not-found", Object: r, Culprit: r, Evidence: []string{ev}, Facts: map[string]string{"plural": "pods"},
			Summary: fmt.Sprintf("The label selector %q is not valid: %s.", raw, err)})
		return nil
	}
	pods, more, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: sel.String(), Max: scanMaxPods})
	if err != nil {
		return err
	}
	var matched []*corev1.Pod
	for _, p := range pods {
		if sel.Matches(labels.Set(p.Labels)) {
			matched = append(matched, p)
		}
	}
	if len(matched) == 0 {
		r := ObjectRef{Kind: "Pod", Namespace: e.s.Namespace, Name: sel.String()}
		ev := e.evidence(fmt.Sprintf("no pods match %s in %s", sel.String(), e.s.Namespace), Source{Kind: SourceQuery, Tool: "k8s_list", Query: sel.String()}, "")
		e.find(Finding{Rule: "target-not-found", Object: r, Culprit: r, Evidence: []string{ev}, Facts: map[string]string{"plural": "pods", "resource": "pods -l " + sel.String()},
			Summary: fmt.Sprintf("No pods match selector %s in %s.", sel.String(), e.s.Namespace)})
		e.followUp(ObjectRef{Kind: "Namespace", Name: e.s.Namespace})
		return nil
	}
	groups, unhealthy := groupPods(matched, e.now)
	for i, g := range groups {
		if i >= scanPodGroups {
			break
		}
		e.followUp(e.ref("Pod", g.rep.Name))
	}
	note := ""
	if more {
		note = " (capped)"
	}
	e.evidence(fmt.Sprintf("%d pod(s) match %s%s; %d unhealthy in %d group(s)", len(matched), sel.String(), note, unhealthy, len(groups)),
		Source{Kind: SourceQuery, Tool: "k8s_list", Query: sel.String()}, "")
	if unhealthy == 0 {
		return e.checkNetworkPolicies(ctx, matched, ObjectRef{Kind: "Pod", Namespace: e.s.Namespace, Name: matched[0].Name})
	}
	return nil
}

// activeRunOverdue reports a CronJob that forbids concurrent runs and whose active Job has
// run longer than its schedule's interval, so the runs due meanwhile were skipped.
func (e *env) activeRunOverdue(ctx context.Context, cj *batchv1.CronJob, interval time.Duration) bool {
	if cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent || len(cj.Status.Active) == 0 || interval <= 0 {
		return false
	}
	j, err := getAs[*batchv1.Job](ctx, e, "Job", cj.Status.Active[0].Name)
	return err == nil && j.Status.StartTime != nil && e.now.Sub(j.Status.StartTime.Time) > interval
}

// replaceWithoutSuccess is a Replace CronJob that started a run more than a schedule interval
// after its last success (or its creation): the run before it did not finish in time.
func replaceWithoutSuccess(cj *batchv1.CronJob, interval time.Duration, now time.Time) bool {
	if cj.Spec.ConcurrencyPolicy != batchv1.ReplaceConcurrent || interval <= 0 || cj.Status.LastScheduleTime == nil {
		return false
	}
	since := cj.CreationTimestamp.Time
	if ls := cj.Status.LastSuccessfulTime; ls != nil {
		since = ls.Time
	}
	return cj.Status.LastScheduleTime.Time.Sub(since) > interval && now.Sub(since) > interval
}
