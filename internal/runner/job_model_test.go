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

package runner

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubage/kubage/internal/agent"
)

func TestJobHandsTheModelSecretOverThroughTheKubelet(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	r.opts.KnowledgeURL = "http://kubage-agent-api.kubage-system.svc:8082"
	ctx := context.Background()

	req := taskReq("i1-t1")
	req.Session.Brain = &agent.BrainConfig{Model: &agent.SecretRef{Namespace: owner.Namespace, Name: "model"}, RedactionKey: []byte("k")}
	g.Expect(r.Start(ctx, owner, req)).To(Succeed())
	c := getJob(g, cs, JobName(owner, "i1-t1")).Spec.Template.Spec.Containers[0]
	g.Expect(c.EnvFrom).To(ConsistOf(corev1.EnvFromSource{
		Prefix:    EnvModelPrefix,
		SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "model"}, Optional: ptr.To(true)},
	}), "the kubelet, not the agent's account, reads the Secret; a missing one degrades instead of blocking the pod")
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: EnvKnowledgeURL, Value: r.opts.KnowledgeURL}))
	for _, e := range c.Env {
		g.Expect(e.ValueFrom).To(BeNil())
	}

	// A model Secret of another namespace (the operator default) cannot be mounted.
	other := taskReq("i1-t2")
	other.Session.Brain = &agent.BrainConfig{Model: &agent.SecretRef{Namespace: "kubage-system", Name: "default-model"}}
	g.Expect(r.Start(ctx, owner, other)).To(Succeed())
	g.Expect(getJob(g, cs, JobName(owner, "i1-t2")).Spec.Template.Spec.Containers[0].EnvFrom).To(BeEmpty())

	none := taskReq("i1-t3")
	g.Expect(r.Start(ctx, owner, none)).To(Succeed())
	g.Expect(getJob(g, cs, JobName(owner, "i1-t3")).Spec.Template.Spec.Containers[0].EnvFrom).To(BeEmpty())
}

func TestModelSecretFromEnv(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ModelSecretFromEnv([]string{"PATH=/bin", "KUBAGE_MODEL_=x"})).To(BeNil())
	g.Expect(ModelSecretFromEnv([]string{
		"PATH=/bin", EnvModelPrefix + "baseURL=http://m/v1", EnvModelPrefix + "apiKey=sk-a=b", EnvModelPrefix + "model=demo",
	})).To(Equal(map[string][]byte{"baseURL": []byte("http://m/v1"), "apiKey": []byte("sk-a=b"), "model": []byte("demo")}))
}

func TestJobHandsTheOtherClustersKubeconfigOverThroughTheKubelet(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	r.opts.Env = map[string]string{EnvClusterKubeConfig: "smuggled", "KUBAGE_EGRESS_ALLOW_CIDRS": "127.0.0.0/8"}
	ctx := context.Background()

	req := taskReq("i1-t1")
	req.Session.Cluster = &agent.ClusterRef{Secret: agent.SecretRef{Namespace: owner.Namespace, Name: "cluster-b"}, Key: "value", Context: "b"}
	g.Expect(r.Start(ctx, owner, req)).To(Succeed())
	c := getJob(g, cs, JobName(owner, "i1-t1")).Spec.Template.Spec.Containers[0]
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: EnvClusterKubeConfig, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cluster-b"}, Key: "value"}}}), "the kubelet reads the kubeconfig; the Job spec never holds it")
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: EnvClusterContext, Value: "b"}))
	g.Expect(c.Env).NotTo(ContainElement(HaveField("Value", "smuggled")), "extra environment cannot replace the kubeconfig")
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: "KUBAGE_EGRESS_ALLOW_CIDRS", Value: "127.0.0.0/8"}))

	local := taskReq("i1-t2")
	g.Expect(r.Start(ctx, owner, local)).To(Succeed())
	g.Expect(getJob(g, cs, JobName(owner, "i1-t2")).Spec.Template.Spec.Containers[0].Env).NotTo(ContainElement(HaveField("Name", EnvClusterKubeConfig)))
}
