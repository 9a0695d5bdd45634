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
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// PrintOutcome prints what a finished diagnosis concluded: the root cause (summary, category,
// confidence, affected objects, the evidence it rests on), the remediation, and how to go on.
func PrintOutcome(w io.Writer, ts *kubagev1alpha1.Troubleshoot) {
	st := ts.Status
	rc := st.RootCause
	found := meta.IsStatusConditionTrue(st.Conditions, kubagev1alpha1.RootCauseFoundCondition)
	switch {
	case rc == nil:
		fmt.Fprintf(w, "\nNo root cause (phase %s).\n", st.Phase)
	default:
		// A conclusion such as NoProblemFound is a finding, not a cause: say so.
		label := "Root cause"
		if !found {
			label = "No root cause found"
		}
		fmt.Fprintf(w, "\n%s: %s\n", label, oneLine(rc.Summary))
		if rc.Category != "" {
			fmt.Fprintf(w, "  Category:   %s\n", rc.Category)
		}
		fmt.Fprintf(w, "  Confidence: %d%%\n", rc.Confidence)
		if len(rc.AffectedObjects) > 0 {
			names := make([]string, 0, len(rc.AffectedObjects))
			for _, o := range rc.AffectedObjects {
				names = append(names, objectName(o))
			}
			fmt.Fprintf(w, "  Affected:   %s\n", strings.Join(names, ", "))
		}
		if ev := evidenceOf(st, rc.EvidenceIDs); len(ev) > 0 {
			fmt.Fprintln(w, "  Evidence:")
			for _, e := range ev {
				fmt.Fprintf(w, "    - %s: %s\n", e.ID, oneLine(e.Summary))
			}
		}
	}
	pending := false
	if rem := st.Remediation; rem != nil && len(rem.Actions) > 0 {
		fmt.Fprintln(w, "\nRemediation:")
		for _, a := range rem.Actions {
			state := a.Approval
			if state == "" {
				state = kubagev1alpha1.ApprovalPending
			}
			pending = pending || state == kubagev1alpha1.ApprovalPending
			fmt.Fprintf(w, "  - %s (%s risk, %s): %s\n", a.ID, a.Risk, state, oneLine(a.Description))
			if a.Command != "" {
				fmt.Fprintf(w, "      $ %s\n", oneLine(a.Command))
			}
			if a.Patch != nil {
				fmt.Fprintf(w, "      %s patch of %s\n", a.Patch.Type, objectName(a.Patch.Target))
			}
		}
		for _, v := range rem.ValidationSteps {
			fmt.Fprintf(w, "  Then check: %s\n", oneLine(v))
		}
	}
	fmt.Fprintln(w)
	if pending && ts.Spec.Mode == kubagev1alpha1.ModeRemediate {
		fmt.Fprintf(w, "Approve an action: kubectl kubage approve %s <action-id> -n %s (or --reject)\n", ts.Name, ts.Namespace)
	}
	if st.ReportRef != nil {
		fmt.Fprintf(w, "Full report: kubectl kubage report %s -n %s\n", ts.Name, ts.Namespace)
	}
}

// Verdict is nil when the session found a root cause (condition RootCauseFound=True), else an
// ExitError with ExitNoRootCause whose message says why, about subject (e.g. "deployment/x").
func Verdict(ts *kubagev1alpha1.Troubleshoot, subject string) error {
	found := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.RootCauseFoundCondition)
	if found != nil && found.Status == metav1.ConditionTrue {
		return nil
	}
	why := "no root cause was named"
	if ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition); ready != nil && ready.Message != "" {
		why = ready.Message
	}
	if found != nil && found.Message != "" {
		why = found.Message
	}
	if ts.Status.Phase == kubagev1alpha1.PhaseFailed {
		return &ExitError{Code: ExitNoRootCause, Err: fmt.Errorf("the diagnosis of %s failed: %s", subject, why)}
	}
	return &ExitError{Code: ExitNoRootCause, Err: errors.New("no problem found on " + subject + ": " + why)}
}

func evidenceOf(st kubagev1alpha1.TroubleshootStatus, ids []string) []kubagev1alpha1.Evidence {
	var out []kubagev1alpha1.Evidence
	for _, id := range ids {
		for _, e := range st.Evidence {
			if e.ID == id {
				out = append(out, e)
			}
		}
	}
	return out
}

func objectName(o kubagev1alpha1.ObjectReference) string {
	if o.Namespace != "" {
		return o.Kind + "/" + o.Namespace + "/" + o.Name
	}
	return o.Kind + "/" + o.Name
}
