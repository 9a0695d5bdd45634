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

package controllers

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// defaultSecretPollInterval applies when Options.SecretPollInterval is zero.
const defaultSecretPollInterval = 30 * time.Second

// absentVersion stands for a referenced Secret that does not exist.
const absentVersion = "<absent>"

// secretPoller replaces a cluster-wide Secret watch: the operator may only get Secrets
// (never list or watch them), so the Secrets that objects of one kind refer to are read
// by name, as metadata, every interval, and an object is enqueued when the Secret's
// resourceVersion differs from the one its last reconcile used (see secretTracker).
// Rotation is therefore seen within one interval instead of at once.
type secretPoller struct {
	// cache lists the referring objects (from the informer cache).
	cache client.Reader
	// reader gets Secret metadata uncached.
	reader   client.Reader
	newList  func() client.ObjectList
	refs     func(client.Object) []string
	interval time.Duration
	events   chan event.GenericEvent
	// used holds the versions the reconciles read; the reconciler records into it.
	used *secretTracker
}

func newSecretPoller(cache, reader client.Reader, newList func() client.ObjectList, refs func(client.Object) []string, used *secretTracker, interval time.Duration) *secretPoller {
	if interval <= 0 {
		interval = defaultSecretPollInterval
	}
	return &secretPoller{cache: cache, reader: reader, newList: newList, refs: refs, interval: interval,
		events: make(chan event.GenericEvent, 64), used: used}
}

// Source is the controller's raw source fed by the poller.
func (p *secretPoller) Source() source.Source {
	return source.Channel(p.events, &handler.EnqueueRequestForObject{})
}

// Start polls until ctx ends (a manager.Runnable).
func (p *secretPoller) Start(ctx context.Context) error {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			p.poll(ctx)
		}
	}
}

// poll reads every referenced Secret once and enqueues the users whose last reconcile
// used another version of it.
func (p *secretPoller) poll(ctx context.Context) {
	list := p.newList()
	if err := p.cache.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing objects that refer to Secrets")
		return
	}
	users := map[types.NamespacedName]map[types.NamespacedName]client.Object{}
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		obj, ok := o.(client.Object)
		if !ok {
			return nil
		}
		for _, name := range p.refs(obj) {
			key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}
			if users[key] == nil {
				users[key] = map[types.NamespacedName]client.Object{}
			}
			users[key][client.ObjectKeyFromObject(obj)] = obj
		}
		return nil
	})
	p.used.retain(users)
	for key, objs := range users {
		version, ok := p.version(ctx, key)
		if !ok {
			continue
		}
		for _, user := range p.used.stale(key, version) {
			obj, ok := objs[user]
			if !ok {
				continue
			}
			select {
			case p.events <- event.GenericEvent{Object: obj}:
			case <-ctx.Done():
				return
			}
		}
	}
}

// secretTracker remembers, per Secret, the resourceVersion each user's reconcile last read
// (absentVersion when it was not found). Comparing the current version against the one a
// user used, rather than against the poller's previous sighting, wakes exactly the users
// that work from an old version: a first sighting wakes no one who already read it, and a
// rotation between a reconcile and the first poll is still noticed.
type secretTracker struct {
	mu sync.Mutex
	// used maps a Secret to its users and the version each one last used.
	used map[types.NamespacedName]map[types.NamespacedName]string
}

func newSecretTracker() *secretTracker {
	return &secretTracker{used: map[types.NamespacedName]map[types.NamespacedName]string{}}
}

// record notes that user's reconcile read version of secret. A nil tracker records
// nothing (reconcilers run without a manager in some tests).
func (t *secretTracker) record(secret, user types.NamespacedName, version string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used[secret] == nil {
		t.used[secret] = map[types.NamespacedName]string{}
	}
	t.used[secret][user] = version
}

// stale returns the users of secret whose used version is not current, and counts them
// as brought up to date, so that one change wakes each of them once.
func (t *secretTracker) stale(secret types.NamespacedName, current string) []types.NamespacedName {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []types.NamespacedName
	for user, version := range t.used[secret] {
		if version != current {
			out = append(out, user)
			t.used[secret][user] = current
		}
	}
	return out
}

// retain forgets Secrets and users that no longer refer to each other.
func (t *secretTracker) retain(refs map[types.NamespacedName]map[types.NamespacedName]client.Object) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for secret, users := range t.used {
		for user := range users {
			if _, ok := refs[secret][user]; !ok {
				delete(users, user)
			}
		}
		if len(users) == 0 {
			delete(t.used, secret)
		}
	}
}

// recordingReader records into a tracker the version of every Secret a reconcile of user
// gets through it.
type recordingReader struct {
	client.Reader
	used *secretTracker
	user types.NamespacedName
}

func (r recordingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := r.Reader.Get(ctx, key, obj, opts...)
	if _, ok := obj.(*corev1.Secret); ok {
		switch {
		case err == nil:
			r.used.record(key, r.user, obj.GetResourceVersion())
		case apierrors.IsNotFound(err):
			r.used.record(key, r.user, absentVersion)
		}
	}
	return err
}

// version is the Secret's resourceVersion, absentVersion when it does not exist, and
// false when it could not be read (tried again next interval).
func (p *secretPoller) version(ctx context.Context, key types.NamespacedName) (string, bool) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	err := p.reader.Get(ctx, key, m)
	switch {
	case apierrors.IsNotFound(err):
		return absentVersion, true
	case err != nil:
		ctrl.LoggerFrom(ctx).V(1).Info("Reading a referenced Secret", "Secret", key, "error", err.Error())
		return "", false
	}
	return m.ResourceVersion, true
}
