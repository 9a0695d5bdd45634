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
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/kubage/kubage/internal/tools"
)

// --- preemption disabled ------------------------------------------------------------------

// preemptionNever blames the pod's PriorityClass when its preemptionPolicy Never is all that
// keeps lower-priority pods from making room: on some node the pod may use, their requests
// plus what is free cover the pod's.
func (pc *podCheck) preemptionNever(ctx context.Context, p *corev1.Pod, v *schedView, m SchedMessage, said string, evIDs []string) bool {
	never := p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy == corev1.PreemptNever
	if m.Preemption != nil && strings.Contains(m.Preemption.NotEligible, "Never") {
		never = true
	}
	if !never {
		return false
	}
	mine := priorityOf(p)
	for _, b := range v.blocks {
		if b.excluded || len(b.kinds) != 1 || !b.kinds[ClauseInsufficient] {
			continue
		}
		var victims []*corev1.Pod
		held := corev1.ResourceList{}
		for _, o := range v.bound[b.node.Name] {
			if priorityOf(o) >= mine {
				continue
			}
			victims = append(victims, o)
			for r, q := range tools.PodRequests(&o.Spec) {
				h := held[r]
				h.Add(q)
				held[r] = h
			}
		}
		if len(victims) == 0 {
			continue
		}
		fits := true
		var nums []string
		for _, r := range sortedResources(b.short) {
			free := b.short[r]
			room := free.DeepCopy()
			room.Add(held[r])
			need := v.req[r]
			if room.Cmp(need) < 0 {
				fits = false
			}
			hq := held[r]
			nums = append(nums, fmt.Sprintf("%s: the pod requests %s, %s is free and lower-priority pods request %s", r, need.String(), free.String(), hq.String()))
		}
		if !fits {
			continue
		}
		var names []string
		for i, o := range victims {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(victims)-3))
				break
			}
			names = append(names, fmt.Sprintf("%s (priority %d)", o.Name, priorityOf(o)))
		}
		class := p.Spec.PriorityClassName
		culprit := ObjectRef{}
		who := "its preemptionPolicy Never"
		if class != "" {
			culprit = pc.e.ref("PriorityClass", class)
			who = fmt.Sprintf("its PriorityClass %s sets preemptionPolicy: Never", class)
		}
		summary := fmt.Sprintf("Pod %s (priority %d) cannot be scheduled (%s). On node %s lower-priority pods %s hold the room (%s): the scheduler would preempt them for a pod of higher priority, but %s, so it never evicts anything and the pod waits for room to free up. Set preemptionPolicy: PreemptLowerPriority on the class (or use another class) to let it preempt.",
			p.Name, mine, said, b.node.Name, strings.Join(names, ", "), strings.Join(nums, "; "), who)
		pc.find(ctx, "unschedulable-preemption-never", "", summary, culprit, evIDs,
			map[string]string{"priorityClass": orDefault(class, "none"), "priority": fmt.Sprint(mine), "node": b.node.Name})
		return true
	}
	return false
}

// --- extended resources nobody advertises -------------------------------------------------

// unadvertised follows "Insufficient vendor/name" that no node advertises to the device
// plugin that should register it: a DaemonSet of the namespace whose name, image or arguments
// name the resource, with its pods' state and last words.
func (pc *podCheck) unadvertised(ctx context.Context, p *corev1.Pod, v *schedView, m SchedMessage, said string, evIDs []string) bool {
	e := pc.e
	for _, rs := range m.resources() {
		if !strings.Contains(rs, "/") || strings.HasPrefix(rs, "hugepages-") {
			continue
		}
		r := corev1.ResourceName(rs)
		advertised, cands := 0, 0
		for _, b := range v.blocks {
			if b.excluded {
				continue
			}
			cands++
			if q, ok := b.node.Status.Allocatable[r]; ok && !q.IsZero() {
				advertised++
			}
		}
		if advertised > 0 || cands == 0 {
			continue
		}
		need := v.req[r]
		ds, why := pc.devicePlugin(ctx, rs)
		base := fmt.Sprintf("Pod %s requests %s=%s and cannot be scheduled (%s): none of the %d node(s) it may use advertises %s in its allocatable, so no device plugin has registered it with their kubelets.",
			p.Name, rs, need.String(), said, cands, rs)
		if ds == nil {
			pc.find(ctx, "unschedulable-device-plugin", "", base+" No DaemonSet of the namespace names the resource: install the device plugin for it, or drop the request.", ObjectRef{}, evIDs,
				map[string]string{"resource": rs})
			return true
		}
		dref := e.ref("DaemonSet", ds.Name)
		evIDs = append(evIDs, e.objEvidence(dref, "DaemonSet "+ds.Name+": "+tools.Summarize(ds, e.now).Status))
		pc.find(ctx, "unschedulable-device-plugin", "", base+fmt.Sprintf(" DaemonSet %s is the device plugin for it: %s", ds.Name, why), dref, evIDs,
			map[string]string{"resource": rs, "daemonSet": ds.Name})
		return true
	}
	return false
}

// devicePlugin finds the namespace's DaemonSet that names the resource and says how it fares.
func (pc *podCheck) devicePlugin(ctx context.Context, res string) (*appsv1.DaemonSet, string) {
	e := pc.e
	sets, err := listOnce[*appsv1.DaemonSet](ctx, e, "DaemonSet", scanMaxObjects)
	if err != nil {
		return nil, ""
	}
	vendor, name, _ := strings.Cut(strings.ToLower(res), "/")
	// brand is the vendor's first label: "nvidia" of nvidia.com, named by its plugin's image.
	brand, _, _ := strings.Cut(vendor, ".")
	var best *appsv1.DaemonSet
	bestScore := 0
	for _, ds := range sets {
		text := strings.ToLower(ds.Name)
		for _, c := range append(append([]corev1.Container{}, ds.Spec.Template.Spec.InitContainers...), ds.Spec.Template.Spec.Containers...) {
			text += " " + strings.ToLower(c.Image+" "+strings.Join(c.Command, " ")+" "+strings.Join(c.Args, " "))
			for _, ev := range c.Env {
				text += " " + strings.ToLower(ev.Value)
			}
		}
		own := strings.ToLower(ds.Name)
		for _, c := range ds.Spec.Template.Spec.Containers {
			own += " " + strings.ToLower(c.Image)
		}
		score := 0
		switch {
		case strings.Contains(text, strings.ToLower(res)):
			score = 3
		case strings.Contains(text, vendor) && strings.Contains(text, name):
			score = 2
		case (strings.Contains(own, name) || len(brand) >= 3 && strings.Contains(own, brand)) && (strings.Contains(text, "plugin") || strings.Contains(text, "device")):
			score = 1
		}
		if score > bestScore {
			best, bestScore = ds, score
		}
	}
	if best == nil {
		return nil, ""
	}
	return best, pc.pluginState(ctx, best)
}

// pluginState says what the DaemonSet's pods are doing, with a crashed container's last words.
func (pc *podCheck) pluginState(ctx context.Context, ds *appsv1.DaemonSet) string {
	e := pc.e
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return ""
	}
	var mine []*corev1.Pod
	for _, o := range pods {
		for _, ref := range o.OwnerReferences {
			if ref.Kind == "DaemonSet" && ref.Name == ds.Name {
				mine = append(mine, o)
			}
		}
	}
	if len(mine) == 0 {
		return fmt.Sprintf("it runs no pod (desired %d, ready %d), so nothing registers the resource; check its nodeSelector and tolerations.", ds.Status.DesiredNumberScheduled, ds.Status.NumberReady)
	}
	o := mine[0]
	for _, c := range mine {
		if tools.PodCondition(c, corev1.PodReady) == nil || tools.PodCondition(c, corev1.PodReady).Status != corev1.ConditionTrue {
			o = c
			break
		}
	}
	state := fmt.Sprintf("its pod %s is %s", o.Name, tools.Summarize(o, e.now).Status)
	for _, cs := range o.Status.ContainerStatuses {
		t := cs.LastTerminationState.Terminated
		if t == nil {
			t = cs.State.Terminated
		}
		if t != nil {
			state += fmt.Sprintf("; container %s last exited %d", cs.Name, t.ExitCode)
			if msg := strings.TrimSpace(t.Message); msg != "" {
				state += fmt.Sprintf(" with termination message %q", tools.Sanitize(msg, 200, true))
			}
		}
		lr := e.logs(ctx, o.Name, cs.Name, cs.RestartCount > 0 && cs.State.Running == nil && cs.LastTerminationState.Terminated != nil)
		if len(lr.Lines) == 0 && cs.RestartCount > 0 {
			lr = e.logs(ctx, o.Name, cs.Name, false)
		}
		if line := lastWords(lr.Lines); line != "" {
			state += fmt.Sprintf("; its log ends %q", tools.Sanitize(line, 200, true))
		}
		break
	}
	return state + ". Until it runs and registers the resource, no node offers it."
}

// lastWords is the last error-looking line of a log, else its last non-empty line.
func lastWords(lines []string) string {
	last := ""
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-50; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if last == "" {
			last = l
		}
		low := strings.ToLower(l)
		if strings.Contains(low, "error") || strings.Contains(low, "fatal") || strings.Contains(low, "fail") || strings.Contains(low, "panic") {
			return l
		}
	}
	return last
}

// --- init containers that set the request -------------------------------------------------

// initDriver names the init container whose request sets the pod's effective request for r:
// the scheduler uses max(largest init container (plus the sidecars started before it), sum of
// the app containers and sidecars). "" when the app containers set it.
func initDriver(s *corev1.PodSpec, r corev1.ResourceName) string {
	app := resource.Quantity{}
	for _, c := range s.Containers {
		app.Add(c.Resources.Requests[r])
	}
	sidecars := resource.Quantity{}
	best, bestQ := "", resource.Quantity{}
	for _, c := range s.InitContainers {
		q := c.Resources.Requests[r]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars.Add(q)
			app.Add(q)
			continue
		}
		eff := q.DeepCopy()
		eff.Add(sidecars)
		if eff.Cmp(bestQ) > 0 {
			best, bestQ = c.Name, eff
		}
	}
	if best == "" || bestQ.Cmp(app) <= 0 {
		return ""
	}
	for _, c := range s.InitContainers {
		if c.Name == best {
			q := c.Resources.Requests[r]
			return fmt.Sprintf(" Its effective %s request is %s, set by init container %s (requests %s=%s) rather than by the app containers (%s=%s together): the scheduler counts the larger of the biggest init container and the app containers' sum.",
				r, bestQ.String(), best, r, q.String(), r, app.String())
		}
	}
	return ""
}

// freeSaid states, for the short resources, the most any candidate node has free.
func (v *schedView) freeSaid(res []string) string {
	var parts []string
	for _, rs := range res {
		r := corev1.ResourceName(rs)
		need, ok := v.req[r]
		if !ok {
			continue
		}
		bestNode, best := "", resource.Quantity{}
		for _, b := range v.blocks {
			if b.excluded {
				continue
			}
			free, short := b.short[r]
			if !short {
				continue
			}
			if bestNode == "" || free.Cmp(best) > 0 {
				bestNode, best = b.node.Name, free
			}
		}
		if bestNode != "" {
			parts = append(parts, fmt.Sprintf("%s: requests %s, the most free on a node it may use is %s (%s)", r, need.String(), best.String(), bestNode))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, "; ") + "."
}

func toleratesUnschedulable(p *corev1.Pod) bool {
	t := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	for i := range p.Spec.Tolerations {
		if p.Spec.Tolerations[i].ToleratesTaint(klog.Background(), &t, false) {
			return true
		}
	}
	return false
}

// freeSaid states the most a usable node has free of each short resource ("" when the nodes
// cannot be read).
func (pc *podCheck) freeSaid(ctx context.Context, p *corev1.Pod, res []string) string {
	v, ok := pc.viewNodes(ctx, p)
	if !ok {
		return ""
	}
	return v.freeSaid(res)
}

// initSaid names the init container that drives the effective request of a short resource.
func initSaid(s *corev1.PodSpec, res []string) string {
	for _, r := range res {
		if w := initDriver(s, corev1.ResourceName(r)); w != "" {
			return w
		}
	}
	return ""
}
