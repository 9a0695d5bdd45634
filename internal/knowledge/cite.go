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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/text"
)

// MaxConclusionCitations bounds the matching sections CiteForConclusion returns; each
// may be followed by up to MaxLinkedCitations pages it links to.
const (
	MaxConclusionCitations = 3
	MaxLinkedCitations     = 2
)

// categoryTerms are the words runbooks use for each rule-engine root-cause category:
// alert names and Kubernetes reasons that a summary in plain words may not contain.
var categoryTerms = map[string]string{
	kubagev1alpha1.CategoryCrashLoop:     "KubePodCrashLooping CrashLoopBackOff container restarts",
	kubagev1alpha1.CategoryOOMKilled:     "OOMKilled out of memory container memory limit",
	kubagev1alpha1.CategoryImagePull:     "ImagePullBackOff ErrImagePull KubeContainerWaiting image pull",
	kubagev1alpha1.CategoryScheduling:    "FailedScheduling pod pending unschedulable insufficient resources",
	kubagev1alpha1.CategoryConfiguration: "CreateContainerConfigError missing ConfigMap Secret key",
	kubagev1alpha1.CategoryProbe:         "KubePodNotReady readiness liveness probe failed",
	kubagev1alpha1.CategoryNetwork:       "Service endpoints connection refused network",
	kubagev1alpha1.CategoryStorage:       "KubePersistentVolumeErrors PersistentVolumeClaim volume mount",
	kubagev1alpha1.CategoryQuota:         "KubeQuotaExceeded ResourceQuota exceeded",
	kubagev1alpha1.CategoryRollout:       "KubeDeploymentReplicasMismatch rollout stuck",
	kubagev1alpha1.CategoryNode:          "KubeNodeNotReady node not ready pressure",
	kubagev1alpha1.CategoryJob:           "KubeJobFailed job failed backoffLimit",
}

// relevanceFloor drops weak hits: a citation must score at least this share of the best one.
const relevanceFloor = 0.5

// CiteForConclusion finds up to MaxConclusionCitations runbook sections that back a
// root cause, one per document, from the KnowledgeSources a session may use (namespace
// and selector or scopes as in Query). It never fails the caller: without sources, or when the
// search fails, it returns nil.
func (s *Service) CiteForConclusion(ctx context.Context, namespace string, selector *metav1.LabelSelector, scopes []Scope, summary, category string) []Citation {
	if s == nil {
		return nil
	}
	text := strings.TrimSpace(summary + " " + categoryTerms[category])
	if text == "" {
		return nil
	}
	ans, err := s.Search(ctx, Query{
		Namespace: namespace, Selector: selector, Scopes: scopes, Text: text,
		K: MaxConclusionCitations, PerDocument: 1, FollowLinks: MaxConclusionCitations,
	})
	if err != nil || len(ans.Snippets) == 0 {
		return nil
	}
	best := ans.Snippets[0].Score
	out := make([]Citation, 0, len(ans.Snippets))
	for _, sn := range ans.Snippets {
		if sn.Score < best*relevanceFloor {
			continue
		}
		out = append(out, sn.Citation)
		// The pages the runbook itself points to (See also, What's next) follow it: the
		// author's judgement of what else matters, even when they share no words with the problem.
		linked := 0
		for _, rel := range ans.Related {
			if linked == MaxLinkedCitations {
				break
			}
			if rel.From != sn.Citation.String() || rel.Citation.Path == "" {
				continue
			}
			c := rel.Citation
			c.LinkedFrom = sn.Citation.String()
			out = append(out, c)
			linked++
		}
	}
	return out
}

// Evidence turns a citation into a Troubleshoot evidence entry of kind Knowledge, for the
// session to list next to what the brains observed. id must be a DNS label (e.g. "kb-1").
func (c Citation) Evidence(id string, at *metav1.Time) kubagev1alpha1.Evidence {
	ref := c.API()
	summary := "Runbook " + c.String()
	if len(c.HeadingPath) > 0 {
		summary += " (" + strings.Join(c.HeadingPath, " > ") + ")"
	}
	if c.LinkedFrom != "" {
		summary += ", related: linked from " + c.LinkedFrom
	}
	return kubagev1alpha1.Evidence{
		ID:        id,
		Summary:   text.Clip(summary, 512),
		Source:    kubagev1alpha1.EvidenceSource{Kind: kubagev1alpha1.EvidenceFromKnowledge, Knowledge: &ref},
		Timestamp: at,
	}
}
