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
	"sort"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/tools"
)

// hpaConflict reports autoscalers that select the same pods: the HPA controller refuses to
// scale with any of them (ScalingActive False, AmbiguousSelector), so the workload stays where
// it is whatever its metrics say. It names every autoscaler involved; the one a controller
// does not own (a ScaledObject owns KEDA's) comes first, as the likelier leftover to delete.
func (e *env) hpaConflict(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler, href, target ObjectRef, cond *autoscalingv2.HorizontalPodAutoscalerCondition, evIDs []string, facts map[string]string) bool {
	if cond == nil || cond.Reason != "AmbiguousSelector" {
		return false
	}
	all, _, err := listAs[*autoscalingv2.HorizontalPodAutoscaler](ctx, e, "HorizontalPodAutoscaler", tools.ListOptions{Max: scanMaxObjects})
	if err != nil {
		return false
	}
	var rivals []*autoscalingv2.HorizontalPodAutoscaler
	for _, o := range all {
		if o.Name == h.Name || strings.Contains(cond.Message, "/"+o.Name) || o.Spec.ScaleTargetRef.Kind == h.Spec.ScaleTargetRef.Kind && o.Spec.ScaleTargetRef.Name == h.Spec.ScaleTargetRef.Name {
			rivals = append(rivals, o)
		}
	}
	if len(rivals) < 2 {
		return false
	}
	owned := func(o *autoscalingv2.HorizontalPodAutoscaler) *metav1.OwnerReference {
		if len(o.OwnerReferences) == 0 {
			return nil
		}
		return &o.OwnerReferences[0]
	}
	sort.SliceStable(rivals, func(a, b int) bool { return owned(rivals[a]) == nil && owned(rivals[b]) != nil })
	var names, why []string
	var affected []ObjectRef
	for _, o := range rivals {
		names = append(names, o.Name)
		affected = append(affected, e.ref("HorizontalPodAutoscaler", o.Name))
		if or := owned(o); or != nil {
			why = append(why, fmt.Sprintf("%s is managed by %s %s", o.Name, or.Kind, or.Name))
		} else {
			why = append(why, fmt.Sprintf("%s has no owner", o.Name))
		}
	}
	culprit := affected[0]
	affected = append(affected[1:], target)
	facts["hpa"] = culprit.Name
	facts["detail"] = tools.Sanitize(cond.Message, 300, true)
	advice := "delete the autoscaler that should not be there"
	if owned(rivals[0]) == nil && owned(rivals[len(rivals)-1]) != nil {
		advice = fmt.Sprintf("delete HorizontalPodAutoscaler %s (nothing manages it, so it is likely left over)", rivals[0].Name)
	}
	e.find(Finding{Rule: "hpa-ambiguous-selector", Object: href, Culprit: culprit, Affected: affected, Evidence: evIDs, Facts: facts,
		Summary: fmt.Sprintf("%s/%s is not autoscaled: HorizontalPodAutoscalers %s all select its pods, and the HPA controller scales none of them (ScalingActive False, AmbiguousSelector: %s). %s; %s.",
			target.Kind, target.Name, strings.Join(names, " and "), tools.Sanitize(cond.Message, 200, true), strings.Join(why, ", "), advice)})
	return true
}
