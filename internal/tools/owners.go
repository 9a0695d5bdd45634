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
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// OwnerNode is one object in an ownership tree.
type OwnerNode struct {
	Kind     string      `json:"kind"`
	Name     string      `json:"name"`
	Status   string      `json:"status,omitempty"`
	Missing  bool        `json:"missing,omitempty"`
	Children []OwnerNode `json:"children,omitempty"`
	// More counts children left out by the caps.
	More int `json:"more,omitempty"`
}

// OwnerChain is the path up to the top controller and the tree below the object.
type OwnerChain struct {
	Up   []OwnerNode `json:"up"`
	Down OwnerNode   `json:"down"`
}

const (
	maxOwnerDepth    = 5
	maxChildSets     = 5
	maxPodsPerParent = 20
	maxPodsScanned   = 1000
)

// OwnersUp follows controller owner references from obj to the top-most owner.
// The first element is obj itself.
func (c *Client) OwnersUp(ctx context.Context, obj runtime.Object) ([]OwnerNode, runtime.Object, error) {
	now := c.Now()
	s := Summarize(obj, now)
	chain := []OwnerNode{{Kind: s.Kind, Name: s.Name, Status: s.Status}}
	top := obj
	cur := metaOf(obj)
	for depth := 0; cur != nil && depth < maxOwnerDepth; depth++ {
		ref := controllerRef(cur)
		if ref == nil {
			break
		}
		if _, err := ResolveKind(ref.Kind); err != nil {
			chain = append(chain, OwnerNode{Kind: ref.Kind, Name: ref.Name, Status: "kind not inspected"})
			break
		}
		o, _, err := c.Get(ctx, ref.Kind, ref.Name)
		if IsNotFound(err) {
			chain = append(chain, OwnerNode{Kind: ref.Kind, Name: ref.Name, Missing: true, Status: "owner no longer exists"})
			break
		}
		if err != nil {
			return chain, top, err
		}
		if m := metaOf(o); m == nil || m.GetUID() != ref.UID && ref.UID != "" {
			chain = append(chain, OwnerNode{Kind: ref.Kind, Name: ref.Name, Missing: true, Status: "owner was replaced (UID differs)"})
			break
		}
		os := Summarize(o, now)
		chain = append(chain, OwnerNode{Kind: os.Kind, Name: os.Name, Status: os.Status})
		top = o
		cur = metaOf(o)
	}
	return chain, top, nil
}

func controllerRef(m metav1.Object) *metav1.OwnerReference {
	refs := m.GetOwnerReferences()
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	if len(refs) > 0 {
		return &refs[0]
	}
	return nil
}

// IsOwnedBy reports whether m has an owner reference to uid.
func IsOwnedBy(m metav1.Object, uid types.UID) bool {
	for _, r := range m.GetOwnerReferences() {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// PodsFor lists pods matching a selector and, when ownerUID is set, owned by it.
// The scan is capped; More reports pods left out.
func (c *Client) PodsFor(ctx context.Context, sel *metav1.LabelSelector, ownerUID types.UID, max int) ([]*corev1.Pod, bool, error) {
	if sel == nil {
		return nil, false, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, false, fmt.Errorf("%w: bad selector: %v", ErrInvalidInput, err)
	}
	if s.Empty() && ownerUID == "" {
		// An empty selector matches nothing for controllers; refuse to scan everything.
		return nil, false, nil
	}
	if max <= 0 || max > maxPodsScanned {
		max = maxPodsScanned
	}
	pods, more, err := ListAs[*corev1.Pod](ctx, c, "Pod", ListOptions{LabelSelector: s.String(), Max: max})
	if err != nil {
		return nil, false, err
	}
	if ownerUID == "" {
		return pods, more, nil
	}
	out := pods[:0]
	for _, p := range pods {
		if IsOwnedBy(p, ownerUID) {
			out = append(out, p)
		}
	}
	return out, more, nil
}

// ReplicaSetsFor lists a Deployment's ReplicaSets, newest revision first.
func (c *Client) ReplicaSetsFor(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || d.Spec.Selector == nil {
		return nil, fmt.Errorf("deployment %s has an invalid selector", d.Name)
	}
	rss, _, err := ListAs[*appsv1.ReplicaSet](ctx, c, "ReplicaSet", ListOptions{LabelSelector: s.String(), Max: 200})
	if err != nil {
		return nil, err
	}
	out := rss[:0]
	for _, rs := range rss {
		if IsOwnedBy(rs, d.UID) {
			out = append(out, rs)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return Revision(out[i]) > Revision(out[j]) })
	return out, nil
}

// Revision is a ReplicaSet's deployment revision number (0 when absent).
func Revision(rs *appsv1.ReplicaSet) int64 {
	n, _ := strconv.ParseInt(rs.Annotations["deployment.kubernetes.io/revision"], 10, 64)
	return n
}

// JobsFor lists a CronJob's Jobs, newest first.
func (c *Client) JobsFor(ctx context.Context, cj *batchv1.CronJob) ([]*batchv1.Job, error) {
	jobs, _, err := ListAs[*batchv1.Job](ctx, c, "Job", ListOptions{Max: 500})
	if err != nil {
		return nil, err
	}
	out := jobs[:0]
	for _, j := range jobs {
		if IsOwnedBy(j, cj.UID) {
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].CreationTimestamp.After(out[j].CreationTimestamp.Time)
	})
	return out, nil
}

// OwnersDown builds the tree of objects owned by obj (bounded).
func (c *Client) OwnersDown(ctx context.Context, obj runtime.Object) (OwnerNode, error) {
	now := c.Now()
	s := Summarize(obj, now)
	root := OwnerNode{Kind: s.Kind, Name: s.Name, Status: s.Status}
	podNodes := func(pods []*corev1.Pod, more bool) ([]OwnerNode, int) {
		var out []OwnerNode
		extra := 0
		if more {
			extra = 1
		}
		for i, p := range pods {
			if i >= maxPodsPerParent {
				return out, len(pods) - i + extra
			}
			ps := Summarize(p, now)
			out = append(out, OwnerNode{Kind: "Pod", Name: p.Name, Status: ps.Status})
		}
		return out, extra
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		rss, err := c.ReplicaSetsFor(ctx, o)
		if err != nil {
			return root, err
		}
		pods, more, err := c.PodsFor(ctx, o.Spec.Selector, "", maxPodsScanned)
		if err != nil {
			return root, err
		}
		for i, rs := range rss {
			if i >= maxChildSets {
				root.More = len(rss) - i
				break
			}
			rss := Summarize(rs, now)
			n := OwnerNode{Kind: "ReplicaSet", Name: rs.Name, Status: rss.Status}
			var owned []*corev1.Pod
			for _, p := range pods {
				if IsOwnedBy(p, rs.UID) {
					owned = append(owned, p)
				}
			}
			n.Children, n.More = podNodes(owned, more)
			root.Children = append(root.Children, n)
		}
	case *appsv1.ReplicaSet:
		pods, more, err := c.PodsFor(ctx, o.Spec.Selector, o.UID, maxPodsScanned)
		if err != nil {
			return root, err
		}
		root.Children, root.More = podNodes(pods, more)
	case *appsv1.StatefulSet:
		pods, more, err := c.PodsFor(ctx, o.Spec.Selector, o.UID, maxPodsScanned)
		if err != nil {
			return root, err
		}
		root.Children, root.More = podNodes(pods, more)
	case *appsv1.DaemonSet:
		pods, more, err := c.PodsFor(ctx, o.Spec.Selector, o.UID, maxPodsScanned)
		if err != nil {
			return root, err
		}
		root.Children, root.More = podNodes(pods, more)
	case *batchv1.Job:
		pods, more, err := c.PodsFor(ctx, o.Spec.Selector, o.UID, maxPodsScanned)
		if err != nil {
			return root, err
		}
		root.Children, root.More = podNodes(pods, more)
	case *batchv1.CronJob:
		jobs, err := c.JobsFor(ctx, o)
		if err != nil {
			return root, err
		}
		for i, j := range jobs {
			if i >= maxChildSets {
				root.More = len(jobs) - i
				break
			}
			js := Summarize(j, now)
			n := OwnerNode{Kind: "Job", Name: j.Name, Status: js.Status}
			pods, more, err := c.PodsFor(ctx, j.Spec.Selector, j.UID, maxPodsScanned)
			if err != nil {
				return root, err
			}
			n.Children, n.More = podNodes(pods, more)
			root.Children = append(root.Children, n)
		}
	}
	return root, nil
}
