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
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/internal/tools/registry"
)

const (
	// maxDiscoveredTools is the API's bound on status.discoveredTools.
	maxDiscoveredTools = 256
	// maxToolDescription is the API's bound on a tool description.
	maxToolDescription = 512
	// invalidSchemaMarker starts the description of a tool whose input schema is unusable.
	invalidSchemaMarker = "[invalid input schema: "
)

// summarizeToolServer computes the conditions and observedGeneration of obj from its
// status fields and the outcome of the steps.
func summarizeToolServer(obj *kubagev1alpha1.ToolServer, reconcileErr error, now time.Time) {
	gen := obj.Generation
	ready := toolServerReady(obj, reconcileErr)
	meta.SetStatusCondition(&obj.Status.Conditions, ready)
	if c := toolServerDegraded(obj, ready, now); c != nil {
		meta.SetStatusCondition(&obj.Status.Conditions, *c)
	} else {
		meta.RemoveStatusCondition(&obj.Status.Conditions, kubagev1alpha1.DegradedCondition)
	}
	setStalled(&obj.Status.Conditions, reconcileErr, gen)
	if failureOf(reconcileErr).actedOn() {
		// This generation was acted on: the server is down, or the spec needs a change.
		// Only transient errors (the API server) leave it unobserved.
		obj.Status.ObservedGeneration = gen
	}
}

// toolServerReady says whether the server answers and its tools are known.
func toolServerReady(obj *kubagev1alpha1.ToolServer, reconcileErr error) metav1.Condition {
	cond := metav1.Condition{
		Type:               kubagev1alpha1.ReadyCondition,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: obj.Generation,
	}
	if c := readyFromError(reconcileErr, obj.Generation); c != nil {
		return *c
	}
	cond.Status = metav1.ConditionTrue
	cond.Reason = kubagev1alpha1.ConnectedReason
	cond.Message = truncate(connectedMessage(obj), maxConditionMessage)
	return cond
}

// toolServerDegraded is True while a not-ready server's last-known tools are kept.
func toolServerDegraded(obj *kubagev1alpha1.ToolServer, ready metav1.Condition, now time.Time) *metav1.Condition {
	if ready.Status == metav1.ConditionTrue || len(obj.Status.DiscoveredTools) == 0 {
		return nil
	}
	msg := fmt.Sprintf("Keeping %d last-known tools", len(obj.Status.DiscoveredTools))
	if obj.Status.LastSeenTime != nil {
		msg += fmt.Sprintf(" from %s (%s ago)", obj.Status.LastSeenTime.UTC().Format(time.RFC3339),
			now.Sub(obj.Status.LastSeenTime.Time).Round(time.Second))
	}
	if obj.Status.ConsecutiveFailures > 0 {
		msg += fmt.Sprintf("; %d consecutive failed checks", obj.Status.ConsecutiveFailures)
	}
	return &metav1.Condition{
		Type:               kubagev1alpha1.DegradedCondition,
		Status:             metav1.ConditionTrue,
		Reason:             kubagev1alpha1.StaleToolsReason,
		Message:            msg,
		ObservedGeneration: obj.Generation,
	}
}

// probeHint says what to look at after a health check failed for reason.
func probeHint(reason string) string {
	hint := ""
	switch kmcp.Reason(reason) {
	case kmcp.ReasonAuthFailed:
		hint = "; check the credentials in spec.headers"
	case kmcp.ReasonTLSError:
		hint = "; the server's certificate is not trusted or does not match the URL"
	case kmcp.ReasonTimeout:
		hint = "; the server did not answer completely within spec.timeout"
	case kmcp.ReasonResponseTooLarge:
		hint = "; the server's answer exceeded the size cap"
	case kmcp.ReasonProtocolError:
		hint = "; is spec.url an MCP endpoint and spec.transport right?"
	}
	return hint
}

// connectedMessage summarises a successful health check from the status fields.
func connectedMessage(obj *kubagev1alpha1.ToolServer) string {
	var b strings.Builder
	b.WriteString("Connected")
	if si := obj.Status.ServerInfo; si != nil {
		if si.Name != "" {
			fmt.Fprintf(&b, " to %s", si.Name)
			if si.Version != "" {
				fmt.Fprintf(&b, " %s", si.Version)
			}
		}
		if si.ProtocolVersion != "" {
			fmt.Fprintf(&b, " (MCP %s)", si.ProtocolVersion)
		}
	}
	allowed, mutating := 0, 0
	var invalid []string
	for _, t := range obj.Status.DiscoveredTools {
		if t.Allowed {
			allowed++
		}
		if t.Mutating {
			mutating++
		}
		if strings.HasPrefix(t.Description, invalidSchemaMarker) {
			invalid = append(invalid, t.Name)
		}
	}
	fmt.Fprintf(&b, ": %d tools, %d allowed, %d mutating", obj.Status.ToolCount, allowed, mutating)
	if int(obj.Status.ToolCount) > len(obj.Status.DiscoveredTools) {
		fmt.Fprintf(&b, "; status shows %d of them", len(obj.Status.DiscoveredTools))
	}
	if obj.Status.ToolCount >= maxListedTools {
		fmt.Fprintf(&b, "; listing stopped at %d", maxListedTools)
	}
	if len(invalid) > 0 {
		shown := invalid
		if len(shown) > 10 {
			shown = shown[:10]
		}
		fmt.Fprintf(&b, "; %d with an invalid input schema, not callable: %s", len(invalid), strings.Join(shown, ", "))
		if len(invalid) > len(shown) {
			b.WriteString(", ...")
		}
	}
	return b.String()
}

// discoveredTools turns a listing into status entries: names deduplicated, allow/deny
// and mutating applied, invalid schemas flagged (and not allowed), and at most
// maxDiscoveredTools kept, allowed tools first.
func discoveredTools(policy kubagev1alpha1.ToolPolicy, tools []kmcp.Tool) []kubagev1alpha1.DiscoveredTool {
	seen := make(map[string]bool, len(tools))
	out := make([]kubagev1alpha1.DiscoveredTool, 0, min(len(tools), maxDiscoveredTools))
	for _, t := range tools {
		// The API bounds names to 128 characters; longer or duplicate ones cannot be stored.
		if t.Name == "" || len(t.Name) > 128 || seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		desc := oneLine(truncate(t.Description, 4*maxToolDescription))
		if t.SchemaError != "" {
			desc = invalidSchemaMarker + oneLine(t.SchemaError) + "] " + desc
		}
		out = append(out, kubagev1alpha1.DiscoveredTool{
			Name:        t.Name,
			Description: truncate(desc, maxToolDescription),
			Mutating:    registry.Mutating(policy, t),
			Allowed:     registry.Allowed(policy, t.Name) && t.SchemaError == "",
		})
	}
	if len(out) > maxDiscoveredTools {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Allowed && !out[j].Allowed })
		out = out[:maxDiscoveredTools]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// oneLine collapses whitespace so descriptions read well in kubectl output.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
