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
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

func TestHealthCheckBackoff(t *testing.T) {
	for _, tc := range []struct {
		failures int32
		interval time.Duration
		want     time.Duration
	}{
		{1, time.Minute, 2 * time.Second},
		{2, time.Minute, 4 * time.Second},
		{5, time.Minute, 32 * time.Second},
		{8, time.Minute, 256 * time.Second},
		{9, time.Minute, 5 * time.Minute},
		{1000, time.Minute, 5 * time.Minute},
		{20, time.Hour, time.Hour},
		{1000, 24 * time.Hour, 24 * time.Hour},
	} {
		if got := healthCheckBackoff(tc.failures, tc.interval); got != tc.want {
			t.Errorf("healthCheckBackoff(%d, %s) = %s, want %s", tc.failures, tc.interval, got, tc.want)
		}
	}
}

func TestDiscoveredToolsAreBoundedAndClean(t *testing.T) {
	var listed []kmcp.Tool
	for i := 0; i < 600; i++ {
		listed = append(listed, kmcp.Tool{Name: fmt.Sprintf("t%04d", i), Description: "plain"})
	}
	listed = append(listed,
		kmcp.Tool{Name: "t0001", Description: "duplicate name"},
		kmcp.Tool{Name: strings.Repeat("n", 129)},
		kmcp.Tool{Name: ""},
		kmcp.Tool{Name: "long", Description: strings.Repeat("é", 400) + "\n\n  tail"},
		kmcp.Tool{Name: "badschema", SchemaError: "invalid input schema: boom"},
		kmcp.Tool{Name: "rm", Destructive: true},
	)
	policy := kubagev1alpha1.ToolPolicy{Allow: []string{"t0599", "long", "badschema", "rm"}, Mutating: []string{"t0599"}}
	got := discoveredTools(policy, listed)

	if len(got) != maxDiscoveredTools {
		t.Fatalf("kept %d tools, want %d", len(got), maxDiscoveredTools)
	}
	byName := map[string]kubagev1alpha1.DiscoveredTool{}
	for i, d := range got {
		if _, dup := byName[d.Name]; dup {
			t.Fatalf("duplicate %q", d.Name)
		}
		byName[d.Name] = d
		if i > 0 && got[i-1].Name >= d.Name {
			t.Fatalf("not sorted at %d: %q then %q", i, got[i-1].Name, d.Name)
		}
		if len(d.Name) > 128 || d.Name == "" || len(d.Description) > maxToolDescription || !utf8.ValidString(d.Description) {
			t.Fatalf("entry breaks the API bounds: %+v", d)
		}
	}
	for _, name := range []string{"t0599", "long", "rm"} {
		if !byName[name].Allowed {
			t.Errorf("%s: allowed tools must be kept first and allowed", name)
		}
	}
	if _, kept := byName["badschema"]; kept {
		t.Error("a tool that cannot be called must not push out allowed ones")
	}
	small := discoveredTools(policy, listed[len(listed)-3:])
	if len(small) != 3 || small[0].Name != "badschema" || small[0].Allowed ||
		small[0].Description != invalidSchemaMarker+"invalid input schema: boom] " {
		t.Errorf("invalid schema flag: %+v", small)
	}
	if !byName["t0599"].Mutating || !byName["rm"].Mutating || byName["long"].Mutating {
		t.Errorf("mutating flags wrong: %+v %+v %+v", byName["t0599"], byName["rm"], byName["long"])
	}
	if strings.Contains(byName["long"].Description, "\n") {
		t.Errorf("descriptions are one line: %q", byName["long"].Description)
	}
}

func TestToolServerConditions(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	seen := metav1.NewTime(now.Add(-90 * time.Second))
	withTools := func() *kubagev1alpha1.ToolServer {
		return &kubagev1alpha1.ToolServer{
			ObjectMeta: metav1.ObjectMeta{Generation: 3},
			Status: kubagev1alpha1.ToolServerStatus{
				ToolCount:           2,
				DiscoveredTools:     []kubagev1alpha1.DiscoveredTool{{Name: "a", Allowed: true}, {Name: "b", Mutating: true}},
				ServerInfo:          &kubagev1alpha1.ServerInfo{Name: "loki-mcp", Version: "1.2", ProtocolVersion: "2025-11-25"},
				LastSeenTime:        &seen,
				ConsecutiveFailures: 2,
			},
		}
	}

	obj := withTools()
	summarizeToolServer(obj, probeFailure(obj, string(kmcp.ReasonAuthFailed), errors.New("initialize: server refused the credentials (HTTP 403)")), now)
	ready := meta.FindStatusCondition(obj.Status.Conditions, kubagev1alpha1.ReadyCondition)
	if ready.Status != metav1.ConditionFalse || ready.Reason != "AuthFailed" || !strings.Contains(ready.Message, "check the credentials") {
		t.Errorf("ready after auth failure: %+v", ready)
	}
	degraded := meta.FindStatusCondition(obj.Status.Conditions, kubagev1alpha1.DegradedCondition)
	if degraded == nil || degraded.Reason != kubagev1alpha1.StaleToolsReason ||
		degraded.Message != "Keeping 2 last-known tools from 2026-01-02T03:02:35Z (1m30s ago); 2 consecutive failed checks" {
		t.Errorf("degraded: %+v", degraded)
	}
	if obj.Status.ObservedGeneration != 3 || meta.FindStatusCondition(obj.Status.Conditions, kubagev1alpha1.StalledCondition) != nil {
		t.Errorf("a failed check observes the generation and does not stall: %+v", obj.Status)
	}

	obj = withTools()
	summarizeToolServer(obj, serror.NewStalling(kubagev1alpha1.SecretNotFoundReason, errors.New("Secret ns/tok not found")), now)
	if !meta.IsStatusConditionTrue(obj.Status.Conditions, kubagev1alpha1.StalledCondition) ||
		meta.FindStatusCondition(obj.Status.Conditions, kubagev1alpha1.ReadyCondition).Reason != kubagev1alpha1.SecretNotFoundReason ||
		obj.Status.ObservedGeneration != 3 {
		t.Errorf("stalled on a missing Secret: %+v", obj.Status)
	}

	obj = withTools()
	obj.Status.ConsecutiveFailures = 0
	summarizeToolServer(obj, errors.New("the API server is away"), now)
	if obj.Status.ObservedGeneration != 0 || meta.FindStatusCondition(obj.Status.Conditions, kubagev1alpha1.ReadyCondition).Reason != kubagev1alpha1.FailedReason {
		t.Errorf("a transient error leaves the generation unobserved: %+v", obj.Status)
	}

	obj = withTools()
	obj.Status.Conditions = []metav1.Condition{{Type: kubagev1alpha1.DegradedCondition, Status: metav1.ConditionTrue, Reason: "StaleTools"}}
	summarizeToolServer(obj, nil, now)
	ready = meta.FindStatusCondition(obj.Status.Conditions, kubagev1alpha1.ReadyCondition)
	if ready.Status != metav1.ConditionTrue || ready.Message != "Connected to loki-mcp 1.2 (MCP 2025-11-25): 2 tools, 1 allowed, 1 mutating" {
		t.Errorf("ready: %+v", ready)
	}
	if meta.FindStatusCondition(obj.Status.Conditions, kubagev1alpha1.DegradedCondition) != nil {
		t.Error("Degraded is removed once the server answers")
	}
}

func TestValidHeaderValue(t *testing.T) {
	for v, want := range map[string]bool{"Bearer abc": true, "a\tb": true, "a\nb": false, "a\x00": false, "\x7f": false} {
		if got := validHeaderValue(v); got != want {
			t.Errorf("validHeaderValue(%q) = %v", v, got)
		}
	}
}
