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
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// ParseWatchSelector parses --watch-label-selector; empty selects every object.
func ParseWatchSelector(s string) (labels.Selector, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("--watch-label-selector: %w", err)
	}
	return sel, nil
}

// WatchCacheOptions narrows the manager's cache of the reconciled kinds to sel, so a shard's
// operator neither stores nor hears of the other shards' objects. Owned objects (Jobs,
// ConfigMaps) are not narrowed: they carry no shard label.
func WatchCacheOptions(sel labels.Selector) map[client.Object]cache.ByObject {
	if sel == nil || sel.Empty() {
		return nil
	}
	return map[client.Object]cache.ByObject{
		&kubagev1alpha1.Troubleshoot{}:    {Label: sel},
		&kubagev1alpha1.KnowledgeSource{}: {Label: sel},
		&kubagev1alpha1.ToolServer{}:      {Label: sel},
		// A schedule's runs carry its template's labels, so they land in the same shard.
		&kubagev1alpha1.TroubleshootSchedule{}: {Label: sel},
	}
}

// inWatchSelector passes the objects whose labels sel selects (all when sel is nil). The
// cache already filters in production; this keeps managers that share one cache (tests)
// and objects read uncached to their shard too.
func inWatchSelector(sel labels.Selector) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return selects(sel, o) })
}

func selects(sel labels.Selector, o client.Object) bool {
	return sel == nil || sel.Matches(labels.Set(o.GetLabels()))
}
