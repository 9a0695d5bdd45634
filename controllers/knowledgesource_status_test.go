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

package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/kbbuild"
	"github.com/kubage/kubage/internal/knowledge"
)

func knowledgeSourceWith(phase kubagev1alpha1.KnowledgeSourcePhase, docs, chunks int32, failed int) *kubagev1alpha1.KnowledgeSource {
	ks := &kubagev1alpha1.KnowledgeSource{ObjectMeta: metav1.ObjectMeta{Name: "kb", Namespace: "ns", Generation: 2}}
	ks.Status = kubagev1alpha1.KnowledgeSourceStatus{Phase: phase, Revision: strings.Repeat("a", 40), DocumentCount: docs, ChunkCount: chunks}
	for i := 0; i < failed; i++ {
		ks.Status.FailedDocuments = append(ks.Status.FailedDocuments, kubagev1alpha1.FailedDocument{Path: fmt.Sprintf("bad-%d.md", i), Error: "binary file"})
	}
	return ks
}

func TestKnowledgeSourceConditions(t *testing.T) {
	authErr := &serror.Waiting{Reason: kubagev1alpha1.AuthFailedReason, Err: errors.New("authentication required"), RequeueAfter: firstIndexRetry}
	cases := map[string]struct {
		ks           *kubagev1alpha1.KnowledgeSource
		err          error
		wantStatus   metav1.ConditionStatus
		wantReason   string
		wantPhase    kubagev1alpha1.KnowledgeSourcePhase
		wantDegraded string
		wantStalled  bool
		wantGen      int64
	}{
		"indexed": {knowledgeSourceWith(kubagev1alpha1.KnowledgeReady, 20, 80, 0), nil,
			metav1.ConditionTrue, kubagev1alpha1.IndexedReason, kubagev1alpha1.KnowledgeReady, "", false, 2},
		"some documents failed": {knowledgeSourceWith(kubagev1alpha1.KnowledgeReady, 20, 80, 2), nil,
			metav1.ConditionTrue, kubagev1alpha1.PartiallyIndexedReason, kubagev1alpha1.KnowledgeReady, kubagev1alpha1.PartiallyIndexedReason, false, 2},
		"every document failed": {knowledgeSourceWith(kubagev1alpha1.KnowledgeReady, 0, 0, 3), nil,
			metav1.ConditionFalse, kubagev1alpha1.IndexFailedReason, kubagev1alpha1.KnowledgeFailed, "", false, 2},
		"no documents": {knowledgeSourceWith(kubagev1alpha1.KnowledgeReady, 0, 0, 0), nil,
			metav1.ConditionFalse, kubagev1alpha1.NoDocumentsReason, kubagev1alpha1.KnowledgeFailed, "", false, 2},
		"fetch failed with an index serving": {knowledgeSourceWith(kubagev1alpha1.KnowledgeReady, 20, 80, 0), authErr,
			metav1.ConditionFalse, kubagev1alpha1.AuthFailedReason, kubagev1alpha1.KnowledgeFailed, kubagev1alpha1.ServingLastIndexReason, false, 2},
		"fetch failed without an index": {knowledgeSourceWith(kubagev1alpha1.KnowledgeIndexing, 0, 0, 0), authErr,
			metav1.ConditionFalse, kubagev1alpha1.AuthFailedReason, kubagev1alpha1.KnowledgeFailed, "", false, 2},
		"missing Secret stalls": {knowledgeSourceWith(kubagev1alpha1.KnowledgePending, 0, 0, 0), serror.NewStalling(kubagev1alpha1.SecretNotFoundReason, errors.New("Secret x not found")),
			metav1.ConditionFalse, kubagev1alpha1.SecretNotFoundReason, kubagev1alpha1.KnowledgeFailed, "", true, 2},
		"API error is retried": {knowledgeSourceWith(kubagev1alpha1.KnowledgePending, 0, 0, 0), errors.New("etcd timeout"),
			metav1.ConditionFalse, kubagev1alpha1.FailedReason, kubagev1alpha1.KnowledgePending, "", false, 0},
		"pending": {knowledgeSourceWith(kubagev1alpha1.KnowledgePending, 0, 0, 0), nil,
			metav1.ConditionFalse, kubagev1alpha1.ProgressingReason, kubagev1alpha1.KnowledgePending, "", false, 2},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			meta.SetStatusCondition(&c.ks.Status.Conditions, metav1.Condition{Type: kubagev1alpha1.ReconcilingCondition, Status: metav1.ConditionTrue, Reason: "Progressing"})
			summarizeKnowledgeSource(c.ks, c.err)
			ready := meta.FindStatusCondition(c.ks.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(c.wantStatus), ready.Message)
			g.Expect(ready.Reason).To(Equal(c.wantReason), ready.Message)
			g.Expect(len(ready.Message)).To(BeNumerically("<=", maxConditionMessage))
			g.Expect(c.ks.Status.Phase).To(Equal(c.wantPhase))
			g.Expect(c.ks.Status.ObservedGeneration).To(Equal(c.wantGen))
			g.Expect(c.ks.Status.Conditions[0].Type).To(Equal(kubagev1alpha1.ReadyCondition))
			g.Expect(meta.FindStatusCondition(c.ks.Status.Conditions, kubagev1alpha1.ReconcilingCondition)).To(BeNil())
			g.Expect(meta.IsStatusConditionTrue(c.ks.Status.Conditions, kubagev1alpha1.StalledCondition)).To(Equal(c.wantStalled))
			degraded := meta.FindStatusCondition(c.ks.Status.Conditions, kubagev1alpha1.DegradedCondition)
			if c.wantDegraded == "" {
				g.Expect(degraded).To(BeNil())
			} else {
				g.Expect(degraded).NotTo(BeNil())
				g.Expect(degraded.Reason).To(Equal(c.wantDegraded))
			}
		})
	}
}

func TestIndexFailureReason(t *testing.T) {
	g := NewWithT(t)
	for err, want := range map[error]string{
		fmt.Errorf("list refs of https://git.example.com/x: %w", transport.ErrAuthenticationRequired):        kubagev1alpha1.AuthFailedReason,
		fmt.Errorf("list refs: %w: forbidden", transport.ErrAuthorizationFailed):                             kubagev1alpha1.AuthFailedReason,
		errors.New("ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey]"): kubagev1alpha1.AuthFailedReason,
		fmt.Errorf("%w: release-9 in https://git.example.com/x", kbbuild.ErrRefNotFound):                     kubagev1alpha1.RefNotFoundReason,
		&knowledge.StoreError{Err: errors.New("milvus: connection refused")}:                                 kubagev1alpha1.StoreErrorReason,
		fmt.Errorf("read stored documents: %w", &knowledge.StoreError{Err: errors.New("x")}):                 kubagev1alpha1.StoreErrorReason,
		errors.New("dial tcp 127.0.0.1:1: connect: connection refused"):                                      kubagev1alpha1.FetchFailedReason,
		context.DeadlineExceeded: kubagev1alpha1.FetchFailedReason,
	} {
		g.Expect(indexFailureReason(err)).To(Equal(want), err.Error())
	}
}

func TestIndexRetryBacksOffWithinTheRefreshInterval(t *testing.T) {
	g := NewWithT(t)
	g.Expect(indexRetry(1, time.Hour)).To(Equal(5 * time.Second))
	g.Expect(indexRetry(2, time.Hour)).To(Equal(10 * time.Second))
	g.Expect(indexRetry(4, time.Hour)).To(Equal(40 * time.Second))
	g.Expect(indexRetry(50, time.Hour)).To(Equal(maxIndexRetry))
	g.Expect(indexRetry(50, 2*time.Minute)).To(Equal(2 * time.Minute))
}

func TestFailedDocumentsAreBounded(t *testing.T) {
	g := NewWithT(t)
	var errs []kbbuild.DocumentError
	for i := 0; i < 50; i++ {
		errs = append(errs, kbbuild.DocumentError{Path: strings.Repeat("p", 3000), Err: strings.Repeat("e", 3000)})
	}
	errs = append(errs[:1], kbbuild.DocumentError{Path: "", Err: "x"})
	out := failedDocuments(append(errs, errs...))
	g.Expect(len(out)).To(BeNumerically("<=", maxFailedDocuments))
	g.Expect(out[0].Path).To(HaveLen(1024))
	g.Expect(out[0].Error).To(HaveLen(1024))
	g.Expect(out[1].Path).To(Equal("(unknown)"))
	g.Expect(failedDocuments(nil)).To(BeNil())
	g.Expect(clampInt32(1 << 40)).To(Equal(int32(1<<31 - 1)))
}
