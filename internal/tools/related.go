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

package tools

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// RelatedObject is one object related to the subject, with a note on how.
type RelatedObject struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Note   string `json:"note,omitempty"`
}

// Related is everything the tools found around one object.
type Related struct {
	Subject string          `json:"subject"`
	Objects []RelatedObject `json:"objects"`
	Config  []ConfigRef     `json:"config,omitempty"`
	Notes   []string        `json:"notes,omitempty"`
}

// PodTemplate returns the pod spec and labels of a pod or workload, if it has one.
func PodTemplate(obj runtime.Object) (*corev1.PodSpec, map[string]string, bool) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.Spec, o.Labels, true
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec, o.Spec.Template.Labels, true
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec, o.Spec.Template.Labels, true
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec, o.Spec.Template.Labels, true
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec, o.Spec.Template.Labels, true
	case *batchv1.Job:
		return &o.Spec.Template.Spec, o.Spec.Template.Labels, true
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec, o.Spec.JobTemplate.Spec.Template.Labels, true
	}
	return nil, nil, false
}

// ServicesSelecting lists Services whose selector matches the labels.
func (c *Client) ServicesSelecting(ctx context.Context, podLabels map[string]string) ([]*corev1.Service, error) {
	svcs, _, err := ListAs[*corev1.Service](ctx, c, "Service", ListOptions{Max: 500})
	if err != nil {
		return nil, err
	}
	var out []*corev1.Service
	for _, s := range svcs {
		if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(podLabels)) {
			out = append(out, s)
		}
	}
	return out, nil
}

// StorageFor summarises a PVC with its StorageClass and bound PV.
func (c *Client) StorageFor(ctx context.Context, claim string) ([]RelatedObject, error) {
	now := c.Now()
	pvc, err := GetAs[*corev1.PersistentVolumeClaim](ctx, c, "PersistentVolumeClaim", claim)
	if IsNotFound(err) {
		return []RelatedObject{{Kind: "PersistentVolumeClaim", Name: claim, Status: "MISSING", Note: err.Error()}}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []RelatedObject{{Kind: "PersistentVolumeClaim", Name: pvc.Name, Status: Summarize(pvc, now).Status}}
	if sc := pvc.Spec.StorageClassName; sc != nil && *sc != "" {
		o, err := GetAs[*storagev1.StorageClass](ctx, c, "StorageClass", *sc)
		switch {
		case IsNotFound(err):
			out = append(out, RelatedObject{Kind: "StorageClass", Name: *sc, Status: "MISSING", Note: "the claim's storageClassName does not exist"})
		case err != nil:
			return out, err
		default:
			out = append(out, RelatedObject{Kind: "StorageClass", Name: *sc, Status: Summarize(o, now).Status})
		}
	}
	if pvc.Spec.VolumeName != "" {
		pv, err := GetAs[*corev1.PersistentVolume](ctx, c, "PersistentVolume", pvc.Spec.VolumeName)
		switch {
		case IsNotFound(err):
			out = append(out, RelatedObject{Kind: "PersistentVolume", Name: pvc.Spec.VolumeName, Status: "MISSING"})
		case err != nil:
			return out, err
		default:
			out = append(out, RelatedObject{Kind: "PersistentVolume", Name: pv.Name, Status: Summarize(pv, now).Status})
		}
	}
	return out, nil
}

// RelatedTo gathers the objects around obj: for pods and workloads their Services,
// volumes and config references; for Services their pods, endpoints and Ingresses;
// for PVCs their class, volume and users; for Ingresses their backends.
func (c *Client) RelatedTo(ctx context.Context, obj runtime.Object) (Related, error) {
	now := c.Now()
	s := Summarize(obj, now)
	rel := Related{Subject: s.Kind + "/" + s.Name}
	if spec, lbls, ok := PodTemplate(obj); ok {
		svcs, err := c.ServicesSelecting(ctx, lbls)
		if err != nil {
			return rel, err
		}
		for _, svc := range svcs {
			rel.Objects = append(rel.Objects, RelatedObject{Kind: "Service", Name: svc.Name, Status: Summarize(svc, now).Status, Note: "selects these pods"})
		}
		claims := 0
		for _, v := range spec.Volumes {
			if v.PersistentVolumeClaim == nil {
				continue
			}
			if claims++; claims > 5 {
				rel.Notes = append(rel.Notes, "more PVCs not shown")
				break
			}
			st, err := c.StorageFor(ctx, v.PersistentVolumeClaim.ClaimName)
			if err != nil {
				return rel, err
			}
			rel.Objects = append(rel.Objects, st...)
		}
		if sts, ok := obj.(*appsv1.StatefulSet); ok {
			for _, t := range sts.Spec.VolumeClaimTemplates {
				rel.Notes = append(rel.Notes, fmt.Sprintf("volumeClaimTemplate %s creates PVCs %s-%s-<ordinal> with class %s", t.Name, t.Name, sts.Name, ptrStrOr(t.Spec.StorageClassName, "<default>")))
			}
		}
		refs, err := c.ResolveConfigRefs(ctx, PodConfigRefs(spec))
		if err != nil {
			return rel, err
		}
		rel.Config = refs
		if sa := spec.ServiceAccountName; sa != "" && sa != "default" {
			if _, _, err := c.Get(ctx, "ServiceAccount", sa); IsNotFound(err) {
				rel.Objects = append(rel.Objects, RelatedObject{Kind: "ServiceAccount", Name: sa, Status: "MISSING"})
			} else if err == nil {
				rel.Objects = append(rel.Objects, RelatedObject{Kind: "ServiceAccount", Name: sa, Status: "exists"})
			}
		}
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			n, _, err := c.Get(ctx, "Node", p.Spec.NodeName)
			if IsNotFound(err) {
				rel.Objects = append(rel.Objects, RelatedObject{Kind: "Node", Name: p.Spec.NodeName, Status: "MISSING"})
			} else if err == nil {
				rel.Objects = append(rel.Objects, RelatedObject{Kind: "Node", Name: p.Spec.NodeName, Status: Summarize(n, now).Status, Note: "runs this pod"})
			}
		}
		return rel, nil
	}
	switch o := obj.(type) {
	case *corev1.Service:
		return c.relatedToService(ctx, o, rel)
	case *corev1.PersistentVolumeClaim:
		st, err := c.StorageFor(ctx, o.Name)
		if err != nil {
			return rel, err
		}
		rel.Objects = append(rel.Objects, st[1:]...)
		pods, more, err := ListAs[*corev1.Pod](ctx, c, "Pod", ListOptions{Max: maxPodsScanned})
		if err != nil {
			return rel, err
		}
		for _, p := range pods {
			for _, v := range p.Spec.Volumes {
				if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == o.Name && len(rel.Objects) < 30 {
					rel.Objects = append(rel.Objects, RelatedObject{Kind: "Pod", Name: p.Name, Status: Summarize(p, now).Status, Note: "mounts this claim"})
				}
			}
		}
		if more {
			rel.Notes = append(rel.Notes, fmt.Sprintf("only the first %d pods were scanned for users of this claim", maxPodsScanned))
		}
	case *networkingv1.Ingress:
		for i, be := range IngressBackends(o) {
			if i >= 20 {
				rel.Notes = append(rel.Notes, "more backends not shown")
				break
			}
			svc, err := GetAs[*corev1.Service](ctx, c, "Service", be.Service)
			if IsNotFound(err) {
				rel.Objects = append(rel.Objects, RelatedObject{Kind: "Service", Name: be.Service, Status: "MISSING", Note: "backend of " + be.String()})
				continue
			}
			if err != nil {
				return rel, err
			}
			rel.Objects = append(rel.Objects, RelatedObject{Kind: "Service", Name: svc.Name, Status: Summarize(svc, now).Status, Note: "backend of " + be.String()})
		}
	default:
		rel.Notes = append(rel.Notes, "no relation rules for "+s.Kind)
	}
	return rel, nil
}

func (c *Client) relatedToService(ctx context.Context, svc *corev1.Service, rel Related) (Related, error) {
	now := c.Now()
	if len(svc.Spec.Selector) == 0 {
		rel.Notes = append(rel.Notes, "service has no selector: its endpoints are managed by hand")
	} else {
		pods, more, err := ListAs[*corev1.Pod](ctx, c, "Pod", ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String(), Max: 200})
		if err != nil {
			return rel, err
		}
		ready := 0
		for _, p := range pods {
			if c := PodCondition(p, corev1.PodReady); c != nil && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
		note := fmt.Sprintf("%d pod(s) match the selector, %d ready", len(pods), ready)
		if more {
			note += " (more not counted)"
		}
		rel.Notes = append(rel.Notes, note)
		for i, p := range pods {
			if i >= 10 {
				break
			}
			rel.Objects = append(rel.Objects, RelatedObject{Kind: "Pod", Name: p.Name, Status: Summarize(p, now).Status, Note: "selected"})
		}
	}
	slices, err := c.EndpointSlicesFor(ctx, svc.Name)
	if err != nil {
		return rel, err
	}
	for _, es := range slices {
		rel.Objects = append(rel.Objects, RelatedObject{Kind: "EndpointSlice", Name: es.Name, Status: Summarize(es, now).Status})
	}
	ings, _, err := ListAs[*networkingv1.Ingress](ctx, c, "Ingress", ListOptions{Max: 200})
	if err != nil {
		return rel, err
	}
	for _, ing := range ings {
		for _, be := range IngressBackends(ing) {
			if be.Service == svc.Name {
				rel.Objects = append(rel.Objects, RelatedObject{Kind: "Ingress", Name: ing.Name, Status: Summarize(ing, now).Status, Note: "routes " + be.String()})
				break
			}
		}
	}
	return rel, nil
}

// EndpointSlicesFor lists the EndpointSlices of a Service.
func (c *Client) EndpointSlicesFor(ctx context.Context, service string) ([]*discoveryv1.EndpointSlice, error) {
	sel := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: service}).String()
	out, _, err := ListAs[*discoveryv1.EndpointSlice](ctx, c, "EndpointSlice", ListOptions{LabelSelector: sel, Max: 50})
	if err != nil {
		return nil, err
	}
	// Re-check the label for clients that ignore selectors.
	kept := out[:0]
	for _, es := range out {
		if es.Labels[discoveryv1.LabelServiceName] == service {
			kept = append(kept, es)
		}
	}
	return kept, nil
}

// ReadyEndpoints counts ready and total endpoints across slices.
func ReadyEndpoints(slices []*discoveryv1.EndpointSlice) (ready, total int) {
	for _, es := range slices {
		for _, e := range es.Endpoints {
			total++
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				ready++
			}
		}
	}
	return ready, total
}

// SelectorMatches reports whether a label selector matches a label set (nil/invalid → false).
func SelectorMatches(sel *metav1.LabelSelector, lbls map[string]string) bool {
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false
	}
	return s.Matches(labels.Set(lbls))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RelatedLines renders Related for text output.
func RelatedLines(t *Text, rel Related) {
	t.Linef("related to %s:", rel.Subject)
	for _, o := range rel.Objects {
		line := fmt.Sprintf("- %s/%s: %s", o.Kind, o.Name, o.Status)
		if o.Note != "" {
			line += " (" + o.Note + ")"
		}
		t.Line(line)
	}
	for _, r := range rel.Config {
		state := "not checked"
		switch {
		case r.Checked && !r.Exists:
			state = "MISSING"
		case r.Exists && len(r.MissingKeys) > 0:
			state = "exists but lacks key(s) " + strings.Join(r.MissingKeys, ",")
		case r.Exists:
			state = "exists, keys: " + strings.Join(r.KeysPresent, ",")
		}
		opt := ""
		if r.Optional {
			opt = " (optional)"
		}
		t.Linef("- %s/%s%s: %s; used by %s", r.Kind, r.Name, opt, state, strings.Join(r.UsedBy, "; "))
	}
	for _, n := range rel.Notes {
		t.Line("note: " + n)
	}
}
