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
	"context"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// ApprovalPatch builds the JSON merge patch that records decision for actionID in
// spec.approvals. A merge patch replaces the whole list, so the patch carries every other
// entry unchanged and the object's resourceVersion: if anyone changed the Troubleshoot since
// it was read, the API server refuses the patch (409) instead of losing their decision.
func ApprovalPatch(ts *kubagev1alpha1.Troubleshoot, actionID string, decision kubagev1alpha1.ApprovalDecision) ([]byte, error) {
	if ts.Spec.Mode != kubagev1alpha1.ModeRemediate {
		return nil, fmt.Errorf("troubleshoot %q runs in %s mode: only Remediate sessions propose actions to approve", ts.Name, orDiagnose(ts.Spec.Mode))
	}
	var action *kubagev1alpha1.RemediationAction
	var ids []string
	if rem := ts.Status.Remediation; rem != nil {
		for i := range rem.Actions {
			ids = append(ids, rem.Actions[i].ID)
			if rem.Actions[i].ID == actionID {
				action = &rem.Actions[i]
			}
		}
	}
	switch {
	case action == nil && len(ids) == 0:
		return nil, fmt.Errorf("troubleshoot %q proposes no action (yet; phase %s)", ts.Name, orUnknown(string(ts.Status.Phase)))
	case action == nil:
		return nil, fmt.Errorf("troubleshoot %q has no action %q; its actions are: %s", ts.Name, actionID, strings.Join(ids, ", "))
	case action.Approval == kubagev1alpha1.ApprovalExecuted || action.Approval == kubagev1alpha1.ApprovalFailed:
		return nil, fmt.Errorf("action %q of troubleshoot %q already ran (%s): a decision no longer changes it", actionID, ts.Name, action.Approval)
	}
	approvals := make([]kubagev1alpha1.ActionApproval, 0, len(ts.Spec.Approvals)+1)
	replaced := false
	for _, a := range ts.Spec.Approvals {
		if a.ActionID == actionID {
			a.Decision, replaced = decision, true
		}
		approvals = append(approvals, a)
	}
	if !replaced {
		approvals = append(approvals, kubagev1alpha1.ActionApproval{ActionID: actionID, Decision: decision})
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": ts.ResourceVersion},
		"spec":     map[string]any{"approvals": approvals},
	})
}

func orDiagnose(m kubagev1alpha1.Mode) kubagev1alpha1.Mode {
	if m == "" {
		return kubagev1alpha1.ModeDiagnose
	}
	return m
}

// Approve records a decision on one remediation action, retrying when someone else changed
// the Troubleshoot in between.
func (e *Env) Approve(ctx context.Context, name, actionID string, decision kubagev1alpha1.ApprovalDecision) error {
	res := e.Dynamic.Resource(TroubleshootResource).Namespace(e.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ts, err := troubleshootFrom(u)
		if err != nil {
			return err
		}
		patch, err := ApprovalPatch(ts, actionID, decision)
		if err != nil {
			return err
		}
		_, err = res.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
		return err
	})
	if err != nil {
		// Validation errors pass through explain unchanged; API errors get their advice.
		return e.explain(err, "patch", TroubleshootResource, e.Namespace, name)
	}
	fmt.Fprintf(e.Out, "troubleshoot.kubage.io/%s: action %s %s\n", name, actionID, strings.ToLower(string(decision)))
	return nil
}
