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

package controllers_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// invalidCase is an object the API server must reject, and the text its error must hold:
// always the path of the offending field, and the rule's message where there is one.
type invalidCase struct {
	kind   string
	spec   string
	strict bool
	want   []string
}

// object builds an unstructured kubage.io object from a kind and a YAML spec.
func object(kind, name, namespace, spec string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal([]byte(fmt.Sprintf("apiVersion: kubage.io/v1alpha1\nkind: %s\nspec:\n%s", kind, indent(spec))), &u.Object)).To(Succeed())
	u.SetName(name)
	u.SetNamespace(namespace)
	return u
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// invalidCases are rejected by the CRD schema: enums, bounds, patterns and CEL rules.
var invalidCases = map[string]invalidCase{
	// Troubleshoot
	"Troubleshoot without a problem": {kind: "Troubleshoot",
		spec: `mode: Diagnose`,
		want: []string{"spec.problem", "Required value"}},
	"Troubleshoot with an empty problem": {kind: "Troubleshoot",
		spec: `problem: ""`,
		want: []string{"spec.problem", "at least 1 chars long"}},
	"Troubleshoot with an unknown mode": {kind: "Troubleshoot",
		spec: "problem: p\nmode: Fix",
		want: []string{"spec.mode", `Unsupported value: "Fix"`, `"Diagnose"`, `"Remediate"`}},
	"Troubleshoot with an unknown taskRunner": {kind: "Troubleshoot",
		spec: "problem: p\ntaskRunner: Pod",
		want: []string{"spec.taskRunner", `Unsupported value: "Pod"`}},
	"Troubleshoot with a negative maxIterations": {kind: "Troubleshoot",
		spec: "problem: p\nbudget:\n  maxIterations: -1",
		want: []string{"spec.budget.maxIterations", "greater than or equal to 1"}},
	"Troubleshoot with a maxTokens budget over the maximum": {kind: "Troubleshoot",
		spec: "problem: p\nbudget:\n  maxTokens: 20000000",
		want: []string{"spec.budget.maxTokens", "less than or equal to 10000000"}},
	"Troubleshoot with an unparsable timeout": {kind: "Troubleshoot",
		spec: "problem: p\nbudget:\n  timeout: ten minutes",
		want: []string{"spec.budget.timeout", "should match"}},
	"Troubleshoot with a zero timeout": {kind: "Troubleshoot",
		spec: "problem: p\nbudget:\n  timeout: 0s",
		want: []string{"spec.budget.timeout", "timeout must be a positive duration of at most 2h"}},
	"Troubleshoot with a timeout over 2h": {kind: "Troubleshoot",
		spec: "problem: p\nbudget:\n  timeout: 3h",
		want: []string{"spec.budget.timeout", "timeout must be a positive duration of at most 2h"}},
	"Troubleshoot with from after to": {kind: "Troubleshoot",
		spec: "problem: p\ntimeRange:\n  from: \"2026-01-02T00:00:00Z\"\n  to: \"2026-01-01T00:00:00Z\"",
		want: []string{"spec.timeRange.from", "from must be before to"}},
	"Troubleshoot with since and from": {kind: "Troubleshoot",
		spec: "problem: p\ntimeRange:\n  since: 1h\n  from: \"2026-01-01T00:00:00Z\"",
		want: []string{"spec.timeRange", "set either since or from (with optional to), not both"}},
	"Troubleshoot with to but no from": {kind: "Troubleshoot",
		spec: "problem: p\ntimeRange:\n  to: \"2026-01-01T00:00:00Z\"",
		want: []string{"spec.timeRange.to", "to requires from"}},
	"Troubleshoot targeting a name and a selector": {kind: "Troubleshoot",
		spec: "problem: p\ntarget:\n  kind: Deployment\n  name: web\n  selector:\n    matchLabels:\n      app: web",
		want: []string{"spec.target", "set exactly one of name or selector"}},
	"Troubleshoot targeting a name without a kind": {kind: "Troubleshoot",
		spec: "problem: p\ntarget:\n  name: web",
		want: []string{"spec.target.kind", "kind is required when name is set"}},
	"Troubleshoot with approvals in Diagnose mode": {kind: "Troubleshoot",
		spec: "problem: p\napprovals:\n- actionID: scale-up\n  decision: Approved",
		want: []string{"spec.approvals", "approvals are only allowed in Remediate mode"}},
	"Troubleshoot whose model Secret names another namespace": {kind: "Troubleshoot",
		spec:   "problem: p\nmodel:\n  name: llm\n  namespace: kube-system",
		strict: true,
		want:   []string{`unknown field "spec.model.namespace"`}},

	// KnowledgeSource
	"Troubleshoot with knowledge scopes and knowledgeSources": {kind: "Troubleshoot",
		spec: "problem: p\nknowledgeSources:\n  matchLabels:\n    team: sre\nknowledge:\n- selector:\n    matchLabels:\n      team: sre",
		want: []string{"spec.knowledge", "set knowledge (scopes per source selector) or knowledgeSources, not both"}},
	"Troubleshoot with a knowledge scope of topK 11": {kind: "Troubleshoot",
		spec: "problem: p\nknowledge:\n- selector: {}\n  topK: 11",
		want: []string{"spec.knowledge[0].topK", "less than or equal to 10"}},
	"Troubleshoot with a knowledge scope of minTrust 0": {kind: "Troubleshoot",
		spec: "problem: p\nknowledge:\n- selector: {}\n  minTrust: 0",
		want: []string{"spec.knowledge[0].minTrust", "greater than or equal to 1"}},
	"KnowledgeSource with a copyright notice over 256 bytes": {kind: "KnowledgeSource",
		spec: "inline:\n- name: a.md\n  content: x\ncopyright: " + strings.Repeat("c", 300),
		want: []string{"spec.copyright", "256"}},
	"KnowledgeSource with git and inline at once": {kind: "KnowledgeSource",
		spec: "git:\n  url: https://github.com/prometheus-operator/runbooks\ninline:\n- name: a.md\n  content: hello",
		want: []string{"spec", "set exactly one of git, http, configMapRef or inline"}},
	"KnowledgeSource with no source at all": {kind: "KnowledgeSource",
		spec: "format: Markdown",
		want: []string{"spec", "set exactly one of git, http, configMapRef or inline"}},
	"KnowledgeSource with trustLevel 9": {kind: "KnowledgeSource",
		spec: "inline:\n- name: a.md\n  content: hello\ntrustLevel: 9",
		want: []string{"spec.trustLevel", "less than or equal to 5"}},
	"KnowledgeSource with an unknown format": {kind: "KnowledgeSource",
		spec: "inline:\n- name: a.md\n  content: hello\nformat: PDF",
		want: []string{"spec.format", `Unsupported value: "PDF"`}},
	"KnowledgeSource with chunking minTokens above maxTokens": {kind: "KnowledgeSource",
		spec: "inline:\n- name: a.md\n  content: hello\nchunking:\n  minTokens: 900\n  targetTokens: 300\n  maxTokens: 500",
		want: []string{"spec.chunking", "chunking must satisfy minTokens <= targetTokens <= maxTokens"}},
	"KnowledgeSource with a Milvus store but no milvus settings": {kind: "KnowledgeSource",
		spec: "inline:\n- name: a.md\n  content: hello\nstore:\n  type: Milvus",
		want: []string{"spec.store.milvus", "milvus is required when type is Milvus"}},
	"KnowledgeSource with a Milvus store without address": {kind: "KnowledgeSource",
		spec: "inline:\n- name: a.md\n  content: hello\nstore:\n  type: Milvus\n  milvus:\n    collection: runbooks",
		want: []string{"spec.store.milvus.address", "Required value"}},
	"KnowledgeSource with an ftp:// http source": {kind: "KnowledgeSource",
		spec: "http:\n  urls:\n  - ftp://example.com/runbook.md",
		want: []string{"spec.http.urls[0]", "should match"}},
	"KnowledgeSource refreshing every 10s": {kind: "KnowledgeSource",
		spec: "inline:\n- name: a.md\n  content: hello\nrefreshInterval: 10s",
		want: []string{"spec.refreshInterval", "refreshInterval must be between 1m and 720h"}},
	"KnowledgeSource whose git credentials name another namespace": {kind: "KnowledgeSource",
		spec:   "git:\n  url: https://github.com/prometheus-operator/runbooks\n  secretRef:\n    name: creds\n    namespace: kube-system",
		strict: true,
		want:   []string{`unknown field "spec.git.secretRef.namespace"`}},

	// ToolServer
	"ToolServer with an unknown transport": {kind: "ToolServer",
		spec: "url: http://mcp:8090/mcp\ntransport: WebSocket",
		want: []string{"spec.transport", `Unsupported value: "WebSocket"`, `"StreamableHTTP"`, `"SSE"`}},
	"ToolServer with an ftp:// url": {kind: "ToolServer",
		spec: "url: ftp://mcp.example.com/mcp",
		want: []string{"spec.url", "url must be an absolute http or https URL"}},
	"ToolServer without a url": {kind: "ToolServer",
		spec: "category: logs",
		want: []string{"spec.url", "Required value"}},
	"ToolServer with an unknown category": {kind: "ToolServer",
		spec: "url: http://mcp:8090/mcp\ncategory: database",
		want: []string{"spec.category", `Unsupported value: "database"`}},
	"ToolServer allowing and denying the same tool": {kind: "ToolServer",
		spec: "url: http://mcp:8090/mcp\ntools:\n  allow: [get_logs, query]\n  deny: [query]",
		want: []string{"spec.tools", "a tool cannot be both in allow and in deny"}},
	"ToolServer header from a Secret and a ConfigMap at once": {kind: "ToolServer",
		spec: "url: http://mcp:8090/mcp\nheaders:\n- name: Authorization\n  secretKeyRef: {name: s, key: token}\n  configMapKeyRef: {name: c, key: token}",
		want: []string{"spec.headers[0]", "set exactly one of secretKeyRef or configMapKeyRef"}},
	"ToolServer admitting namespaces by selector without a selector": {kind: "ToolServer",
		spec: "url: http://mcp:8090/mcp\nallowedNamespaces:\n  from: Selector",
		want: []string{"spec.allowedNamespaces.selector", "selector is required when from is Selector, and only then"}},
	"ToolServer with a negative timeout": {kind: "ToolServer",
		spec: "url: http://mcp:8090/mcp\ntimeout: -5s",
		want: []string{"spec.timeout", "should match"}},
	"ToolServer header Secret reference with a namespace": {kind: "ToolServer",
		spec:   "url: http://mcp:8090/mcp\nheaders:\n- name: Authorization\n  secretKeyRef: {name: s, key: token, namespace: kube-system}",
		strict: true,
		want:   []string{`unknown field "spec.headers[0].secretKeyRef.namespace"`}},
}

var _ = Describe("CRD validation", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx, "validation")
	})

	entries := []TableEntry{}
	for name, c := range invalidCases {
		entries = append(entries, Entry(name, c))
	}
	DescribeTable("rejects invalid objects with a message naming the field",
		func(ctx SpecContext, c invalidCase) {
			obj := object(c.kind, "invalid", ns, c.spec)
			var opts []client.CreateOption
			if c.strict {
				opts = append(opts, client.FieldValidation(metav1.FieldValidationStrict))
			}
			err := k8sClient.Create(ctx, obj, opts...)
			Expect(err).To(HaveOccurred(), "the API server accepted it")
			Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "unexpected error: %v", err)
			for _, w := range c.want {
				Expect(err.Error()).To(ContainSubstring(w))
			}
			AddReportEntry("api-server message", err.Error())
		},
		entries,
	)

	It("prunes a namespace on a Secret reference when validation is not strict", func(ctx SpecContext) {
		obj := object("Troubleshoot", "pruned", ns, "problem: p\nmodel:\n  name: llm\n  namespace: kube-system")
		Expect(k8sClient.Create(ctx, obj)).To(Succeed())
		got := &kubagev1alpha1.Troubleshoot{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), got)).To(Succeed())
		Expect(got.Spec.Model).NotTo(BeNil())
		Expect(got.Spec.Model.Name).To(Equal("llm"))
		raw := &unstructured.Unstructured{}
		raw.SetGroupVersionKind(kubagev1alpha1.GroupVersion.WithKind("Troubleshoot"))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), raw)).To(Succeed())
		Expect(raw.Object["spec"]).To(HaveKeyWithValue("model", map[string]any{"name": "llm"}))
	})

	It("rejects a status with confidence 150", func(ctx SpecContext) {
		ts := &kubagev1alpha1.Troubleshoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "overconfident"},
			Spec:       kubagev1alpha1.TroubleshootSpec{Problem: "p"},
		}
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		patch := []byte(`{"status":{"rootCause":{"summary":"bad image tag","confidence":150}}}`)
		err := k8sClient.Status().Patch(ctx, ts, client.RawPatch("application/merge-patch+json", patch))
		Expect(err).To(HaveOccurred())
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "unexpected error: %v", err)
		Expect(err.Error()).To(ContainSubstring("status.rootCause.confidence"))
		Expect(err.Error()).To(ContainSubstring("less than or equal to 100"))
		AddReportEntry("api-server message", err.Error())
	})

	It("rejects Object evidence without an object in status", func(ctx SpecContext) {
		ts := &kubagev1alpha1.Troubleshoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "evidence"},
			Spec:       kubagev1alpha1.TroubleshootSpec{Problem: "p"},
		}
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		patch := []byte(`{"status":{"evidence":[{"id":"ev-1","summary":"pod restarted 12 times","source":{"kind":"Object"}}]}}`)
		err := k8sClient.Status().Patch(ctx, ts, client.RawPatch("application/merge-patch+json", patch))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("status.evidence[0].source.object"))
		Expect(err.Error()).To(ContainSubstring("object is required for Object, Event and Log evidence"))
		AddReportEntry("api-server message", err.Error())
	})
})

var _ = Describe("CRD defaults", func() {
	It("applies the documented defaults", func(ctx SpecContext) {
		ns := newNamespace(ctx, "defaults")

		ts := &kubagev1alpha1.Troubleshoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "minimal"},
			Spec:       kubagev1alpha1.TroubleshootSpec{Problem: "web is slow"},
		}
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		Expect(ts.Spec.Mode).To(Equal(kubagev1alpha1.ModeDiagnose))
		Expect(ts.Spec.TaskRunner).To(BeEmpty(), "taskRunner defaults in the operator, not the CRD")
		Expect(ts.Spec.Budget.MaxIterations).To(Equal(int32(5)))
		Expect(ts.Spec.Budget.MaxToolCalls).To(Equal(int32(100)))
		Expect(ts.Spec.Budget.MaxTokens).To(Equal(int64(200000)))
		Expect(ts.Spec.Budget.Parallelism).To(Equal(int32(3)))
		Expect(ts.Spec.Budget.Timeout).To(Equal(&metav1.Duration{Duration: 10 * time.Minute}))

		scoped := &kubagev1alpha1.Troubleshoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "scoped"},
			Spec: kubagev1alpha1.TroubleshootSpec{Problem: "web is slow", Knowledge: []kubagev1alpha1.KnowledgeScope{
				{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"team": "sre"}}, MinTrust: 4}}},
		}
		Expect(k8sClient.Create(ctx, scoped)).To(Succeed())
		Expect(scoped.Spec.Knowledge[0].TopK).To(Equal(int32(3)), "a knowledge scope gives 3 passages per search by default")

		ks := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "minimal"},
			Spec: kubagev1alpha1.KnowledgeSourceSpec{
				Inline: []kubagev1alpha1.InlineDocument{{Name: "a.md", Content: "# A"}},
			},
		}
		Expect(k8sClient.Create(ctx, ks)).To(Succeed())
		Expect(ks.Spec.Format).To(Equal(kubagev1alpha1.FormatMarkdown))
		Expect(ks.Spec.TrustLevel).To(Equal(int32(3)))
		Expect(ks.Spec.RefreshInterval).To(Equal(&metav1.Duration{Duration: time.Hour}))
		Expect(ks.Spec.Chunking).To(Equal(kubagev1alpha1.Chunking{MinTokens: 128, TargetTokens: 512, MaxTokens: 1024}))
		Expect(ks.Spec.Store.Type).To(Equal(kubagev1alpha1.StoreEmbedded))
		Expect(ks.Spec.Quotable).To(Equal(ptr.To(true)), "passages are quotable unless the source says otherwise")

		milvus := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "milvus"},
			Spec: kubagev1alpha1.KnowledgeSourceSpec{
				ConfigMapRef: &kubagev1alpha1.LocalConfigMapReference{Name: "runbooks"},
				Store: kubagev1alpha1.StoreSpec{
					Type:   kubagev1alpha1.StoreMilvus,
					Milvus: &kubagev1alpha1.MilvusStore{Address: "milvus.db.svc:19530"},
				},
			},
		}
		Expect(k8sClient.Create(ctx, milvus)).To(Succeed())
		Expect(milvus.Spec.Store.Milvus.Collection).To(Equal("kubage_knowledge"))

		tsv := &kubagev1alpha1.ToolServer{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "minimal"},
			Spec:       kubagev1alpha1.ToolServerSpec{URL: "https://mcp.example.com/mcp"},
		}
		Expect(k8sClient.Create(ctx, tsv)).To(Succeed())
		Expect(tsv.Spec.Transport).To(Equal(kubagev1alpha1.TransportStreamableHTTP))
		Expect(tsv.Spec.Category).To(Equal(kubagev1alpha1.ToolCategoryOther))
		Expect(tsv.Spec.Timeout).To(Equal(&metav1.Duration{Duration: 30 * time.Second}))
		Expect(tsv.Spec.HealthCheckInterval).To(Equal(&metav1.Duration{Duration: time.Minute}))
		Expect(tsv.Spec.AllowedNamespaces.From).To(Equal(kubagev1alpha1.NamespacesFromSame))
	})
})
