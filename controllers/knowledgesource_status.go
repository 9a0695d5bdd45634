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
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// summarizeKnowledgeSource computes the phase of a failed run, the conditions and
// observedGeneration of obj from its status fields and the outcome of the steps.
func summarizeKnowledgeSource(obj *kubagev1alpha1.KnowledgeSource, reconcileErr error) {
	gen := obj.Generation
	f := failureOf(reconcileErr)
	// A failed fetch (Waiting) or an unusable spec (Stalling) fails the run.
	failed := f != nil && f.actedOn()
	if failed {
		obj.Status.Phase = kubagev1alpha1.KnowledgeFailed
	}
	ready := knowledgeSourceReady(obj, reconcileErr)
	if ready.Status == metav1.ConditionFalse && obj.Status.Phase == kubagev1alpha1.KnowledgeReady {
		obj.Status.Phase = kubagev1alpha1.KnowledgeFailed
	}
	meta.SetStatusCondition(&obj.Status.Conditions, ready)
	if c := knowledgeSourceDegraded(obj, ready); c != nil {
		meta.SetStatusCondition(&obj.Status.Conditions, *c)
	} else {
		meta.RemoveStatusCondition(&obj.Status.Conditions, kubagev1alpha1.DegradedCondition)
	}
	meta.RemoveStatusCondition(&obj.Status.Conditions, kubagev1alpha1.ReconcilingCondition)
	setStalled(&obj.Status.Conditions, reconcileErr, gen)
	readyFirst(obj.Status.Conditions)
	if reconcileErr == nil || failed {
		// A failed fetch or an unusable spec was still this generation acted on.
		obj.Status.ObservedGeneration = gen
	}
}

// knowledgeSourceReady says whether the source is indexed and searchable.
func knowledgeSourceReady(obj *kubagev1alpha1.KnowledgeSource, reconcileErr error) metav1.Condition {
	cond := metav1.Condition{
		Type:               kubagev1alpha1.ReadyCondition,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: obj.Generation,
	}
	if c := readyFromError(reconcileErr, obj.Generation); c != nil {
		return *c
	}
	st := &obj.Status
	switch st.Phase {
	case kubagev1alpha1.KnowledgeReady:
		switch {
		case st.DocumentCount == 0 && len(st.FailedDocuments) > 0:
			cond.Reason = kubagev1alpha1.IndexFailedReason
			cond.Message = fmt.Sprintf("No document of revision %s could be indexed; first failure: %s",
				short(st.Revision), failureText(st.FailedDocuments[0]))
		case st.DocumentCount == 0:
			cond.Reason = kubagev1alpha1.NoDocumentsReason
			cond.Message = fmt.Sprintf("Revision %s holds no %s document matching the source's paths",
				short(st.Revision), formatOf(obj))
		case len(st.FailedDocuments) > 0:
			cond.Status = metav1.ConditionTrue
			cond.Reason = kubagev1alpha1.PartiallyIndexedReason
			cond.Message = fmt.Sprintf("Indexed revision %s: %d documents, %d chunks; %d documents failed, first: %s",
				short(st.Revision), st.DocumentCount, st.ChunkCount, len(st.FailedDocuments), failureText(st.FailedDocuments[0]))
		default:
			cond.Status = metav1.ConditionTrue
			cond.Reason = kubagev1alpha1.IndexedReason
			cond.Message = fmt.Sprintf("Indexed revision %s: %d documents, %d chunks", short(st.Revision), st.DocumentCount, st.ChunkCount)
		}
	case kubagev1alpha1.KnowledgeFailed:
		cond.Reason = kubagev1alpha1.IndexFailedReason
		cond.Message = "Indexing failed"
	default:
		cond.Reason = kubagev1alpha1.ProgressingReason
		cond.Message = "Waiting to be fetched and indexed"
	}
	cond.Message = truncate(cond.Message, maxConditionMessage)
	return cond
}

// knowledgeSourceDegraded is True while the source serves less than its spec asks for:
// some documents failed, or the latest run failed and an older index keeps serving.
func knowledgeSourceDegraded(obj *kubagev1alpha1.KnowledgeSource, ready metav1.Condition) *metav1.Condition {
	st := &obj.Status
	cond := &metav1.Condition{
		Type:               kubagev1alpha1.DegradedCondition,
		Status:             metav1.ConditionTrue,
		ObservedGeneration: obj.Generation,
	}
	switch {
	case ready.Status == metav1.ConditionTrue && ready.Reason == kubagev1alpha1.PartiallyIndexedReason:
		cond.Reason = kubagev1alpha1.PartiallyIndexedReason
		cond.Message = fmt.Sprintf("%d documents could not be indexed; their previous version, if any, keeps serving", len(st.FailedDocuments))
	case ready.Status == metav1.ConditionFalse && st.ChunkCount > 0:
		cond.Reason = kubagev1alpha1.ServingLastIndexReason
		cond.Message = fmt.Sprintf("Serving the last good index: revision %s, %d documents, %d chunks",
			short(st.Revision), st.DocumentCount, st.ChunkCount)
	default:
		return nil
	}
	return cond
}

// readyFirst moves the Ready condition to the front, where the API documents it.
func readyFirst(conds []metav1.Condition) {
	sort.SliceStable(conds, func(i, j int) bool {
		return conds[i].Type == kubagev1alpha1.ReadyCondition && conds[j].Type != kubagev1alpha1.ReadyCondition
	})
}

// short abbreviates a commit hash for messages.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	if rev == "" {
		return "(none)"
	}
	return rev
}

func failureText(d kubagev1alpha1.FailedDocument) string {
	return truncate(d.Path, 200) + ": " + truncate(d.Error, 300)
}

func formatOf(obj *kubagev1alpha1.KnowledgeSource) kubagev1alpha1.DocumentFormat {
	if obj.Spec.Format == "" {
		return kubagev1alpha1.FormatMarkdown
	}
	return obj.Spec.Format
}
