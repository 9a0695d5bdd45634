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

// Package approval is the admission webhook that puts remediation approvals through the
// API server's authorizer, the way cert-manager checks the `approve` verb on signers: a
// decision in a Troubleshoot's spec.approvals is admitted only if a SubjectAccessReview
// says its author may `approve` `troubleshoots` in the namespace and, for an action the
// operator would run, may perform that action too. The author is recorded in the entry's
// decidedBy, which the session copies into status.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/remediate"
)

// Paths the manager's webhook server serves; config/webhook points the API server at them.
const (
	MutatePath   = "/mutate-kubage-io-v1alpha1-troubleshoot-approvals"
	ValidatePath = "/validate-kubage-io-v1alpha1-troubleshoot-approvals"
)

// ApproveVerb is the RBAC verb on troubleshoots that lets a user decide on actions:
//
//	rules: [{apiGroups: [kubage.io], resources: [troubleshoots], verbs: [approve]}]
const ApproveVerb = "approve"

// +kubebuilder:webhook:path=/mutate-kubage-io-v1alpha1-troubleshoot-approvals,mutating=true,failurePolicy=fail,sideEffects=None,groups=kubage.io,resources=troubleshoots,verbs=create;update,versions=v1alpha1,name=approvals.mutate.kubage.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-kubage-io-v1alpha1-troubleshoot-approvals,mutating=false,failurePolicy=fail,sideEffects=None,groups=kubage.io,resources=troubleshoots,verbs=create;update,versions=v1alpha1,name=approvals.validate.kubage.io,admissionReviewVersions=v1

// Register serves both webhooks on srv; c creates the SubjectAccessReviews.
func Register(srv webhook.Server, scheme *runtime.Scheme, c client.Client) {
	dec := admission.NewDecoder(scheme)
	srv.Register(MutatePath, &webhook.Admission{Handler: &Stamper{Decoder: dec}})
	srv.Register(ValidatePath, &webhook.Admission{Handler: &Validator{Decoder: dec, Authorizer: &SubjectAccessReviewer{Client: c}}})
}

// Authorizer answers whether user holds a permission.
type Authorizer interface {
	Allowed(ctx context.Context, user authenticationv1.UserInfo, p remediate.Permission) (bool, error)
}

// SubjectAccessReviewer asks the API server's authorizer with a SubjectAccessReview.
type SubjectAccessReviewer struct {
	Client client.Client
}

// Allowed creates a SubjectAccessReview for user (with its groups and extras) and p.
func (r *SubjectAccessReviewer) Allowed(ctx context.Context, user authenticationv1.UserInfo, p remediate.Permission) (bool, error) {
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range user.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: p.Namespace, Verb: p.Verb, Group: p.Group, Resource: p.Resource, Name: p.Name,
		},
	}}
	if err := r.Client.Create(ctx, sar); err != nil {
		return false, fmt.Errorf("asking the authorizer whether %q may %s: %w", user.Username, p, err)
	}
	return sar.Status.Allowed && !sar.Status.Denied, nil
}

// Changed returns the entries of cur that are new or carry another decision than in old:
// the decisions written by this request.
func Changed(old, cur []kubagev1alpha1.ActionApproval) []kubagev1alpha1.ActionApproval {
	before := map[string]kubagev1alpha1.ApprovalDecision{}
	for _, a := range old {
		before[a.ActionID] = a.Decision
	}
	var out []kubagev1alpha1.ActionApproval
	for _, a := range cur {
		if d, ok := before[a.ActionID]; !ok || d != a.Decision {
			out = append(out, a)
		}
	}
	return out
}

// ApprovePermission is the right to decide on the actions of the Troubleshoot ns/name.
func ApprovePermission(ns, name string) remediate.Permission {
	return remediate.Permission{Verb: ApproveVerb, Group: kubagev1alpha1.GroupVersion.Group, Resource: "troubleshoots", Namespace: ns, Name: name}
}

// Required lists what the author of decision on action must be allowed to do: approve (or
// reject) the Troubleshoot's actions, and, to approve an action the operator would run,
// the operation itself.
func Required(ts *kubagev1alpha1.Troubleshoot, decision kubagev1alpha1.ApprovalDecision, action *kubagev1alpha1.RemediationAction) []remediate.Permission {
	need := []remediate.Permission{ApprovePermission(ts.Namespace, ts.Name)}
	if decision != kubagev1alpha1.DecisionApproved {
		return need
	}
	var op remediate.Op
	var err error
	switch {
	case action.Patch != nil:
		p := action.Patch
		op, err = remediate.ParsePatch(ts.Namespace, p.Target.Kind, p.Target.Namespace, p.Target.Name, string(p.Type), p.Patch)
	case action.Command != "":
		op, err = remediate.ParseCommand(ts.Namespace, action.Command)
	default:
		return need
	}
	if err != nil {
		// Advice the operator never runs: approving it changes nothing in the cluster.
		return need
	}
	return append(need, op.Permission())
}

// decode reads the request's object and, on update, the stored one.
func decode(dec admission.Decoder, req admission.Request) (cur, old *kubagev1alpha1.Troubleshoot, err error) {
	cur, old = &kubagev1alpha1.Troubleshoot{}, &kubagev1alpha1.Troubleshoot{}
	if err := dec.DecodeRaw(req.Object, cur); err != nil {
		return nil, nil, err
	}
	if req.Operation == admissionv1.Update {
		if err := dec.DecodeRaw(req.OldObject, old); err != nil {
			return nil, nil, err
		}
	}
	return cur, old, nil
}

// Stamper (mutating) writes the requesting user into decidedBy of every decision the
// request writes and keeps the recorded author of every other one, whatever was sent.
type Stamper struct {
	Decoder admission.Decoder
}

// Handle implements admission.Handler.
func (s *Stamper) Handle(_ context.Context, req admission.Request) admission.Response {
	cur, old, err := decode(s.Decoder, req)
	if err != nil {
		// Mutation runs before schema validation: leave malformed objects to the API
		// server's own error, which says more than a decoding failure here.
		return admission.Allowed("")
	}
	if len(cur.Spec.Approvals) == 0 {
		return admission.Allowed("")
	}
	recorded := map[string]kubagev1alpha1.ActionApproval{}
	for _, a := range old.Spec.Approvals {
		recorded[a.ActionID] = a
	}
	authors := make([]string, len(cur.Spec.Approvals))
	same := true
	for i, a := range cur.Spec.Approvals {
		authors[i] = req.UserInfo.Username
		if o, ok := recorded[a.ActionID]; ok && o.Decision == a.Decision {
			authors[i] = o.DecidedBy
		}
		same = same && authors[i] == a.DecidedBy
	}
	if same {
		return admission.Allowed("")
	}
	// Edit the request's own JSON so the patch touches decidedBy and nothing else.
	var doc map[string]any
	if err := json.Unmarshal(req.Object.Raw, &doc); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	spec, _ := doc["spec"].(map[string]any)
	entries, _ := spec["approvals"].([]any)
	if len(entries) != len(authors) {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("spec.approvals: %d entries, %d decoded", len(entries), len(authors)))
	}
	for i, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("spec.approvals[%d] is not an object", i))
		}
		if authors[i] == "" {
			delete(m, "decidedBy")
		} else {
			m["decidedBy"] = authors[i]
		}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, raw)
}

// Validator admits a write to spec.approvals only when the authorizer says its author may
// make every decision it writes, and no recorded author is rewritten.
type Validator struct {
	Decoder    admission.Decoder
	Authorizer Authorizer
}

// Handle implements admission.Handler.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	cur, old, err := decode(v.Decoder, req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	user := req.UserInfo
	recorded := map[string]kubagev1alpha1.ActionApproval{}
	for _, a := range old.Spec.Approvals {
		recorded[a.ActionID] = a
	}
	for _, a := range cur.Spec.Approvals {
		if o, ok := recorded[a.ActionID]; ok && o.Decision == a.Decision && o.DecidedBy != a.DecidedBy {
			return admission.Denied(fmt.Sprintf("spec.approvals: decidedBy of %s records who decided (%q) and cannot change", a.ActionID, o.DecidedBy))
		}
	}
	changed := Changed(old.Spec.Approvals, cur.Spec.Approvals)
	if len(changed) == 0 {
		return admission.Allowed("")
	}
	// The stored status is the truth about what was proposed; a request's status is not.
	actions := map[string]*kubagev1alpha1.RemediationAction{}
	if old.Status.Remediation != nil {
		for i := range old.Status.Remediation.Actions {
			a := &old.Status.Remediation.Actions[i]
			actions[a.ID] = a
		}
	}
	var missing []string
	asked := map[remediate.Permission]bool{}
	for _, c := range changed {
		if c.DecidedBy != user.Username {
			return admission.Denied(fmt.Sprintf("spec.approvals: decidedBy of %s must name the user who writes the decision (%q)", c.ActionID, user.Username))
		}
		action, ok := actions[c.ActionID]
		if !ok {
			return admission.Denied(fmt.Sprintf("spec.approvals: %s is not an action proposed in status.remediation.actions", c.ActionID))
		}
		for _, p := range Required(cur, c.Decision, action) {
			if asked[p] {
				continue
			}
			asked[p] = true
			ok, err := v.Authorizer.Allowed(ctx, user, p)
			if err != nil {
				return admission.Errored(http.StatusInternalServerError, err)
			}
			if !ok {
				missing = append(missing, p.String())
			}
		}
	}
	if len(missing) > 0 {
		return admission.Denied(fmt.Sprintf("user %q may not decide on these actions: missing permission: %s", user.Username, strings.Join(missing, "; ")))
	}
	return admission.Allowed("")
}
