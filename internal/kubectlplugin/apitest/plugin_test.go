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

// Package apitest runs the kubectl plugin's verbs against a real kube-apiserver and etcd
// (envtest): the errors users meet (CRDs missing, no permission, target not found) and what
// each verb writes to the API. A goroutine stands in for the operator where a verb waits for it.
package apitest

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/kubectlplugin"
)

const ns = "shop"

// newEnv is the plugin's Env for cfg, writing into out, as if piped.
func newEnv(g Gomega, cfg *rest.Config, out *bytes.Buffer) *kubectlplugin.Env {
	dyn, err := dynamic.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	return &kubectlplugin.Env{Dynamic: dyn, Discovery: disc, Namespace: ns, Out: out, ErrOut: out, Width: 80,
		Now: func() time.Time { return time.Now() }}
}

func TestPluginAgainstAPIServer(t *testing.T) {
	g := NewWithT(t)
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	g.Expect(err).NotTo(HaveOccurred())
	// No CRDs at first: the plugin must say they are missing.
	testEnv := &envtest.Environment{BinaryAssetsDirectory: filepath.Join(root, "bin", "k8s")}
	cfg, err := testEnv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { g.Expect(testEnv.Stop()).To(Succeed()) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	env := newEnv(g, cfg, &out)

	t.Run("CRDs missing", func(t *testing.T) {
		g := NewWithT(t)
		_, err := env.Diagnose(ctx, kubectlplugin.DiagnoseOptions{Target: "deploy/api"})
		g.Expect(err).To(MatchError(kubectlplugin.ErrCRDsMissing))
		g.Expect(err.Error()).To(ContainSubstring("KubAge CRDs are not installed in this cluster"))
		g.Expect(env.Get(ctx, kubectlplugin.GetOptions{})).To(MatchError(kubectlplugin.ErrCRDsMissing))
		g.Expect(env.Rerun(ctx, "x")).To(MatchError(kubectlplugin.ErrCRDsMissing))
	})

	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{filepath.Join(root, "config", "crd", "bases")}, ErrorIfPathMissing: true})
	g.Expect(err).NotTo(HaveOccurred())
	scheme := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	g.Expect(kubagev1alpha1.AddToScheme(scheme)).To(Succeed())
	kube, err := client.New(cfg, client.Options{Scheme: scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	labels := map[string]string{"app": "api"}
	g.Expect(kube.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "example/api:1"}}},
		}},
	})).To(Succeed())

	t.Run("target not found", func(t *testing.T) {
		g := NewWithT(t)
		_, err := env.Diagnose(ctx, kubectlplugin.DiagnoseOptions{Target: "deploy/nope"})
		g.Expect(err).To(MatchError("deployment/nope not found in namespace shop"))
		_, err = env.Diagnose(ctx, kubectlplugin.DiagnoseOptions{Target: "no/nope"})
		g.Expect(err).To(MatchError("node/nope not found"))
		list := &kubagev1alpha1.TroubleshootList{}
		g.Expect(kube.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		g.Expect(list.Items).To(BeEmpty(), "nothing is created for a missing target")
	})

	var created *kubagev1alpha1.Troubleshoot
	t.Run("diagnose creates a Troubleshoot for the target", func(t *testing.T) {
		g := NewWithT(t)
		created, err = env.Diagnose(ctx, kubectlplugin.DiagnoseOptions{Target: "deploy/api", Problem: "api returns 503"})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(created.Name).To(HavePrefix("api-"))
		got := &kubagev1alpha1.Troubleshoot{}
		g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(created), got)).To(Succeed())
		g.Expect(got.Spec.Problem).To(Equal("api returns 503"))
		g.Expect(got.Spec.Target).To(Equal(&kubagev1alpha1.TroubleshootTarget{APIGroup: "apps", Kind: "Deployment", Name: "api"}))
		g.Expect(got.Spec.Mode).To(Equal(kubagev1alpha1.ModeDiagnose), "the API's default")
	})

	t.Run("get prints the table", func(t *testing.T) {
		g := NewWithT(t)
		setStatus(ctx, g, kube, created, func(st *kubagev1alpha1.TroubleshootStatus) {
			st.Phase = kubagev1alpha1.PhaseCompleted
			st.RootCause = &kubagev1alpha1.RootCause{Summary: "ConfigMap api-flags does not exist", Category: "ConfigMapMissing", Confidence: 90}
		})
		out.Reset()
		g.Expect(env.Get(ctx, kubectlplugin.GetOptions{})).To(Succeed())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		g.Expect(lines).To(HaveLen(2))
		g.Expect(strings.Fields(lines[0])).To(Equal([]string{"NAME", "PHASE", "CATEGORY", "CONFIDENCE", "AGE"}))
		g.Expect(strings.Fields(lines[1])[:4]).To(Equal([]string{created.Name, "Completed", "ConfigMapMissing", "90%"}))

		out.Reset()
		g.Expect(env.Get(ctx, kubectlplugin.GetOptions{Wide: true, AllNamespaces: true})).To(Succeed())
		lines = strings.Split(strings.TrimSpace(out.String()), "\n")
		g.Expect(lines[0]).To(MatchRegexp(`^NAMESPACE +NAME +PHASE +CATEGORY +CONFIDENCE +AGE +ROOT CAUSE$`))
		g.Expect(lines[1]).To(MatchRegexp(`^shop +` + created.Name + ` +Completed +ConfigMapMissing +90% +\S+ +ConfigMap api-flags does not exist$`))

		out.Reset()
		g.Expect(env.Get(ctx, kubectlplugin.GetOptions{Name: created.Name})).To(Succeed())
		g.Expect(out.String()).To(ContainSubstring(created.Name))
		g.Expect(env.Get(ctx, kubectlplugin.GetOptions{Name: created.Name, AllNamespaces: true})).To(MatchError(ContainSubstring("across all namespaces")))

		g.Expect(env.Get(ctx, kubectlplugin.GetOptions{Name: "nope"})).To(MatchError(`troubleshoot "nope" not found in namespace "shop"`))
	})

	t.Run("report prints the report ConfigMap", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(env.Report(ctx, kubectlplugin.ReportOptions{Name: created.Name})).To(MatchError(ContainSubstring("has no report yet (phase Completed)")))
		g.Expect(kube.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: created.Name + "-report", Namespace: ns}, Data: map[string]string{
			kubagev1alpha1.ReportMarkdownKey: "# Troubleshoot shop/" + created.Name + "\n\n## Root cause\n",
			kubagev1alpha1.ReportJSONKey:     `{"rootCause":{"category":"ConfigMapMissing"}}`,
		}})).To(Succeed())
		setStatus(ctx, g, kube, created, func(st *kubagev1alpha1.TroubleshootStatus) {
			st.ReportRef = &kubagev1alpha1.LocalConfigMapReference{Name: created.Name + "-report"}
		})
		out.Reset()
		g.Expect(env.Report(ctx, kubectlplugin.ReportOptions{Name: created.Name})).To(Succeed())
		g.Expect(out.String()).To(Equal("# Troubleshoot shop/"+created.Name+"\n\n## Root cause\n"), "Markdown as is when piped")
		out.Reset()
		g.Expect(env.Report(ctx, kubectlplugin.ReportOptions{Name: created.Name, JSON: true})).To(Succeed())
		g.Expect(out.String()).To(MatchJSON(`{"rootCause":{"category":"ConfigMapMissing"}}`))
	})

	t.Run("rerun sets a new value of the rerun annotation", func(t *testing.T) {
		g := NewWithT(t)
		values := map[string]bool{}
		for range 2 {
			g.Expect(env.Rerun(ctx, created.Name)).To(Succeed())
			got := &kubagev1alpha1.Troubleshoot{}
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(created), got)).To(Succeed())
			v := got.Annotations[kubectlplugin.RerunAnnotation]
			g.Expect(v).NotTo(BeEmpty())
			values[v] = true
		}
		g.Expect(values).To(HaveLen(2), "each rerun is a value the annotation has not had")
		g.Expect(env.Rerun(ctx, "nope")).To(MatchError(`troubleshoot "nope" not found in namespace "shop"`))
	})

	t.Run("approve adds a decision and keeps the others", func(t *testing.T) {
		g := NewWithT(t)
		ts := &kubagev1alpha1.Troubleshoot{ObjectMeta: metav1.ObjectMeta{Name: "evicted", Namespace: ns}, Spec: kubagev1alpha1.TroubleshootSpec{
			Problem: "a batch pod was killed", Mode: kubagev1alpha1.ModeRemediate,
			Approvals: []kubagev1alpha1.ActionApproval{{ActionID: "a1-aaaa", Decision: kubagev1alpha1.DecisionRejected}},
		}}
		g.Expect(kube.Create(ctx, ts)).To(Succeed())
		setStatus(ctx, g, kube, ts, func(st *kubagev1alpha1.TroubleshootStatus) {
			st.Phase = kubagev1alpha1.PhaseAwaitingApproval
			st.Remediation = &kubagev1alpha1.Remediation{Actions: []kubagev1alpha1.RemediationAction{
				{ID: "a1-aaaa", Description: "read logs", Risk: kubagev1alpha1.RiskLow},
				{ID: "a2-bbbb", Description: "delete the pod", Risk: kubagev1alpha1.RiskLow},
			}}
		})
		out.Reset()
		g.Expect(env.Approve(ctx, "evicted", "a2-bbbb", kubagev1alpha1.DecisionApproved)).To(Succeed())
		g.Expect(out.String()).To(Equal("troubleshoot.kubage.io/evicted: action a2-bbbb approved\n"))
		g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
		g.Expect(ts.Spec.Approvals).To(ConsistOf(
			kubagev1alpha1.ActionApproval{ActionID: "a1-aaaa", Decision: kubagev1alpha1.DecisionRejected},
			kubagev1alpha1.ActionApproval{ActionID: "a2-bbbb", Decision: kubagev1alpha1.DecisionApproved},
		))
		g.Expect(env.Approve(ctx, "evicted", "a9-zzzz", kubagev1alpha1.DecisionApproved)).To(MatchError(ContainSubstring("its actions are: a1-aaaa, a2-bbbb")))
		g.Expect(env.Approve(ctx, created.Name, "a1-aaaa", kubagev1alpha1.DecisionApproved)).To(MatchError(ContainSubstring("runs in Diagnose mode")))
	})

	t.Run("follow shows the progress and the root cause", func(t *testing.T) {
		testFollow(ctx, t, env, &out, kube)
	})

	t.Run("no permission", func(t *testing.T) {
		g := NewWithT(t)
		bob, err := testEnv.AddUser(envtest.User{Name: "bob"}, nil)
		g.Expect(err).NotTo(HaveOccurred())
		bobEnv := newEnv(g, bob.Config(), &out)
		err = bobEnv.Get(ctx, kubectlplugin.GetOptions{})
		g.Expect(err).To(MatchError(ContainSubstring(`permission denied: you may not list troubleshoots.kubage.io in namespace "shop"`)))
		g.Expect(err).To(MatchError(ContainSubstring(`User "bob" cannot list resource "troubleshoots"`)))
		_, err = bobEnv.Diagnose(ctx, kubectlplugin.DiagnoseOptions{Target: "deploy/api"})
		g.Expect(err).To(MatchError(ContainSubstring(`permission denied: you may not get deployments.apps in namespace "shop"`)))
	})
}

// setStatus writes status as the operator would.
func setStatus(ctx context.Context, g Gomega, kube client.Client, ts *kubagev1alpha1.Troubleshoot, mutate func(*kubagev1alpha1.TroubleshootStatus)) {
	cur := &kubagev1alpha1.Troubleshoot{}
	g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(ts), cur)).To(Succeed())
	mutate(&cur.Status)
	g.Expect(kube.Status().Update(ctx, cur)).To(Succeed())
}
