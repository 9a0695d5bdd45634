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

package memory

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
)

// readFresh is how long a read of a namespace's memory serves later reads: a burst of
// sessions concluding together reads the ConfigMap once, and an entry another replica
// wrote is seen at most this late. Writes never rely on it: they are conflict-checked.
const readFresh = 10 * time.Second

// nsMemory is what a Store last read or wrote of one namespace's memory ConfigMap (nil
// when unknown). mu serialises the Store's writers of the namespace.
type nsMemory struct {
	mu sync.Mutex
	// queue holds the entries recorded and not yet taken by a write (see Record).
	queueMu sync.Mutex
	queue   []*recording

	stateMu sync.Mutex
	cm      *corev1.ConfigMap
	absent  bool
	at      time.Time
}

func (s *Store) ns(namespace string) *nsMemory {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.namespaces == nil {
		s.namespaces = map[string]*nsMemory{}
	}
	m := s.namespaces[namespace]
	if m == nil {
		m = &nsMemory{}
		s.namespaces[namespace] = m
	}
	return m
}

// read returns the memory ConfigMap (nil when there is none), from what was last read or
// written when that is fresh enough, else from the API server. The caller must not
// change it.
func (m *nsMemory) read(ctx context.Context, s *Store, namespace string) (*corev1.ConfigMap, error) {
	now := s.now()
	m.stateMu.Lock()
	cm, absent, at := m.cm, m.absent, m.at
	m.stateMu.Unlock()
	if (cm != nil || absent) && now.Sub(at) < readFresh && !now.Before(at) {
		return cm, nil
	}
	cm, err := s.Client.CoreV1().ConfigMaps(namespace).Get(ctx, MemoryName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	m.stateMu.Lock()
	// A write of this Store may have finished meanwhile: never go back to an older version.
	if m.cm == nil || cm != nil && !olderThan(cm.ResourceVersion, m.cm.ResourceVersion) {
		m.cm, m.absent, m.at = cm, cm == nil, now
	}
	m.stateMu.Unlock()
	return cm, nil
}

// olderThan says whether resourceVersion a is known to be older than b (etcd's are
// increasing integers; anything else is not ordered).
func olderThan(a, b string) bool {
	cmp, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && cmp < 0
}

// base is where a write starts: a copy of what this Store wrote or read last, or the
// ConfigMap read anew when that is unknown; a missing one is reported as NotFound.
func (m *nsMemory) base(ctx context.Context, cms typedcorev1.ConfigMapInterface) (*corev1.ConfigMap, error) {
	m.stateMu.Lock()
	cm, absent := m.cm, m.absent
	m.stateMu.Unlock()
	if cm != nil {
		return cm.DeepCopy(), nil
	}
	if !absent {
		return cms.Get(ctx, MemoryName, metav1.GetOptions{})
	}
	// Known missing: a create that finds it exists after all conflicts and reads again.
	m.forget()
	return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), MemoryName)
}

// wrote records the outcome of a write: the ConfigMap written, or nothing known after a
// failure (the next write reads it anew).
func (m *nsMemory) wrote(cm *corev1.ConfigMap, err error, now time.Time) {
	if err != nil || cm == nil {
		m.forget()
		return
	}
	m.stateMu.Lock()
	m.cm, m.absent, m.at = cm, false, now
	m.stateMu.Unlock()
}

func (m *nsMemory) forget() {
	m.stateMu.Lock()
	m.cm, m.absent = nil, false
	m.stateMu.Unlock()
}
