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

package session

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// NewMemoryState returns a session state store that lives in this process: the
// ConfigMaps a session keeps (checkpoint, task results, report) and nothing else. A local
// session (kubage eval, benchmarks) keeps its state there instead of in a cluster, where
// ConfigMaps owned by a Troubleshoot that does not exist would be garbage-collected.
// Only CoreV1().ConfigMaps is served; the Engine and the InProcess runner use no more.
func NewMemoryState() kubernetes.Interface {
	return &memoryState{core: &memoryCore{cms: map[string]*corev1.ConfigMap{}}}
}

// memoryState embeds the interface so that it is one; every other group is nil and
// fails loudly if a future caller reaches for it.
type memoryState struct {
	kubernetes.Interface
	core *memoryCore
}

func (m *memoryState) CoreV1() corev1client.CoreV1Interface { return m.core }

type memoryCore struct {
	corev1client.CoreV1Interface
	mu  sync.Mutex
	rv  int
	cms map[string]*corev1.ConfigMap // by namespace/name
}

func (c *memoryCore) ConfigMaps(namespace string) corev1client.ConfigMapInterface {
	return &memoryConfigMaps{c: c, ns: namespace}
}

type memoryConfigMaps struct {
	c  *memoryCore
	ns string
}

var configMapResource = corev1.Resource("configmaps")

var errMemoryUnsupported = errors.New("not supported by the in-memory session state")

func (m *memoryConfigMaps) key(name string) string { return m.ns + "/" + name }

// store writes a copy of cm with a new resourceVersion and returns another copy.
func (m *memoryConfigMaps) store(cm *corev1.ConfigMap) *corev1.ConfigMap {
	m.c.rv++
	cp := cm.DeepCopy()
	cp.Namespace = m.ns
	cp.ResourceVersion = strconv.Itoa(m.c.rv)
	m.c.cms[m.key(cp.Name)] = cp
	return cp.DeepCopy()
}

func (m *memoryConfigMaps) Create(_ context.Context, cm *corev1.ConfigMap, _ metav1.CreateOptions) (*corev1.ConfigMap, error) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	if _, ok := m.c.cms[m.key(cm.Name)]; ok {
		return nil, apierrors.NewAlreadyExists(configMapResource, cm.Name)
	}
	return m.store(cm), nil
}

func (m *memoryConfigMaps) Update(_ context.Context, cm *corev1.ConfigMap, _ metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	old, ok := m.c.cms[m.key(cm.Name)]
	if !ok {
		return nil, apierrors.NewNotFound(configMapResource, cm.Name)
	}
	if cm.ResourceVersion != "" && cm.ResourceVersion != old.ResourceVersion {
		return nil, apierrors.NewConflict(configMapResource, cm.Name, errors.New("the object has been modified"))
	}
	return m.store(cm), nil
}

func (m *memoryConfigMaps) Delete(_ context.Context, name string, _ metav1.DeleteOptions) error {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	if _, ok := m.c.cms[m.key(name)]; !ok {
		return apierrors.NewNotFound(configMapResource, name)
	}
	delete(m.c.cms, m.key(name))
	return nil
}

func (m *memoryConfigMaps) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.ConfigMap, error) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	cm, ok := m.c.cms[m.key(name)]
	if !ok {
		return nil, apierrors.NewNotFound(configMapResource, name)
	}
	return cm.DeepCopy(), nil
}

// List honours the label selector; the whole list fits in memory, so Limit is ignored.
func (m *memoryConfigMaps) List(_ context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	out := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(m.c.rv)}}
	for _, cm := range m.c.cms {
		if cm.Namespace == m.ns && sel.Matches(labels.Set(cm.Labels)) {
			out.Items = append(out.Items, *cm.DeepCopy())
		}
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].Name < out.Items[j].Name })
	return out, nil
}

func (m *memoryConfigMaps) DeleteCollection(context.Context, metav1.DeleteOptions, metav1.ListOptions) error {
	return errMemoryUnsupported
}

func (m *memoryConfigMaps) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, errMemoryUnsupported
}

func (m *memoryConfigMaps) Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*corev1.ConfigMap, error) {
	return nil, errMemoryUnsupported
}

func (m *memoryConfigMaps) Apply(context.Context, *applycorev1.ConfigMapApplyConfiguration, metav1.ApplyOptions) (*corev1.ConfigMap, error) {
	return nil, errMemoryUnsupported
}
