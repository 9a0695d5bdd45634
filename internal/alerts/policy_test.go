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

package alerts

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

func TestMatchers(t *testing.T) {
	labels := map[string]string{"alertname": "KubePodCrashLooping", "severity": "critical", "namespace": "shop"}
	for _, tc := range []struct {
		expr  string
		match bool
	}{
		{`severity="critical"`, true},
		{`severity=critical`, true},
		{`severity = "critical"`, true},
		{`severity!="critical"`, false},
		{`severity=~"critical|warning"`, true},
		{`severity=~"crit"`, false}, // anchored
		{`severity!~"info|none"`, true},
		{`alertname!~"Watchdog|InfoInhibitor"`, true},
		{`team=""`, true}, // a missing label is the empty string
		{`team!=""`, false},
		{`team=~".*"`, true},
		{`namespace=~"sh.*"`, true},
		{`summary="with \"quotes\""`, false},
	} {
		m, err := ParseMatcher(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got := m.Matches(labels); got != tc.match {
			t.Errorf("%s matches %v, want %v", tc.expr, got, tc.match)
		}
	}
	for _, bad := range []string{``, `severity`, `=critical`, `severity~critical`, `sev-erity=x`, `9sev=x`, `severity=~"("`, `severity="unterminated`, strings.Repeat("a", 2000) + "=b"} {
		if _, err := ParseMatcher(bad); err == nil {
			t.Errorf("ParseMatcher(%q) accepted", bad)
		}
	}
}

func TestParsePolicyOverBase(t *testing.T) {
	base := DefaultPolicy()
	base.DefaultNamespace = "ops"
	doc := `
matchers: ['severity=~"critical|warning"']
mode: Remediate
taskRunner: InProcess
budget: {maxIterations: 3, timeout: 5m}
cooldown: 1h
severities: {sev1: Critical}
targetLabels:
- {label: app_kubernetes_io_name, kind: Deployment, apiGroup: apps}
`
	p, err := ParsePolicy([]byte(doc), base)
	if err != nil {
		t.Fatal(err)
	}
	c := mustPolicy(t, p)
	if c.DefaultNamespace != "ops" || c.Mode != kubagev1alpha1.ModeRemediate || c.TaskRunner != kubagev1alpha1.TaskRunnerInProcess ||
		c.Budget.MaxIterations != 3 || c.Budget.Timeout.Duration != 5*time.Minute || c.CooldownDuration() != time.Hour {
		t.Fatalf("policy not applied over base: %+v", c.Policy)
	}
	if c.Investigate(map[string]string{"severity": "info"}) || !c.Investigate(map[string]string{"severity": "warning"}) {
		t.Error("matchers from the document not in force")
	}
	if c.severities["sev1"] != kubagev1alpha1.SeverityCritical || c.severities["warning"] != kubagev1alpha1.SeverityMedium {
		t.Error("severities must extend the built-in mapping")
	}
	if len(base.Matchers) != 1 || base.Budget != nil || base.Cooldown.Duration != defaultCooldown {
		t.Error("ParsePolicy changed its base")
	}
	if empty, err := ParsePolicy([]byte("  \n"), base); err != nil || empty.DefaultNamespace != "ops" {
		t.Errorf("an empty document must mean the base: %+v, %v", empty, err)
	}
}

func TestPolicyErrors(t *testing.T) {
	for _, doc := range []string{
		`matchers: ['severity=~"("']`,
		`mode: Destroy`,
		`taskRunner: Thread`,
		`defaultNamespace: Not_A_Namespace`,
		`namespaceLabels: ["bad-label"]`,
		`budget: {maxIterations: 99}`,
		`budget: {timeout: 3h}`,
		`cooldown: -1m`,
		`timeMargin: 48h`,
		`severities: {x: Severe}`,
		`targetLabels: [{label: pod, kind: pod}]`,
		`model: "Bad Name"`,
		`shards: [{key: "not a value"}]`,
		`shards: [{key: blue, matchers: ['namespace=~"("']}]`,
	} {
		p, err := ParsePolicy([]byte(doc), DefaultPolicy())
		if err == nil {
			_, err = p.Compile()
		}
		if err == nil {
			t.Errorf("policy %q accepted", doc)
		}
	}
	for _, doc := range []string{`unknownField: 1`, `matchers: "not a list"`, "a: [", strings.Repeat("#", maxPolicyBytes+1)} {
		if _, err := ParsePolicy([]byte(doc), DefaultPolicy()); err == nil {
			t.Errorf("document %.30q accepted", doc)
		}
	}
}

func TestConfigMapPolicyReloads(t *testing.T) {
	key := types.NamespacedName{Namespace: "kubage-system", Name: "alert-policy"}
	c := fake.NewClientBuilder().Build()
	src := &ConfigMapPolicy{Reader: c, Key: key, Base: DefaultPolicy(), TTL: time.Nanosecond}
	ctx := context.Background()

	p, err := src.Policy(ctx)
	if err != nil || p.DefaultNamespace != "" {
		t.Fatalf("without a ConfigMap the base policy applies: %+v, %v", p, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
		Data: map[string]string{PolicyKey: "defaultNamespace: ops\n"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if p, _ = src.Policy(ctx); p.DefaultNamespace != "ops" {
		t.Fatalf("ConfigMap not loaded: %+v", p.Policy)
	}
	cm.Data[PolicyKey] = "mode: Destroy\n"
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if p, err = src.Policy(ctx); err != nil || p.DefaultNamespace != "ops" {
		t.Fatalf("a broken ConfigMap must keep the last good policy: %+v, %v", p, err)
	}
	cm.Data[PolicyKey] = "defaultNamespace: sre\n"
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if p, _ = src.Policy(ctx); p.DefaultNamespace != "sre" {
		t.Fatalf("edit not picked up: %+v", p.Policy)
	}
	cached := &ConfigMapPolicy{Reader: c, Key: key, Base: DefaultPolicy(), TTL: time.Hour}
	first, _ := cached.Policy(ctx)
	cm.Data[PolicyKey] = "defaultNamespace: later\n"
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if again, _ := cached.Policy(ctx); again != first {
		t.Fatal("the policy must be cached for its TTL")
	}
}
