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
// by name, as metadata, every interval; a changed resourceVersion (or a Secret appearing or
// disappearing) enqueues the objects that refer to it. Rotation is therefore seen within
// one interval instead of at once.
type secretPoller struct {
	// cache lists the referring objects (from the informer cache).
	cache client.Reader
	// reader gets Secret metadata uncached.
	reader   client.Reader
	newList  func() client.ObjectList
	refs     func(client.Object) []string
	interval time.Duration
	events   chan event.GenericEvent
	// seen is the last resourceVersion per Secret; only Start's goroutine touches it.
	seen map[types.NamespacedName]string
}

func newSecretPoller(cache, reader client.Reader, newList func() client.ObjectList, refs func(client.Object) []string, interval time.Duration) *secretPoller {
	if interval <= 0 {
		interval = defaultSecretPollInterval
	}
	return &secretPoller{cache: cache, reader: reader, newList: newList, refs: refs, interval: interval,
		events: make(chan event.GenericEvent, 64), seen: map[types.NamespacedName]string{}}
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

// poll reads every referenced Secret once and enqueues the users of those that changed.
func (p *secretPoller) poll(ctx context.Context) {
	list := p.newList()
	if err := p.cache.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing objects that refer to Secrets")
		return
	}
	users := map[types.NamespacedName][]client.Object{}
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		obj, ok := o.(client.Object)
		if !ok {
			return nil
		}
		for _, name := range p.refs(obj) {
			key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}
			users[key] = append(users[key], obj)
		}
		return nil
	})
	for key, objs := range users {
		version, ok := p.version(ctx, key)
		if !ok {
			continue
		}
		prev, known := p.seen[key]
		p.seen[key] = version
		// A Secret seen for the first time may have appeared between a reconcile that
		// found it missing and this poll, so its users get one more look.
		if (known && prev == version) || (!known && version == absentVersion) {
			continue
		}
		for _, obj := range objs {
			select {
			case p.events <- event.GenericEvent{Object: obj}:
			case <-ctx.Done():
				return
			}
		}
	}
	for key := range p.seen {
		if _, ok := users[key]; !ok {
			delete(p.seen, key)
		}
	}
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
