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

package session

import (
	"context"
	"io"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/task"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

// A model Secret the session's account may not read is never used: neither by the
// session's own steps nor by the tasks it hands to runners (a Job would get it from the
// kubelet, which asks no one), and the degradation says Forbidden.
func TestAModelTheAccountMayNotReadIsNeverUsed(t *testing.T) {
	g := NewWithT(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
	model := map[string][]byte{"baseURL": []byte(srv.BaseURL()), "model": []byte("demo"), "apiKey": []byte("sk-model-7Qm2")}

	var asked []agent.SecretRef
	read := func(_ context.Context, ref agent.SecretRef) (map[string][]byte, error) {
		asked = append(asked, ref)
		if ref.ServiceAccount != "model-reader" {
			return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, ref.Name, nil)
		}
		return model, nil
	}
	cs := fake.NewClientset()
	brains := NewBrains(agent.NewRuleEngine(cs), read, nil, cs, nil, nil)
	ts := &kubagev1alpha1.Troubleshoot{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api", UID: "u1"},
		Spec: kubagev1alpha1.TroubleshootSpec{Problem: "api down", Model: &kubagev1alpha1.LocalSecretReference{Name: "model"}, ServiceAccountName: "intruder"}}
	ctx := context.Background()

	g.Expect(brains.BrainConfig(ts).Model).To(Equal(&agent.SecretRef{Namespace: "shop", Name: "model", ServiceAccount: "intruder"}),
		"the reference carries the account whose rights read it")
	g.Expect(brains.TaskBrainConfig(ctx, ts).Model).To(BeNil(), "tasks are not handed a model the account may not read")
	b, err := brains.Brain(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	dr, ok := b.(DegradationReporter)
	g.Expect(ok).To(BeTrue())
	reason, msg, degraded := dr.TakeDegraded()
	g.Expect(degraded).To(BeTrue())
	g.Expect(reason).To(Equal(kubagev1alpha1.ForbiddenReason))
	g.Expect(msg).To(ContainSubstring("shop/model"))
	g.Expect(srv.Requests()).To(BeEmpty(), "the model is never called")
	g.Expect(asked).NotTo(BeEmpty())
	for _, ref := range asked {
		g.Expect(ref.ServiceAccount).To(Equal("intruder"), "every read is made as the session's account")
	}

	ts.Spec.ServiceAccountName = "model-reader"
	g.Expect(brains.TaskBrainConfig(ctx, ts).Model).To(Equal(&agent.SecretRef{Namespace: "shop", Name: "model", ServiceAccount: "model-reader"}))
	b, err = brains.Brain(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(b).To(BeAssignableToTypeOf(&task.ModelBrain{}), "an account that may read the Secret gets the model")
	_ = b.(io.Closer).Close()
}
