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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Much of what happens to a healthy object is done to it by a controller that runs beside it:
// a reloader restarts a Deployment when its ConfigMap changes, an image updater rolls out new
// tags, a DNS controller publishes an Ingress's host. The object asks for that by carrying the
// controller's annotations (reloader.stakater.com/auto, keel.sh/policy,
// external-dns.alpha.kubernetes.io/hostname). When the object itself shows nothing wrong, the
// controller its annotations name is read: whatever keeps that controller from doing its work
// (a denied watch, an API it cannot list, a crash) is why "nothing happens" to the object.

// maxControllersFollowed bounds the controllers read for one object.
const maxControllersFollowed = 2

// systemAnnotationLabels are the first labels of annotation domains Kubernetes, kubectl and
// Helm write themselves; they name no controller running in the namespace.
var systemAnnotationLabels = map[string]bool{
	"deployment": true, "kubectl": true, "pod-security": true, "batch": true, "apps": true, "volume": true, "pv": true,
	"storageclass": true, "node": true, "scheduler": true, "service": true, "control-plane": true, "endpoints": true,
	"meta": true, "config": true, "controller": true, "topology": true, "app": true, "policy": true, "networking": true,
	"autoscaling": true, "kubelet": true, "kubeadm": true, "container": true, "seccomp": true, "apparmor": true,
}

// genericDomainLabels are labels of a domain that name nobody: top-level domains, API
// maturity words and words of many controllers' annotations.
var genericDomainLabels = map[string]bool{
	"io": true, "com": true, "sh": true, "dev": true, "net": true, "org": true, "cloud": true, "www": true,
	"kubernetes": true, "k8s": true, "alpha": true, "beta": true, "x-k8s": true, "sidecar": true, "inject": true,
	"agent": true, "github": true, "apps": true, "app": true,
}

// controllerTokens are the names an object's annotations give the controllers that act on it:
// the meaningful labels of each annotation key's domain ("reloader", "stakater" for
// reloader.stakater.com/auto; "external-dns" for external-dns.alpha.kubernetes.io/hostname).
func controllerTokens(anns ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, a := range anns {
		keys := make([]string, 0, len(a))
		for k := range a {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			domain, _, ok := strings.Cut(k, "/")
			if !ok || !strings.Contains(domain, ".") || len(domain) > 253 {
				continue
			}
			labels := strings.Split(strings.ToLower(domain), ".")
			if len(labels) > 1 && (strings.HasSuffix(domain, "kubernetes.io") || strings.HasSuffix(domain, "k8s.io")) && systemAnnotationLabels[labels[0]] {
				continue
			}
			if domain == "kubernetes.io" || domain == "k8s.io" {
				continue
			}
			for _, l := range labels {
				if len(l) >= 4 && !genericDomainLabels[l] && out[l] == "" {
					out[l] = k
				}
			}
		}
	}
	return out
}

// workloadMatches reports whether a workload's name or one of its images is the controller a
// token names: a hyphen-delimited part of the name, or the image's repository name.
func workloadMatches(name string, spec corev1.PodSpec, tok string) bool {
	for _, part := range strings.Split(name, "-") {
		if part == tok {
			return true
		}
	}
	if strings.Contains(tok, "-") && (name == tok || strings.HasPrefix(name, tok+"-") || strings.HasSuffix(name, "-"+tok)) {
		return true
	}
	for _, c := range spec.Containers {
		repo := strings.ToLower(c.Image)
		if i := strings.IndexAny(repo, "@"); i >= 0 {
			repo = repo[:i]
		}
		if i := strings.LastIndexByte(repo, '/'); i >= 0 {
			repo = repo[i+1:]
		}
		repo, _, _ = strings.Cut(repo, ":")
		if repo == tok {
			return true
		}
	}
	return false
}

// annotatedController is a workload of the namespace an object's annotations name.
type annotatedController struct {
	ref      ObjectRef
	key      string // the annotation that names it
	selector *metav1.LabelSelector
}

// annotatedControllers finds the workloads of the namespace that obj's annotations name.
func (e *env) annotatedControllers(ctx context.Context, obj ObjectRef, anns ...map[string]string) []annotatedController {
	toks := controllerTokens(anns...)
	if len(toks) == 0 {
		return nil
	}
	names := make([]string, 0, len(toks))
	for t := range toks {
		names = append(names, t)
	}
	sort.Strings(names)
	var out []annotatedController
	add := func(kind, name string, spec corev1.PodSpec, sel *metav1.LabelSelector) {
		ref := e.ref(kind, name)
		if ref.Key() == obj.Key() || len(out) >= maxControllersFollowed {
			return
		}
		for _, x := range out {
			if x.ref.Key() == ref.Key() {
				return
			}
		}
		for _, t := range names {
			if workloadMatches(name, spec, t) {
				out = append(out, annotatedController{ref: ref, key: toks[t], selector: sel})
				return
			}
		}
	}
	// Listed once per task: every healthy workload and Ready pod read asks again.
	if deps, err := listOnce[*appsv1.Deployment](ctx, e, "Deployment", scanMaxObjects); err == nil {
		for _, d := range deps {
			add("Deployment", d.Name, d.Spec.Template.Spec, d.Spec.Selector)
		}
	}
	if stss, err := listOnce[*appsv1.StatefulSet](ctx, e, "StatefulSet", scanMaxObjects); err == nil {
		for _, s := range stss {
			add("StatefulSet", s.Name, s.Spec.Template.Spec, s.Spec.Selector)
		}
	}
	if dss, err := listOnce[*appsv1.DaemonSet](ctx, e, "DaemonSet", scanMaxObjects); err == nil {
		for _, d := range dss {
			add("DaemonSet", d.Name, d.Spec.Template.Spec, d.Spec.Selector)
		}
	}
	return out
}

// followControllers reads the controllers obj's annotations name, when obj shows nothing
// wrong: a finding on a controller's pod also names obj, the object it fails to act on.
func (e *env) followControllers(ctx context.Context, obj ObjectRef, anns ...map[string]string) {
	for _, c := range e.annotatedControllers(ctx, obj, anns...) {
		pods := e.podsReadyFirst(ctx, c.selector)
		if len(pods) == 0 {
			continue
		}
		pod := pods[0]
		n := len(e.res.Findings)
		if found, err := e.checkPod(ctx, pod); err != nil || !found && isReady(pod) && !e.runningErrors(ctx, pod) {
			continue
		}
		ev := e.objEvidence(obj, fmt.Sprintf("%s %s carries annotation %s: %s %s acts on it", obj.Kind, obj.Name, c.key, c.ref.Kind, c.ref.Name))
		for i := n; i < len(e.res.Findings); i++ {
			f := &e.res.Findings[i]
			f.Affected = mergeRefs(f.Affected, []ObjectRef{obj})
			f.Evidence = mergeStrings(f.Evidence, []string{ev})
			if !strings.Contains(f.Summary, c.key) {
				f.Summary = clipString(f.Summary, MaxRootSummary-200) + fmt.Sprintf(" %s %s relies on it through annotation %s.", obj.Kind, obj.Name, c.key)
			}
		}
	}
}

// podsReadyFirst lists (up to 20 of) the pods sel picks, the Ready ones first; nil for a
// missing or empty selector.
func (e *env) podsReadyFirst(ctx context.Context, sel *metav1.LabelSelector) []*corev1.Pod {
	if sel == nil {
		return nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || s.Empty() {
		return nil
	}
	pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: s.String(), Max: 20})
	if err != nil {
		return nil
	}
	sort.SliceStable(pods, func(i, j int) bool { return !isReady(pods[i]) && isReady(pods[j]) })
	return pods
}

// followWorkloadControllers reads the controllers a healthy workload's annotations (on the
// object and on its pod template) name.
func (e *env) followWorkloadControllers(ctx context.Context, wref ObjectRef) {
	obj, err := e.get(ctx, wref.Kind, wref.Name)
	if err != nil {
		return
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		e.followControllers(ctx, wref, o.Annotations, o.Spec.Template.Annotations)
	case *appsv1.StatefulSet:
		e.followControllers(ctx, wref, o.Annotations, o.Spec.Template.Annotations)
	case *appsv1.DaemonSet:
		e.followControllers(ctx, wref, o.Annotations, o.Spec.Template.Annotations)
	}
}
