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

package alerts

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// FingerprintIndex is the field index of Troubleshoots by their alert fingerprint label.
// A cached Sessions reader with this index answers the cooldown lookup without scanning.
const FingerprintIndex = "kubage.io/alert-fingerprint"

// IndexFingerprint is the index function of FingerprintIndex.
func IndexFingerprint(o client.Object) []string {
	if fp := o.GetLabels()[LabelAlertFingerprint]; fp != "" {
		return []string{fp}
	}
	return nil
}

// latestSession finds, in the cluster, the newest session created for a fingerprint in a
// namespace: the cooldown's memory is the sessions themselves (their fingerprint label
// and creation time), so it holds across restarts and replicas. The in-memory seen cache
// only spares this lookup for fingerprints the replica has already met.
func (p *Processor) latestSession(ctx context.Context, ns, fp string) (name string, created time.Time, found bool, err error) {
	list := sessionMetadataList()
	opts := []client.ListOption{client.InNamespace(ns)}
	if p.opts.SessionsIndexed {
		opts = append(opts, client.MatchingFields{FingerprintIndex: fp})
	} else {
		opts = append(opts, client.MatchingLabels{LabelAlertFingerprint: fp})
	}
	if err := p.opts.Sessions.List(ctx, list, opts...); err != nil {
		return "", time.Time{}, false, fmt.Errorf("looking up the sessions of fingerprint %s: %w", fp, err)
	}
	for i := range list.Items {
		ts := &list.Items[i]
		if !found || ts.CreationTimestamp.After(created) {
			name, created, found = ts.Name, ts.CreationTimestamp.Time, true
		}
	}
	return name, created, found, nil
}

// sessionMetadataList is a list of Troubleshoots' metadata: the cooldown needs labels and
// creation times only.
func sessionMetadataList() *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(kubagev1alpha1.GroupVersion.WithKind("TroubleshootList"))
	return l
}

// NewSessionCache builds the Sessions reader of ProcessorOptions (SessionsIndexed): an
// informer cache of the metadata of the sessions opened for alerts (those with a
// fingerprint label) in every namespace and every shard, indexed by fingerprint, so the
// cooldown lookup of a fingerprint costs no API call. Start it (a manager Runnable)
// before the receiver serves.
func NewSessionCache(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) (cache.Cache, error) {
	fromAlert, err := labels.NewRequirement(LabelAlertFingerprint, selection.Exists, nil)
	if err != nil {
		return nil, err
	}
	c, err := cache.New(cfg, cache.Options{
		Scheme:               scheme,
		DefaultLabelSelector: labels.NewSelector().Add(*fromAlert),
		DefaultTransform:     cache.TransformStripManagedFields(),
	})
	if err != nil {
		return nil, fmt.Errorf("alert session cache: %w", err)
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(kubagev1alpha1.GroupVersion.WithKind("Troubleshoot"))
	if err := c.IndexField(ctx, meta, FingerprintIndex, IndexFingerprint); err != nil {
		return nil, fmt.Errorf("indexing alert sessions by fingerprint: %w", err)
	}
	return c, nil
}
