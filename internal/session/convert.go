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
	"fmt"
	"regexp"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/text"
	"github.com/kubage/kubage/internal/tools"
)

// Mapping between the brain's plain types (internal/agent) and the API's status types.
// Everything that reaches the status is bounded and matches the CRD's patterns, so a
// misbehaving brain cannot make a status write fail validation.

var (
	dnsLabelRE  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	upperCamel  = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	notDNSChars = regexp.MustCompile(`[^a-z0-9-]+`)
)

// Status bounds, mirroring the CRD.
const (
	MaxPlanTasks      = 32
	MaxStatusEvidence = 64
	maxDependsOn      = 16
)

// SessionFor builds the brain's view of a Troubleshoot; start anchors spec.timeRange.since.
func SessionFor(ts *kubagev1alpha1.Troubleshoot, start time.Time) agent.Session {
	s := agent.Session{
		ID:        ts.Namespace + "/" + ts.Name,
		Problem:   ts.Spec.Problem,
		Namespace: ts.Namespace,
	}
	if t := ts.Spec.Target; t != nil {
		at := &agent.Target{Kind: t.Kind, Name: t.Name}
		if t.Selector != nil {
			if sel, err := metav1.LabelSelectorAsSelector(t.Selector); err == nil {
				at.Selector = sel.String()
			}
		}
		s.Target = at
	}
	if tr := ts.Spec.TimeRange; tr != nil {
		r := &agent.TimeRange{}
		switch {
		case tr.Since != nil:
			from := start.Add(-tr.Since.Duration)
			r.From = &from
		case tr.From != nil:
			from := tr.From.Time
			r.From = &from
			if tr.To != nil {
				to := tr.To.Time
				r.To = &to
			}
		}
		s.TimeRange = r
	}
	s.Hints = append(s.Hints, ts.Spec.Hints...)
	if a := ts.Spec.Alert; a != nil {
		s.Hints = append(s.Hints, "alert "+a.AlertName+" firing since "+a.StartsAt.UTC().Format(time.RFC3339))
	}
	s.Cluster = ClusterRefOf(ts)
	return s
}

// ClusterRefOf names the kubeconfig Secret of the cluster ts investigates; nil when it
// investigates the operator's own cluster.
func ClusterRefOf(ts *kubagev1alpha1.Troubleshoot) *agent.ClusterRef {
	c := ts.Spec.Cluster
	if c == nil {
		return nil
	}
	key := c.KubeConfig.SecretRef.Key
	if key == "" {
		key = DefaultKubeConfigKey
	}
	return &agent.ClusterRef{
		Secret:  agent.SecretRef{Namespace: ts.Namespace, Name: c.KubeConfig.SecretRef.Name, ServiceAccount: ts.Spec.ServiceAccountName},
		Key:     key,
		Context: c.KubeConfig.Context,
	}
}

// DefaultKubeConfigKey is the Secret key of a kubeconfig when spec.cluster names none.
const DefaultKubeConfigKey = "value"

// NormalizeTasks gives the tasks of an iteration the ids i<iteration>-t<n>, rewrites
// their dependencies accordingly (dropping unknown ones) and keeps at most MaxPlanTasks.
func NormalizeTasks(iteration int, tasks []agent.Task) []agent.Task {
	if len(tasks) > MaxPlanTasks {
		tasks = tasks[:MaxPlanTasks]
	}
	ids := make(map[string]string, len(tasks))
	out := make([]agent.Task, len(tasks))
	for i, t := range tasks {
		id := fmt.Sprintf("i%d-t%d", iteration, i+1)
		if t.ID != "" {
			ids[t.ID] = id
		}
		t.ID = id
		out[i] = t
	}
	for i := range out {
		var deps []string
		for _, d := range out[i].DependsOn {
			if nd, ok := ids[d]; ok && nd != out[i].ID && len(deps) < maxDependsOn {
				deps = append(deps, nd)
			}
		}
		out[i].DependsOn = deps
	}
	return out
}

// PlanTasks renders tasks as Pending status tasks.
func PlanTasks(tasks []agent.Task) []kubagev1alpha1.PlanTask {
	out := make([]kubagev1alpha1.PlanTask, 0, len(tasks))
	for _, t := range tasks {
		typ := string(t.Type)
		if !upperCamel.MatchString(typ) || len(typ) > 63 {
			typ = string(kubagev1alpha1.TaskTypeInvestigate)
		}
		desc := clean(t.Description, 512)
		if desc == "" {
			desc = "task " + t.ID
		}
		out = append(out, kubagev1alpha1.PlanTask{
			ID:          t.ID,
			Type:        kubagev1alpha1.TaskType(typ),
			Description: desc,
			Tool:        clean(t.Tool, 253),
			DependsOn:   t.DependsOn,
			State:       kubagev1alpha1.TaskPending,
		})
	}
	return out
}

// Evidence converts evidence for the status, cited evidence first, deduplicated by id,
// at most MaxStatusEvidence items.
func Evidence(cited []agent.Evidence, all []agent.Evidence, at metav1.Time) []kubagev1alpha1.Evidence {
	seen := map[string]bool{}
	var out []kubagev1alpha1.Evidence
	for _, list := range [][]agent.Evidence{cited, all} {
		for _, ev := range list {
			if len(out) >= MaxStatusEvidence {
				return out
			}
			id := EvidenceID(ev.ID)
			if seen[id] {
				continue
			}
			seen[id] = true
			summary := clean(ev.Summary, 512)
			if summary == "" {
				summary = "(no summary)"
			}
			out = append(out, kubagev1alpha1.Evidence{
				ID: id, Summary: summary, Source: evidenceSource(ev.Source),
				TaskID: clean(ev.TaskID, 63), Timestamp: &at,
			})
		}
	}
	return out
}

// EvidenceID turns a brain's evidence id into a status id (a DNS label).
func EvidenceID(id string) string {
	id = strings.ToLower(id)
	if len(id) <= 63 && dnsLabelRE.MatchString(id) {
		return id
	}
	id = strings.Trim(notDNSChars.ReplaceAllString(id, "-"), "-")
	if len(id) > 63 {
		id = strings.Trim(id[:63], "-")
	}
	if id == "" {
		return "ev"
	}
	return id
}

// evidenceSource maps a source, downgrading to Query what the API could not accept
// (an Object source without an object, a ToolServer source without its name).
func evidenceSource(s agent.Source) kubagev1alpha1.EvidenceSource {
	out := kubagev1alpha1.EvidenceSource{
		Kind:  kubagev1alpha1.EvidenceSourceKind(s.Kind),
		Tool:  clean(s.Tool, 128),
		Query: clean(s.Query, 512),
	}
	if s.Object != nil {
		if ref, ok := ObjectReference(*s.Object); ok {
			out.Object = &ref
		}
	}
	switch out.Kind {
	case kubagev1alpha1.EvidenceFromObject, kubagev1alpha1.EvidenceFromEvent, kubagev1alpha1.EvidenceFromLog:
		if out.Object == nil {
			out.Kind = kubagev1alpha1.EvidenceFromQuery
		}
	case kubagev1alpha1.EvidenceFromQuery:
	default:
		// ToolServer and Knowledge need citations the agent types do not carry yet.
		out.Kind = kubagev1alpha1.EvidenceFromQuery
	}
	return out
}

// apiVersions of the kinds the rule engine reports; others stay empty (core or unknown).
var apiVersions = map[string]string{
	"Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
	"Job": "batch/v1", "CronJob": "batch/v1", "Ingress": "networking.k8s.io/v1", "NetworkPolicy": "networking.k8s.io/v1",
	"StorageClass": "storage.k8s.io/v1", "CSIDriver": "storage.k8s.io/v1", "HorizontalPodAutoscaler": "autoscaling/v2",
	"PodDisruptionBudget": "policy/v1", "EndpointSlice": "discovery.k8s.io/v1",
}

// ObjectReference converts a reference; false when it cannot satisfy the API's patterns.
func ObjectReference(r agent.ObjectRef) (kubagev1alpha1.ObjectReference, bool) {
	if !upperCamel.MatchString(r.Kind) || len(r.Kind) > 63 || r.Name == "" || len(r.Name) > 253 || len(r.Namespace) > 63 {
		return kubagev1alpha1.ObjectReference{}, false
	}
	return kubagev1alpha1.ObjectReference{APIVersion: apiVersions[r.Kind], Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}, true
}

// RootCause converts the conclusion's root cause; evidence ids not in known are dropped.
func RootCause(rc agent.RootCause, known map[string]bool) *kubagev1alpha1.RootCause {
	out := &kubagev1alpha1.RootCause{
		Summary:    clean(rc.Summary, 1024),
		Category:   rc.Category,
		Confidence: int32(min(max(rc.Confidence, 0), 100)),
	}
	if out.Summary == "" {
		out.Summary = "No root cause was named."
	}
	if !upperCamel.MatchString(out.Category) || len(out.Category) > 63 {
		out.Category = kubagev1alpha1.CategoryUnknown
	}
	affected := rc.AffectedObjects
	if !rc.Culprit.IsZero() {
		affected = append([]agent.ObjectRef{rc.Culprit}, affected...)
	}
	seen := map[string]bool{}
	for _, a := range affected {
		ref, ok := ObjectReference(a)
		if !ok || seen[a.Key()] || len(out.AffectedObjects) >= 20 {
			continue
		}
		seen[a.Key()] = true
		out.AffectedObjects = append(out.AffectedObjects, ref)
	}
	idSeen := map[string]bool{}
	for _, id := range rc.EvidenceIDs {
		id = EvidenceID(id)
		if known[id] && !idSeen[id] && len(out.EvidenceIDs) < 20 {
			idSeen[id] = true
			out.EvidenceIDs = append(out.EvidenceIDs, id)
		}
	}
	return out
}

// Remediation converts the proposal of a session in namespace; every action starts Pending.
// Each action's risk is what its structure implies, raised by the brain's claim (ActionRisk).
func Remediation(namespace string, r agent.Remediation) *kubagev1alpha1.Remediation {
	if len(r.Actions) == 0 && len(r.ValidationSteps) == 0 {
		return nil
	}
	out := &kubagev1alpha1.Remediation{}
	seen := map[string]bool{}
	for i, a := range r.Actions {
		if len(out.Actions) >= 10 {
			break
		}
		id := strings.ToLower(a.ID)
		if !dnsLabelRE.MatchString(id) || len(id) > 63 || seen[id] {
			id = fmt.Sprintf("a%d", i+1)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		desc := clean(a.Description, 1024)
		if desc == "" {
			desc = "action " + id
		}
		act := kubagev1alpha1.RemediationAction{
			ID: id, Description: desc, Command: text.Clip(redact.Default().Secrets(a.Command), 2048),
			Approval: kubagev1alpha1.ApprovalPending,
		}
		act.Risk = ActionRisk(namespace, &act, a.Risk)
		out.Actions = append(out.Actions, act)
	}
	for _, v := range r.ValidationSteps {
		if len(out.ValidationSteps) >= 10 {
			break
		}
		if v = clean(v, 512); v != "" {
			out.ValidationSteps = append(out.ValidationSteps, v)
		}
	}
	return out
}

// ActionRisk is an action's risk from its structure (remediate's classifier of commands and
// patch fields), raised to claim when a brain claims more: the rule catalogue may call an
// action riskier than its structure, nobody may call it safer. An empty claim (the LLM brain
// passes none: the model's estimate is not trusted) leaves the structure's word; an unknown
// one counts as High.
func ActionRisk(namespace string, a *kubagev1alpha1.RemediationAction, claim agent.Risk) kubagev1alpha1.Risk {
	var r remediate.Risk
	if a.Patch != nil {
		r, _ = remediate.PatchRisk(a.Patch.Patch)
	} else {
		r = remediate.CommandRisk(namespace, a.Command)
	}
	if claim != "" {
		r = remediate.Max(r, remediate.ParseRisk(string(claim)))
	}
	return kubagev1alpha1.Risk(r.String())
}

// clean makes untrusted text a single line of at most n characters (Sanitize may append
// a three-byte ellipsis to what it cut).
// Credentials are removed before cutting, so that no cut leaves half a key unrecognised.
func clean(s string, n int) string {
	return strings.TrimSpace(tools.Sanitize(redact.Default().Secrets(s), n-3, true))
}
