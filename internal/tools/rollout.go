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
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RolloutRevision is one revision of a workload.
type RolloutRevision struct {
	Revision    int64             `json:"revision"`
	Name        string            `json:"name"`
	Created     time.Time         `json:"created"`
	Images      map[string]string `json:"images"`
	ChangeCause string            `json:"changeCause,omitempty"`
	Replicas    int32             `json:"replicas"`
	Ready       int32             `json:"ready"`
	// Changes lists what differs from the previous revision (images, containers).
	Changes []string `json:"changes,omitempty"`
}

const maxRevisions = 10

// RolloutHistory lists a Deployment's ReplicaSet revisions, or a StatefulSet's/DaemonSet's
// ControllerRevisions, newest first, with image diffs and change-cause.
func (c *Client) RolloutHistory(ctx context.Context, kind, name string) ([]RolloutRevision, error) {
	obj, k, err := c.Get(ctx, kind, name)
	if err != nil {
		return nil, err
	}
	var revs []RolloutRevision
	switch o := obj.(type) {
	case *appsv1.Deployment:
		rss, err := c.ReplicaSetsFor(ctx, o)
		if err != nil {
			return nil, err
		}
		for _, rs := range rss {
			revs = append(revs, RolloutRevision{
				Revision: Revision(rs), Name: rs.Name, Created: rs.CreationTimestamp.Time,
				Images: imageMap(rs.Spec.Template.Spec), ChangeCause: Sanitize(rs.Annotations["kubernetes.io/change-cause"], 200, true),
				Replicas: replicas(rs.Spec.Replicas), Ready: rs.Status.ReadyReplicas,
			})
		}
	case *appsv1.StatefulSet, *appsv1.DaemonSet:
		m := metaOf(obj)
		crs, _, err := ListAs[*appsv1.ControllerRevision](ctx, c, "ControllerRevision", ListOptions{Max: 200})
		if err != nil {
			return nil, err
		}
		for _, cr := range crs {
			if !IsOwnedBy(cr, m.GetUID()) {
				continue
			}
			revs = append(revs, RolloutRevision{
				Revision: cr.Revision, Name: cr.Name, Created: cr.CreationTimestamp.Time,
				Images: revisionImages(cr), ChangeCause: Sanitize(cr.Annotations["kubernetes.io/change-cause"], 200, true),
			})
		}
	default:
		return nil, fmt.Errorf("%w: rollout history is available for Deployments, StatefulSets and DaemonSets, not %s", ErrInvalidInput, k.Kind)
	}
	sort.SliceStable(revs, func(i, j int) bool { return revs[i].Revision > revs[j].Revision })
	for i := range revs {
		if i+1 < len(revs) {
			revs[i].Changes = imageChanges(revs[i+1].Images, revs[i].Images)
		}
	}
	if len(revs) > maxRevisions {
		revs = revs[:maxRevisions]
	}
	return revs, nil
}

func imageMap(spec corev1.PodSpec) map[string]string {
	m := map[string]string{}
	for _, c := range spec.InitContainers {
		m["init:"+c.Name] = c.Image
	}
	for _, c := range spec.Containers {
		m[c.Name] = c.Image
	}
	return m
}

// revisionImages reads container images out of a ControllerRevision's template patch.
func revisionImages(cr *appsv1.ControllerRevision) map[string]string {
	var doc struct {
		Spec struct {
			Template struct {
				Spec corev1.PodSpec `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if len(cr.Data.Raw) == 0 || len(cr.Data.Raw) > 1<<20 || json.Unmarshal(cr.Data.Raw, &doc) != nil {
		return map[string]string{}
	}
	return imageMap(doc.Spec.Template.Spec)
}

func imageChanges(prev, cur map[string]string) []string {
	var out []string
	for name, img := range cur {
		switch old, ok := prev[name]; {
		case !ok:
			out = append(out, fmt.Sprintf("container %s added (%s)", name, img))
		case old != img:
			out = append(out, fmt.Sprintf("container %s image %s → %s", name, old, img))
		}
	}
	for name := range prev {
		if _, ok := cur[name]; !ok {
			out = append(out, "container "+name+" removed")
		}
	}
	sort.Strings(out)
	return out
}

// RolloutLines renders the history.
func RolloutLines(t *Text, now time.Time, revs []RolloutRevision) {
	if len(revs) == 0 {
		t.Line("no revisions found")
		return
	}
	for _, r := range revs {
		imgs := make([]string, 0, len(r.Images))
		for n, i := range r.Images {
			imgs = append(imgs, n+"="+i)
		}
		sort.Strings(imgs)
		line := fmt.Sprintf("revision %d %s (%s ago): %s", r.Revision, r.Name, Age(now, metav1.NewTime(r.Created)), strings.Join(imgs, ", "))
		if r.Name != "" && r.Replicas > 0 {
			line += fmt.Sprintf(", replicas %d ready %d", r.Replicas, r.Ready)
		}
		t.Line(line)
		if r.ChangeCause != "" {
			t.Line("  change-cause: " + r.ChangeCause)
		}
		for _, ch := range r.Changes {
			t.Line("  " + ch)
		}
	}
}
