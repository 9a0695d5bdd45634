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

package kubectlplugin

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// Target is the object a diagnosis is about, resolved from an argument like "deploy/checkout".
type Target struct {
	Resource   schema.GroupVersionResource
	Kind       string
	Name       string
	Namespaced bool
}

// String names the target the way kubectl users write it, e.g. "deployment/checkout".
func (t Target) String() string { return strings.ToLower(t.Kind) + "/" + t.Name }

// Spec is the target as the Troubleshoot API takes it.
func (t Target) Spec() *kubagev1alpha1.TroubleshootTarget {
	return &kubagev1alpha1.TroubleshootTarget{APIGroup: t.Resource.Group, Kind: t.Kind, Name: t.Name}
}

type builtinKind struct {
	kind       string
	resource   schema.GroupVersionResource
	namespaced bool
	aliases    []string
}

// builtinKinds are the kinds a diagnosis usually starts from, with kubectl's short names, so
// they resolve without a discovery round trip.
var builtinKinds = []builtinKind{
	{"Deployment", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true, []string{"deploy"}},
	{"StatefulSet", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}, true, []string{"sts"}},
	{"DaemonSet", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, true, []string{"ds"}},
	{"ReplicaSet", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, true, []string{"rs"}},
	{"Pod", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true, []string{"po"}},
	{"Service", schema.GroupVersionResource{Version: "v1", Resource: "services"}, true, []string{"svc"}},
	{"PersistentVolumeClaim", schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, true, []string{"pvc"}},
	{"ConfigMap", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, true, []string{"cm"}},
	{"Job", schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}, true, nil},
	{"CronJob", schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}, true, []string{"cj"}},
	{"Ingress", schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, true, []string{"ing"}},
	{"HorizontalPodAutoscaler", schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}, true, []string{"hpa"}},
	{"Node", schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, false, []string{"no"}},
}

// ParseTarget resolves "<kind>/<name>": kubectl's short names (deploy, sts, ds, po, svc, pvc,
// cj, no, ...), singular and plural resource names and kinds in any case, optionally with
// the group ("deployments.apps/web"). Other kinds are looked up with mapper when it is set.
func ParseTarget(arg string, mapper meta.RESTMapper) (Target, error) {
	word, name, ok := strings.Cut(arg, "/")
	if !ok || word == "" || name == "" || strings.Contains(name, "/") {
		return Target{}, fmt.Errorf("target %q: want <kind>/<name>, e.g. deploy/checkout, po/web-0 or no/node-1", arg)
	}
	word = strings.ToLower(word)
	resource, group, _ := strings.Cut(word, ".")
	for _, k := range builtinKinds {
		if group != "" && group != k.resource.Group {
			continue
		}
		if resource == strings.ToLower(k.kind) || resource == k.resource.Resource || slices.Contains(k.aliases, resource) {
			return Target{Resource: k.resource, Kind: k.kind, Name: name, Namespaced: k.namespaced}, nil
		}
	}
	if mapper == nil {
		return Target{}, fmt.Errorf("target %q: unknown kind %q", arg, word)
	}
	gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Group: group, Resource: resource})
	if err != nil {
		return Target{}, fmt.Errorf("target %q: the server does not know the kind %q", arg, word)
	}
	gvk, err := mapper.KindFor(gvr)
	if err != nil {
		return Target{}, fmt.Errorf("target %q: %w", arg, err)
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return Target{}, fmt.Errorf("target %q: %w", arg, err)
	}
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		return Target{}, fmt.Errorf("target %q: %s is cluster-scoped; a Troubleshoot investigates objects of its namespace and Nodes", arg, gvk.Kind)
	}
	return Target{Resource: mapping.Resource, Kind: gvk.Kind, Name: name, Namespaced: true}, nil
}

// generateNameFor derives a Troubleshoot's generateName from its target: short enough that
// names derived from the Troubleshoot's (Jobs, ConfigMaps) stay within their limits.
func generateNameFor(t *Target) string {
	base := "scan"
	if t != nil {
		base = t.Name
	}
	const maxBase = 40
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	base = strings.TrimRight(strings.ToLower(base), "-.")
	return base + "-"
}
