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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

func mustPolicy(t testing.TB, p Policy) *CompiledPolicy {
	t.Helper()
	c, err := p.Compile()
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

func parseFile(t testing.TB, name string) *Payload {
	t.Helper()
	p, err := ParsePayload(readTestdata(t, name), 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var testNow = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

func TestBuildSessionCrashLoop(t *testing.T) {
	p := parseFile(t, "crashloop_firing.json")
	ts, rej := BuildSession(&p.Alerts[0], p.Receiver, mustPolicy(t, DefaultPolicy()), testNow)
	if rej != nil {
		t.Fatalf("rejected: %+v", rej)
	}
	if ts.Namespace != "shop" {
		t.Errorf("namespace %q", ts.Namespace)
	}
	if !strings.HasPrefix(ts.Name, "alert-kube-pod-crash-looping-") || len(ts.Name) != len("alert-kube-pod-crash-looping-")+10 {
		t.Errorf("name %q", ts.Name)
	}
	if tg := ts.Spec.Target; tg == nil || tg.Kind != "Pod" || tg.Name != "checkout-7d9c8b6f5-x2kqp" || tg.APIGroup != "" {
		t.Errorf("target %+v", tg)
	}
	if ts.Spec.Severity != kubagev1alpha1.SeverityMedium {
		t.Errorf("severity %q", ts.Spec.Severity)
	}
	if ts.Spec.Mode != kubagev1alpha1.ModeDiagnose {
		t.Errorf("mode %q", ts.Spec.Mode)
	}
	for _, want := range []string{"KubePodCrashLooping", "Pod checkout-7d9c8b6f5-x2kqp", "namespace shop", "Pod is crash looping.", "CrashLoopBackOff"} {
		if !strings.Contains(ts.Spec.Problem, want) {
			t.Errorf("problem %q lacks %q", ts.Spec.Problem, want)
		}
	}
	if len(ts.Spec.Hints) == 0 || ts.Spec.Hints[0] != "runbook_url: https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping" {
		t.Errorf("runbook is not the first hint: %q", ts.Spec.Hints)
	}
	joined := strings.Join(ts.Spec.Hints, "\n")
	for _, want := range []string{"container: checkout", `pod="checkout-7d9c8b6f5-x2kqp"`, "generatorURL: http://prometheus"} {
		if !strings.Contains(joined, want) {
			t.Errorf("hints lack %q: %q", want, ts.Spec.Hints)
		}
	}
	wantFrom := time.Date(2026, 3, 14, 9, 11, 53, 0, time.UTC)
	if tr := ts.Spec.TimeRange; tr == nil || tr.From == nil || !tr.From.Time.Equal(wantFrom) || tr.To != nil || tr.Since != nil {
		t.Errorf("timeRange %+v, want from %s", tr, wantFrom)
	}
	al := ts.Spec.Alert
	if al == nil || al.Fingerprint != "5e8f3c2a1b0d9e7f" || al.AlertName != "KubePodCrashLooping" || al.Receiver != "kubage" || !al.StartsAt.Time.Equal(p.Alerts[0].StartsAt) {
		t.Errorf("alert source %+v", al)
	}
	for k, v := range map[string]string{LabelSource: SourceAlertmanager, LabelAlertFingerprint: "5e8f3c2a1b0d9e7f", LabelAlertStatus: StatusFiring, LabelAlertName: "KubePodCrashLooping"} {
		if ts.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, ts.Labels[k], v)
		}
	}
}

func TestBuildSessionTargetsAndNamespaces(t *testing.T) {
	p := parseFile(t, "group_firing.json")
	def := mustPolicy(t, DefaultPolicy())
	withDefaultNS := DefaultPolicy()
	withDefaultNS.DefaultNamespace = "ops"
	for _, want := range []struct {
		alert     int
		pol       *CompiledPolicy
		namespace string
		kind      string
		group     string
		name      string
		severity  kubagev1alpha1.Severity
		reason    string
	}{
		{0, def, "shop", "Deployment", "apps", "payments", kubagev1alpha1.SeverityMedium, ""},
		{1, def, "shop", "Job", "batch", "nightly-report-29012345", kubagev1alpha1.SeverityCritical, ""},
		{2, def, "", "", "", "", "", ReasonNoNamespace},
		{2, mustPolicy(t, withDefaultNS), "ops", "Node", "", "worker-2", kubagev1alpha1.SeverityCritical, ""},
	} {
		i := want.alert
		ts, rej := BuildSession(&p.Alerts[i], p.Receiver, want.pol, testNow)
		if want.reason != "" {
			if rej == nil || rej.Reason != want.reason {
				t.Errorf("alert %d: rejection %+v, want %s", i, rej, want.reason)
			}
			continue
		}
		if rej != nil {
			t.Errorf("alert %d rejected: %+v", i, rej)
			continue
		}
		tg := ts.Spec.Target
		if ts.Namespace != want.namespace || tg == nil || tg.Kind != want.kind || tg.APIGroup != want.group || tg.Name != want.name || ts.Spec.Severity != want.severity {
			t.Errorf("alert %d: namespace %q target %+v severity %q; want %+v", i, ts.Namespace, tg, ts.Spec.Severity, want)
		}
	}
	if def.Investigate(p.Alerts[3].Labels) {
		t.Error("the default policy investigates Watchdog")
	}
	if !def.Investigate(p.Alerts[0].Labels) {
		t.Error("the default policy excludes KubeDeploymentReplicasMismatch")
	}
}

func TestBuildSessionPolicyDefaults(t *testing.T) {
	pol := DefaultPolicy()
	pol.Mode = kubagev1alpha1.ModeRemediate
	pol.TaskRunner = kubagev1alpha1.TaskRunnerJob
	pol.Model = "openai"
	pol.Budget = &kubagev1alpha1.Budget{MaxIterations: 2}
	pol.NamespaceLabels = []string{"exported_namespace", "namespace"}
	a := &Alert{Status: StatusFiring, Fingerprint: "ab", StartsAt: testNow.Add(-time.Hour),
		Labels: map[string]string{"alertname": "X", "namespace": "monitoring", "exported_namespace": "shop", "severity": "PAGE"}}
	ts, rej := BuildSession(a, "r", mustPolicy(t, pol), testNow)
	if rej != nil {
		t.Fatal(rej)
	}
	if ts.Namespace != "shop" || ts.Spec.Mode != kubagev1alpha1.ModeRemediate || ts.Spec.TaskRunner != kubagev1alpha1.TaskRunnerJob ||
		ts.Spec.Model == nil || ts.Spec.Model.Name != "openai" || ts.Spec.Budget.MaxIterations != 2 || ts.Spec.Severity != kubagev1alpha1.SeverityCritical {
		t.Fatalf("policy defaults not applied: ns %q spec %+v", ts.Namespace, ts.Spec)
	}
	if ts.Spec.Target != nil {
		t.Errorf("target %+v without a target label", ts.Spec.Target)
	}
}

func TestBuildSessionShardRule(t *testing.T) {
	doc := `shards:
- key: blue
  matchers: ['namespace=~"blue-.*"', 'severity="critical"']
- key: green
  matchers: ['namespace=~"blue-.*|green-.*"']
`
	p, err := ParsePolicy([]byte(doc), DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	pol := mustPolicy(t, p)
	for _, c := range []struct{ ns, severity, want string }{
		{"blue-shop", "critical", "blue"},
		{"blue-shop", "warning", "green"}, // the first rule needs both matchers
		{"green-shop", "critical", "green"},
		{"other", "critical", ""},
	} {
		a := &Alert{Status: StatusFiring, Fingerprint: "ab", StartsAt: testNow.Add(-time.Hour),
			Labels: map[string]string{"alertname": "X", "namespace": c.ns, "severity": c.severity}}
		ts, rej := BuildSession(a, "r", pol, testNow)
		if rej != nil {
			t.Fatal(rej)
		}
		got, ok := ts.Labels[kubagev1alpha1.ShardingKeyLabel]
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s/%s: shard label %q (set %v), want %q", c.ns, c.severity, got, ok, c.want)
		}
	}
}

func TestBuildSessionBadLabels(t *testing.T) {
	pol := mustPolicy(t, DefaultPolicy())
	for _, tc := range []struct {
		name   string
		labels map[string]string
		reason string
	}{
		{"namespace with capitals", map[string]string{"namespace": "Prod"}, ReasonInvalidNamespace},
		{"namespace with slash", map[string]string{"namespace": "../kube-system"}, ReasonInvalidNamespace},
		{"namespace too long", map[string]string{"namespace": strings.Repeat("n", 64)}, ReasonInvalidNamespace},
		{"unicode namespace", map[string]string{"namespace": "prоd"}, ReasonInvalidNamespace}, // Cyrillic о
		{"pod with underscore", map[string]string{"namespace": "ns", "pod": "web_1"}, ReasonInvalidTargetName},
		{"deployment with spaces", map[string]string{"namespace": "ns", "deployment": "my app"}, ReasonInvalidTargetName},
		{"control character", map[string]string{"namespace": "ns", "pod": "a\x00"}, ReasonControlCharacters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.labels["alertname"] = "X"
			a := &Alert{Status: StatusFiring, Fingerprint: "ab", StartsAt: testNow, Labels: tc.labels}
			ts, rej := BuildSession(a, "r", pol, testNow)
			if rej == nil || rej.Reason != tc.reason {
				t.Fatalf("got %v / %+v, want rejection %s", ts, rej, tc.reason)
			}
		})
	}
}

func TestBuildSessionBoundsUntrustedText(t *testing.T) {
	ann := map[string]string{
		"summary":     "s\x00u\u202Em",
		"description": strings.Repeat("é", 5000),
		"runbook_url": "https://example.com/" + strings.Repeat("x", 3000),
	}
	for i := 0; i < 40; i++ {
		ann["extra_"+string(rune('a'+i%26))+strings.Repeat("z", i/26)] = "value"
	}
	a := &Alert{Status: StatusFiring, Fingerprint: "ab", StartsAt: testNow.Add(time.Hour), // sender clock ahead
		Labels: map[string]string{"alertname": "Ünïcode Alert ☃ with a very long name that goes on and on and on", "namespace": "ns"}, Annotations: ann}
	ts, rej := BuildSession(a, "r\x01", mustPolicy(t, DefaultPolicy()), testNow)
	if rej != nil {
		t.Fatal(rej)
	}
	if len(ts.Spec.Problem) > maxProblemBytes || !strings.Contains(ts.Spec.Problem, "summary: sum") {
		t.Errorf("problem not bounded or not cleaned: %d bytes, %q", len(ts.Spec.Problem), ts.Spec.Problem[:80])
	}
	if len(ts.Spec.Hints) != maxHints {
		t.Errorf("%d hints, want %d", len(ts.Spec.Hints), maxHints)
	}
	for _, h := range ts.Spec.Hints {
		if len(h) > maxHintBytes || hasHiddenRunesExceptNewline(h) {
			t.Errorf("hint unbounded or unclean: %d bytes", len(h))
		}
	}
	if errs := validation.IsDNS1123Label(ts.Name); len(errs) > 0 {
		t.Errorf("name %q: %v", ts.Name, errs)
	}
	if _, ok := ts.Labels[LabelAlertName]; ok {
		t.Errorf("alertname label set from a value that is not a label value")
	}
	if ts.Spec.Alert.Receiver != "r" {
		t.Errorf("receiver not cleaned: %q", ts.Spec.Alert.Receiver)
	}
	if from := ts.Spec.TimeRange.From.Time; !from.Equal(testNow.Add(-defaultMargin)) {
		t.Errorf("from %s: a future startsAt must count from now", from)
	}
	old := *a
	old.StartsAt = testNow.Add(-90 * 24 * time.Hour)
	ts, _ = BuildSession(&old, "r", mustPolicy(t, DefaultPolicy()), testNow)
	if from := ts.Spec.TimeRange.From.Time; !from.Equal(testNow.Add(-maxTimeBack)) {
		t.Errorf("from %s: an old startsAt must be clamped to 30 days", from)
	}
}

func hasHiddenRunesExceptNewline(s string) bool {
	return hasHiddenRunes(strings.NewReplacer("\n", "", "\t", "").Replace(s))
}

func TestSessionName(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 26, 53, 785000000, time.UTC)
	n1 := SessionName("KubePodCrashLooping", "5e8f3c2a1b0d9e7f", at)
	if n1 != SessionName("KubePodCrashLooping", "5E8F3C2A1B0D9E7F", at.In(time.FixedZone("CET", 3600))) {
		t.Error("the name depends on fingerprint case or time zone")
	}
	if n1 == SessionName("KubePodCrashLooping", "5e8f3c2a1b0d9e7f", at.Add(time.Millisecond)) {
		t.Error("a new occurrence (startsAt) must get a new name")
	}
	if n1 == SessionName("KubePodCrashLooping", "5e8f3c2a1b0d9e7e", at) {
		t.Error("another fingerprint must get another name")
	}
	for in, stem := range map[string]string{
		"KubePodCrashLooping":          "kube-pod-crash-looping",
		"CPUThrottlingHigh":            "cputhrottling-high",
		"node_filesystem_almost_full":  "node-filesystem-almost-full",
		"--":                           "unnamed",
		"☃☃☃":                          "unnamed",
		"Über Alert":                   "ber-alert",
		strings.Repeat("VeryLong", 20): "very-long-very-long-very-long-very-long-very-l",
	} {
		name := SessionName(in, "ab", at)
		if got := strings.TrimSuffix(strings.TrimPrefix(name, "alert-"), name[len(name)-11:]); got != stem {
			t.Errorf("stem of %q = %q, want %q", in, got, stem)
		}
		if len(name) > 63 || len(validation.IsDNS1123Label(name)) > 0 {
			t.Errorf("name %q is not a DNS label", name)
		}
	}
}
