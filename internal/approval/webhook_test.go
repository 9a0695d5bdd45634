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

package approval

import (
	"context"
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/remediate"
)

// grants is an authorizer that allows what it lists, as "user verb resource".
type grants map[string]bool

func (g grants) Allowed(_ context.Context, u authenticationv1.UserInfo, p remediate.Permission) (bool, error) {
	return g[u.Username+" "+p.Verb+" "+p.Resource], nil
}

func session(approvals ...kubagev1alpha1.ActionApproval) *kubagev1alpha1.Troubleshoot {
	return &kubagev1alpha1.Troubleshoot{
		TypeMeta:   metav1.TypeMeta{APIVersion: kubagev1alpha1.GroupVersion.String(), Kind: "Troubleshoot"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "ts"},
		Spec:       kubagev1alpha1.TroubleshootSpec{Problem: "p", Mode: kubagev1alpha1.ModeRemediate, Approvals: approvals},
		Status: kubagev1alpha1.TroubleshootStatus{Remediation: &kubagev1alpha1.Remediation{Actions: []kubagev1alpha1.RemediationAction{
			{ID: "restart", Command: "kubectl -n shop rollout restart deployment/web", Risk: kubagev1alpha1.RiskLow},
			{ID: "advice", Command: "kubectl -n shop set image deployment/web app=<image>", Risk: kubagev1alpha1.RiskHigh},
		}}},
	}
}

func request(user string, old, cur *kubagev1alpha1.Troubleshoot) admission.Request {
	raw := func(o *kubagev1alpha1.Troubleshoot) runtime.RawExtension {
		b, _ := json.Marshal(o)
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Update, UserInfo: authenticationv1.UserInfo{Username: user}, Object: raw(cur), OldObject: raw(old)}}
}

func TestValidator(t *testing.T) {
	scheme := runtime.NewScheme()
	NewWithT(t).Expect(kubagev1alpha1.AddToScheme(scheme)).To(Succeed())
	v := &Validator{Decoder: admission.NewDecoder(scheme), Authorizer: grants{
		"carol approve troubleshoots": true, "dave approve troubleshoots": true, "dave patch deployments": true,
	}}
	approve := func(id, by string) kubagev1alpha1.ActionApproval {
		return kubagev1alpha1.ActionApproval{ActionID: id, Decision: kubagev1alpha1.DecisionApproved, DecidedBy: by}
	}
	cases := []struct {
		name     string
		user     string
		old, cur *kubagev1alpha1.Troubleshoot
		allowed  bool
		message  string
	}{
		{"no approvals", "bob", session(), session(), true, ""},
		{"no approve verb", "bob", session(), session(approve("restart", "bob")), false, `missing permission: approve troubleshoots.kubage.io "ts" in namespace "shop"`},
		{"no right to the action", "carol", session(), session(approve("restart", "carol")), false, `missing permission: patch deployments.apps "web" in namespace "shop"`},
		{"advice needs approve only", "carol", session(), session(approve("advice", "carol")), true, ""},
		{"allowed", "dave", session(), session(approve("restart", "dave")), true, ""},
		{"unchanged decisions need nothing", "bob", session(approve("restart", "dave")), session(approve("restart", "dave")), true, ""},
		{"author is kept", "dave", session(approve("restart", "erin")), session(approve("restart", "dave")), false, "cannot change"},
		{"author is the writer", "dave", session(), session(approve("restart", "erin")), false, "must name the user"},
		{"unknown action", "dave", session(), session(approve("other", "dave")), false, "not an action proposed"},
		{"rejecting needs approve", "bob", session(), session(kubagev1alpha1.ActionApproval{ActionID: "restart", Decision: kubagev1alpha1.DecisionRejected, DecidedBy: "bob"}), false, "approve troubleshoots"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewWithT(t)
			res := v.Handle(context.Background(), request(c.user, c.old, c.cur))
			g.Expect(res.Allowed).To(Equal(c.allowed), "%+v", res.Result)
			if c.message != "" {
				g.Expect(res.Result.Message).To(ContainSubstring(c.message))
			}
		})
	}
}

func TestStamper(t *testing.T) {
	g := NewWithT(t)
	scheme := runtime.NewScheme()
	g.Expect(kubagev1alpha1.AddToScheme(scheme)).To(Succeed())
	s := &Stamper{Decoder: admission.NewDecoder(scheme)}
	old := session(kubagev1alpha1.ActionApproval{ActionID: "restart", Decision: kubagev1alpha1.DecisionApproved, DecidedBy: "erin"})
	cur := session(
		kubagev1alpha1.ActionApproval{ActionID: "restart", Decision: kubagev1alpha1.DecisionApproved, DecidedBy: "mallory"},
		kubagev1alpha1.ActionApproval{ActionID: "advice", Decision: kubagev1alpha1.DecisionRejected, DecidedBy: "erin"},
	)
	res := s.Handle(context.Background(), request("dave", old, cur))
	g.Expect(res.Allowed).To(BeTrue())
	paths := map[string]any{}
	for _, p := range res.Patches {
		paths[p.Path] = p.Value
	}
	g.Expect(paths).To(Equal(map[string]any{"/spec/approvals/0/decidedBy": "erin", "/spec/approvals/1/decidedBy": "dave"}))

	res = s.Handle(context.Background(), request("dave", old, old))
	g.Expect(res.Allowed).To(BeTrue())
	g.Expect(res.Patches).To(BeEmpty())
}
