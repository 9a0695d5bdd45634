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
	"sort"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// ObjectCache serves some of the tools' reads from memory. served is false when it does
// not hold what was asked for (another kind, a field it cannot select on, a namespace it
// could not start watching); the Client then asks the API server.
type ObjectCache interface {
	Get(ctx context.Context, kind, namespace, name string) (obj runtime.Object, served bool)
	List(ctx context.Context, kind, namespace string, opts ListOptions) (items []runtime.Object, served bool)
}

// SetCache makes the client read what cache serves from it; such reads are not API
// requests and are not counted.
func (c *Client) SetCache(cache ObjectCache) { c.cache = cache }

// cachedKinds are the kinds an InformerCache holds, with the fields their lists may be
// selected on (those of the API server's field selectors the tools use).
var cachedKinds = map[string]struct {
	gvr    schema.GroupVersionResource
	fields func(runtime.Object) fields.Set
}{
	"Pod":         {gvr: corev1.SchemeGroupVersion.WithResource("pods"), fields: podFields},
	"Event":       {gvr: corev1.SchemeGroupVersion.WithResource("events"), fields: eventFields},
	"Service":     {gvr: corev1.SchemeGroupVersion.WithResource("services")},
	"Deployment":  {gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
	"ReplicaSet":  {gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}},
	"StatefulSet": {gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}},
	"DaemonSet":   {gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}},
	"Job":         {gvr: schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}},
}

func podFields(o runtime.Object) fields.Set {
	p := o.(*corev1.Pod)
	return fields.Set{"metadata.name": p.Name, "metadata.namespace": p.Namespace, "spec.nodeName": p.Spec.NodeName,
		"status.phase": string(p.Status.Phase), "spec.restartPolicy": string(p.Spec.RestartPolicy)}
}

func eventFields(o runtime.Object) fields.Set {
	e := o.(*corev1.Event)
	return fields.Set{"metadata.name": e.Name, "metadata.namespace": e.Namespace,
		"involvedObject.kind": e.InvolvedObject.Kind, "involvedObject.namespace": e.InvolvedObject.Namespace,
		"involvedObject.name": e.InvolvedObject.Name, "involvedObject.uid": string(e.InvolvedObject.UID),
		"involvedObject.apiVersion": e.InvolvedObject.APIVersion, "involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath": e.InvolvedObject.FieldPath, "reason": e.Reason, "type": e.Type,
		"source": e.Source.Component, "reportingComponent": e.ReportingController}
}

// InformerCache is an ObjectCache over shared informers, one set per namespace: a
// namespace's informers of every cached kind start together on the first read there (one
// LIST per kind, side by side, then a watch, shared by every session of the namespace) and the namespace's informers
// stop after it has been idle for IdleAfter, so memory follows the namespaces under
// investigation rather than the cluster. Reads of an object it does not find go to the
// API server: a session must not fail on an object created a moment before the watch saw it.
type InformerCache struct {
	client    kubernetes.Interface
	idleAfter time.Duration
	syncWait  time.Duration

	mu         sync.Mutex
	namespaces map[string]*nsInformers
	stopped    bool
}

type nsInformers struct {
	factory  informers.SharedInformerFactory
	stop     chan struct{}
	lastUsed atomic.Int64
	mu       sync.Mutex
	started  map[string]cache.SharedIndexInformer
}

// NewInformerCache returns a cache reading through cs. stop ends every informer; run
// janitor (it returns when ctx ends) to stop idle namespaces.
func NewInformerCache(cs kubernetes.Interface, idleAfter time.Duration) *InformerCache {
	if idleAfter <= 0 {
		idleAfter = 10 * time.Minute
	}
	return &InformerCache{client: cs, idleAfter: idleAfter, syncWait: 30 * time.Second, namespaces: map[string]*nsInformers{}}
}

// Run stops the informers of idle namespaces until ctx ends, then stops them all.
func (c *InformerCache) Run(ctx context.Context) error {
	tick := time.NewTicker(max(c.idleAfter/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			c.mu.Lock()
			c.stopped = true
			for ns, n := range c.namespaces {
				close(n.stop)
				delete(c.namespaces, ns)
			}
			c.mu.Unlock()
			return nil
		case <-tick.C:
			cutoff := time.Now().Add(-c.idleAfter).UnixNano()
			c.mu.Lock()
			for ns, n := range c.namespaces {
				if n.lastUsed.Load() < cutoff {
					close(n.stop)
					delete(c.namespaces, ns)
				}
			}
			c.mu.Unlock()
		}
	}
}

// informer returns the synced informer of kind in namespace, starting it if needed; nil
// when it cannot be had.
func (c *InformerCache) informer(ctx context.Context, kind, namespace string) cache.SharedIndexInformer {
	_, ok := cachedKinds[kind]
	if !ok || namespace == "" {
		return nil
	}
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil
	}
	n := c.namespaces[namespace]
	if n == nil {
		n = &nsInformers{
			factory: informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace(namespace)),
			stop:    make(chan struct{}), started: map[string]cache.SharedIndexInformer{},
		}
		c.namespaces[namespace] = n
	}
	n.lastUsed.Store(time.Now().UnixNano())
	c.mu.Unlock()

	n.mu.Lock()
	inf := n.started[kind]
	if inf == nil {
		// A session that reads one kind in a namespace reads the others a moment later:
		// start them all now, so their LISTs run side by side and the later reads find
		// them synced instead of each paying its own LIST and sync in turn.
		for k, kk := range cachedKinds {
			if n.started[k] != nil {
				continue
			}
			if gi, err := n.factory.ForResource(kk.gvr); err == nil {
				n.started[k] = gi.Informer()
			}
		}
		inf = n.started[kind]
		if inf == nil {
			n.mu.Unlock()
			return nil
		}
		n.factory.Start(n.stop)
	}
	n.mu.Unlock()
	if inf.HasSynced() {
		return inf
	}
	// Wait on the informer's own signal: cache.WaitForCacheSync polls every 100 ms, and
	// a session's first reads in a new namespace paid that once per kind, in sequence.
	t := time.NewTimer(c.syncWait)
	defer t.Stop()
	select {
	case <-inf.HasSyncedChecker().Done():
		return inf
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// Get implements ObjectCache.
func (c *InformerCache) Get(ctx context.Context, kind, namespace, name string) (runtime.Object, bool) {
	inf := c.informer(ctx, kind, namespace)
	if inf == nil {
		return nil, false
	}
	item, exists, err := inf.GetIndexer().GetByKey(namespace + "/" + name)
	if err != nil || !exists {
		return nil, false
	}
	obj, ok := item.(runtime.Object)
	if !ok {
		return nil, false
	}
	return obj.DeepCopyObject(), true
}

// List implements ObjectCache: the namespace's objects the selectors match, by name.
func (c *InformerCache) List(ctx context.Context, kind, namespace string, opts ListOptions) ([]runtime.Object, bool) {
	lsel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, false
	}
	fsel, err := fields.ParseSelector(opts.FieldSelector)
	if err != nil {
		return nil, false
	}
	toFields := cachedKinds[kind].fields
	if !fsel.Empty() {
		if toFields == nil {
			return nil, false
		}
		known := toFields(emptyOf(kind))
		for _, r := range fsel.Requirements() {
			if _, ok := known[r.Field]; !ok {
				return nil, false
			}
		}
	}
	inf := c.informer(ctx, kind, namespace)
	if inf == nil {
		return nil, false
	}
	items, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		return nil, false
	}
	out := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		obj, ok := item.(runtime.Object)
		if !ok {
			continue
		}
		if m, ok := obj.(interface{ GetLabels() map[string]string }); ok && !lsel.Matches(labels.Set(m.GetLabels())) {
			continue
		}
		if !fsel.Empty() && !fsel.Matches(toFields(obj)) {
			continue
		}
		out = append(out, obj.DeepCopyObject())
	}
	// The API server lists in name order; the tools' output should not depend on the source.
	sort.Slice(out, func(i, j int) bool { return objectName(out[i]) < objectName(out[j]) })
	return out, true
}

func emptyOf(kind string) runtime.Object {
	switch kind {
	case "Pod":
		return &corev1.Pod{}
	case "Event":
		return &corev1.Event{}
	}
	return nil
}

func objectName(o runtime.Object) string {
	if m, ok := o.(interface{ GetName() string }); ok {
		return m.GetName()
	}
	return ""
}
