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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A Service with endpoints can still send a share of its clients' requests where nothing
// serves them: its selector also matches the pods of a Job or a stray pod that copied the
// server's labels, or it publishes not-ready addresses, so pods that are still starting or
// failing their probe get traffic. The client then fails some of the time while the
// provider's own pods look healthy.

// backendFault is what is wrong with the pods a Service sends its traffic to.
type backendFault struct {
	text string      // continues a sentence that ends with the Service's name
	fix  string      // the change that mends it
	refs []ObjectRef // the Service first, then the wrong backends and what they belong to
}

// wrongBackends reports such a Service to the client that calls it. pods are the pods its
// selector matches.
func (pc *podCheck) wrongBackends(ctx context.Context, d *depCheck, svc *corev1.Service, sref ObjectRef, head string, pods []*corev1.Pod, facts map[string]string) bool {
	f := pc.e.judgeBackends(ctx, svc, sref, pods)
	if f == nil {
		return false
	}
	facts["fix"] = f.fix
	d.report(ctx, "service-backends-wrong", 0, sref, head+f.text, nil, f.refs, facts)
	return true
}

// backendsSuspect is the namespace scan's cheap test for judgeBackends, read from the pods'
// owner references alone: Ready pods of a Job or of no controller beside a controller's, or
// not-ready addresses published while some pods are not Ready.
func backendsSuspect(svc *corev1.Service, pods []*corev1.Pod) bool {
	if len(svc.Spec.Selector) == 0 {
		return false
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	ready, unready, odd := 0, 0, 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if !isReady(p) {
			unready++
			continue
		}
		ready++
		if c := metav1.GetControllerOf(p); c == nil || c.Kind == "Job" {
			odd++
		}
	}
	published := svc.Spec.PublishNotReadyAddresses && svc.Spec.ClusterIP != corev1.ClusterIPNone
	return published && ready > 0 && unready > 0 || odd > 0 && odd < ready
}

// judgeBackends says what is wrong with the pods Service svc selects, or nil.
func (e *env) judgeBackends(ctx context.Context, svc *corev1.Service, sref ObjectRef, pods []*corev1.Pod) *backendFault {
	var ready, unready []*corev1.Pod
	for _, p := range pods {
		switch {
		case p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning:
		case isReady(p):
			ready = append(ready, p)
		default:
			unready = append(unready, p)
		}
	}
	if svc.Spec.PublishNotReadyAddresses && len(ready) > 0 && len(unready) > 0 && svc.Spec.ClusterIP != corev1.ClusterIPNone {
		// The pods are named, not followed: the Service's setting, not their state, is the
		// cause (a pod still warming up is right not to be Ready).
		extra := []ObjectRef{sref}
		for _, p := range representatives(unready, 2) {
			extra = append(extra, e.ref("Pod", p.Name))
		}
		if wl := e.workloadOf(ctx, unready[0]); !wl.IsZero() {
			extra = append(extra, wl)
		}
		return &backendFault{refs: extra, fix: "set publishNotReadyAddresses: false on Service " + svc.Name,
			text: fmt.Sprintf(", which sets publishNotReadyAddresses: true, so %d pod(s) that are not Ready (%s) receive its traffic beside the %d Ready one(s): requests that reach them fail. That setting is for headless peer discovery; set it to false so only Ready pods are endpoints.",
				len(unready), podNames(unready, 3), len(ready))}
	}
	if len(ready) < 2 {
		return nil
	}
	// Ready backends from more than one owner, one of which is no long-running server (a
	// Job's pod, a pod nothing controls) or does not serve the Service's port: that owner's
	// share of the requests fails. Two Deployments behind one Service (blue/green, canary)
	// are a choice, not a fault, and are left alone.
	type owner struct {
		ref  ObjectRef
		pods []*corev1.Pod
	}
	owners := map[string]*owner{}
	var keys []string
	for _, p := range ready {
		w := e.workloadOf(ctx, p)
		if w.IsZero() {
			w = e.ref("Pod", p.Name)
		}
		if owners[w.Key()] == nil {
			owners[w.Key()] = &owner{ref: w}
			keys = append(keys, w.Key())
		}
		owners[w.Key()].pods = append(owners[w.Key()].pods, p)
	}
	if len(owners) < 2 {
		return nil
	}
	sort.Strings(keys)
	var odd []*owner
	for _, k := range keys {
		o := owners[k]
		switch o.ref.Kind {
		case "Job", "CronJob", "Pod":
			odd = append(odd, o)
		default:
			if !servesPort(svc, o.pods[0]) {
				odd = append(odd, o)
			}
		}
	}
	if len(odd) == 0 || len(odd) == len(owners) {
		return nil
	}
	o := odd[0]
	var servers []string
	for _, k := range keys {
		if owners[k] != o {
			servers = append(servers, owners[k].ref.Kind+" "+owners[k].ref.Name)
		}
	}
	return &backendFault{refs: []ObjectRef{sref, o.ref},
		fix: fmt.Sprintf("make the selector of Service %s specific to %s, or change the labels of %s %s's pods", svc.Name, strings.Join(servers, ", "), o.ref.Kind, o.ref.Name),
		text: fmt.Sprintf(", whose selector %s also matches %d Ready pod(s) of %s %s (%s) beside those of %s: the Service spreads requests over all of them, and the share reaching %s %s fails. Make the selector specific to %s (a label %s's pods do not carry), or change the labels of %s %s's pods.",
			tools.LabelsString(svc.Spec.Selector), len(o.pods), o.ref.Kind, o.ref.Name, podNames(o.pods, 2), strings.Join(servers, ", "), o.ref.Kind, o.ref.Name,
			strings.Join(servers, ", "), o.ref.Name, o.ref.Kind, o.ref.Name)}
}

// servesPort reports whether the pod declares the port the Service targets (a numeric
// targetPort undeclared by every container is still served: declaring ports is optional).
func servesPort(svc *corev1.Service, p *corev1.Pod) bool {
	for _, sp := range svc.Spec.Ports {
		if sp.TargetPort.StrVal == "" {
			return true
		}
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == sp.TargetPort.StrVal {
					return true
				}
			}
		}
	}
	return len(svc.Spec.Ports) == 0
}

// podNames lists up to n pod names, and how many more.
func podNames(pods []*corev1.Pod, n int) string {
	var names []string
	for i, p := range pods {
		if i == n {
			names = append(names, fmt.Sprintf("%d more", len(pods)-n))
			break
		}
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}
