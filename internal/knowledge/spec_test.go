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

package knowledge

import (
	"context"
	"errors"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/kbbuild"
)

func TestGitRefMapping(t *testing.T) {
	r := NewSpecResolver(nil)
	commit := strings.Repeat("ab", 20)
	for ref, want := range map[string][]kbbuild.GitRef{
		"":                      {{}},
		"main":                  {{Branch: "main"}, {Tag: "main"}},
		"refs/heads/dev":        {{Branch: "dev"}},
		"refs/tags/v1.2":        {{Tag: "v1.2"}},
		strings.ToUpper(commit): {{Commit: commit}},
	} {
		t.Run(ref, func(t *testing.T) {
			g := NewWithT(t)
			ks := &kubagev1alpha1.KnowledgeSource{Spec: kubagev1alpha1.KnowledgeSourceSpec{Git: &kubagev1alpha1.GitSource{URL: "https://git.example.com/r", Ref: ref}}}
			src, err := r.gitSource(context.Background(), ks)
			g.Expect(err).NotTo(HaveOccurred())
			var refs []kbbuild.GitRef
			for _, s := range src.sources {
				refs = append(refs, s.Ref)
				g.Expect(s.Filter.Include).To(Equal([]string{"**/*.md", "**/*.markdown"}))
				g.Expect(s.Timeout).To(Equal(GitFetchTimeout))
			}
			g.Expect(refs).To(Equal(want))
		})
	}
	g := NewWithT(t)
	bad := &kubagev1alpha1.KnowledgeSource{Spec: kubagev1alpha1.KnowledgeSourceSpec{Git: &kubagev1alpha1.GitSource{URL: "https://x/r", Paths: []string{"[oops"}}}}
	_, err := r.gitSource(context.Background(), bad)
	var stalling *serror.Stalling
	g.Expect(errors.As(err, &stalling)).To(BeTrue())
	g.Expect(stalling.Reason).To(Equal(kubagev1alpha1.InvalidSpecReason))
}

// mapRefs serves Secrets and ConfigMaps from maps; a missing one is NotFound.
type mapRefs struct {
	secrets    map[string]map[string][]byte
	configMaps map[string]map[string]string
}

func (m mapRefs) SecretData(_ context.Context, _, name string) (map[string][]byte, error) {
	if d, ok := m.secrets[name]; ok {
		return d, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
}

func (m mapRefs) ConfigMapData(_ context.Context, _, name string) (map[string]string, error) {
	if d, ok := m.configMaps[name]; ok {
		return d, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func stallReason(err error) string {
	var stalling *serror.Stalling
	if !errors.As(err, &stalling) {
		return ""
	}
	return stalling.Reason
}

func TestResolveStallsOnMissingReferencesAndUnusableSpecs(t *testing.T) {
	g := NewWithT(t)
	r := NewSpecResolver(mapRefs{secrets: map[string]map[string][]byte{"empty": {"other": []byte("x")}}})
	ks := func(spec kubagev1alpha1.KnowledgeSourceSpec) *kubagev1alpha1.KnowledgeSource {
		return &kubagev1alpha1.KnowledgeSource{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "kb"}, Spec: spec}
	}
	git := func(secret string) *kubagev1alpha1.GitSource {
		return &kubagev1alpha1.GitSource{URL: "https://git.example.com/r", SecretRef: &kubagev1alpha1.LocalSecretReference{Name: secret}}
	}
	for name, c := range map[string]struct {
		spec kubagev1alpha1.KnowledgeSourceSpec
		want string
	}{
		"no source":               {kubagev1alpha1.KnowledgeSourceSpec{}, kubagev1alpha1.InvalidSpecReason},
		"missing ConfigMap":       {kubagev1alpha1.KnowledgeSourceSpec{ConfigMapRef: &kubagev1alpha1.LocalConfigMapReference{Name: "docs"}}, kubagev1alpha1.ConfigMapNotFoundReason},
		"missing git Secret":      {kubagev1alpha1.KnowledgeSourceSpec{Git: git("creds")}, kubagev1alpha1.SecretNotFoundReason},
		"git Secret without keys": {kubagev1alpha1.KnowledgeSourceSpec{Git: git("empty")}, kubagev1alpha1.InvalidSpecReason},
		"Milvus without settings": {kubagev1alpha1.KnowledgeSourceSpec{Inline: []kubagev1alpha1.InlineDocument{{Name: "a.md", Content: "# A"}}, Store: kubagev1alpha1.StoreSpec{Type: kubagev1alpha1.StoreMilvus}}, kubagev1alpha1.InvalidSpecReason},
	} {
		_, err := r.Resolve(context.Background(), ks(c.spec))
		g.Expect(stallReason(err)).To(Equal(c.want), name)
	}
}

func TestResolveKeepsAnHTTPSourceWhileItsURLsStay(t *testing.T) {
	g := NewWithT(t)
	r := NewSpecResolver(mapRefs{})
	ks := &kubagev1alpha1.KnowledgeSource{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "kb"},
		Spec: kubagev1alpha1.KnowledgeSourceSpec{HTTP: &kubagev1alpha1.HTTPSource{URLs: []string{"https://b.example/x", "https://a.example/y"}}}}
	first, err := r.Resolve(context.Background(), ks)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(first.Format).To(Equal(kbbuild.FormatMarkdown))
	again, err := r.Resolve(context.Background(), ks)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again.Source).To(BeIdenticalTo(first.Source), "the same source keeps its ETags")
	g.Expect(again.Fingerprint).To(Equal(first.Fingerprint))

	ks.Spec.HTTP.URLs = []string{"https://a.example/y"}
	changed, err := r.Resolve(context.Background(), ks)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed.Source).NotTo(BeIdenticalTo(first.Source))
	g.Expect(changed.Fingerprint).NotTo(Equal(first.Fingerprint))

	r.Forget("ns", "kb")
	g.Expect(r.kept).To(BeEmpty())
}

func TestResolveCarriesCopyrightAndQuotable(t *testing.T) {
	g := NewWithT(t)
	r := NewSpecResolver(mapRefs{})
	no := false
	ks := &kubagev1alpha1.KnowledgeSource{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "kb"},
		Spec: kubagev1alpha1.KnowledgeSourceSpec{Inline: []kubagev1alpha1.InlineDocument{{Name: "a.md", Content: "# A"}}, Copyright: "© Vendor"}}
	cfg, err := r.Resolve(context.Background(), ks)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Copyright).To(Equal("© Vendor"))
	g.Expect(cfg.NotQuotable).To(BeFalse(), "quotable unless said otherwise")
	ks.Spec.Quotable = &no
	cfg, err = r.Resolve(context.Background(), ks)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.NotQuotable).To(BeTrue())
}
