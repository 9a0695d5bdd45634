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

package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A pod with spec.subdomain gets the DNS name <hostname>.<subdomain> only when a headless
// Service named like the subdomain exists in its namespace (the DNS spec; Indexed Jobs,
// MPI and PyTorch workers find each other this way). A subdomain naming no Service leaves
// every such name unresolvable, whatever the workers log: the workload's pod template, or
// the Service's name, is the fault. A headless Service that selects the pods under another
// name is the likelier intended one.

// subdomainService reports the pod template of workload wl whose subdomain names no Service.
func (e *env) subdomainService(ctx context.Context, wl ObjectRef, t *corev1.PodTemplateSpec, evIDs []string) bool {
	sub := t.Spec.Subdomain
	if sub == "" {
		return false
	}
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	var near *corev1.Service
	for _, s := range svcs {
		if s.Name == sub {
			return false
		}
		if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(t.Labels)) && (near == nil || s.Spec.ClusterIP == corev1.ClusterIPNone) {
			near = s
		}
	}
	example := sub
	if t.Spec.Hostname != "" {
		example = t.Spec.Hostname + "." + sub
	} else if wl.Kind == "Job" {
		example = wl.Name + "-0." + sub
	}
	summary := fmt.Sprintf("%s %s gives its pods subdomain %s (spec.template.spec.subdomain), but no Service %s exists in namespace %s, so their DNS names (%s) do not resolve and the pods cannot reach each other by name.",
		wl.Kind, wl.Name, sub, sub, e.s.Namespace, example)
	facts := map[string]string{"subdomain": sub, "sourceResource": kubectlResource(wl)}
	affected := []ObjectRef{wl}
	if near != nil {
		kind := "Service"
		if near.Spec.ClusterIP == corev1.ClusterIPNone {
			kind = "Headless Service"
		}
		summary += fmt.Sprintf(" %s %s selects these pods: set the subdomain to %s (a Job's pod template cannot be changed: recreate the Job), or create headless Service %s.", kind, near.Name, near.Name, sub)
		sref := e.ref("Service", near.Name)
		affected = append(affected, sref)
		facts["service"] = near.Name
		evIDs = append(evIDs, e.objEvidence(sref, fmt.Sprintf("Service %s selects %s", near.Name, tools.LabelsString(near.Spec.Selector))))
	} else {
		summary += fmt.Sprintf(" Create headless Service %s (clusterIP: None) selecting the pods.", sub)
		facts["service"] = sub
	}
	e.find(Finding{Rule: "pod-subdomain-service-missing", Object: wl, Culprit: wl, Affected: affected, Evidence: evIDs, Facts: facts, Summary: summary})
	return true
}
