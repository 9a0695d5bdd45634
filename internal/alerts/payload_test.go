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
	"errors"
	"os"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParsePayloadRealPayloads(t *testing.T) {
	for _, tc := range []struct {
		file   string
		alerts int
		status string
	}{
		{"crashloop_firing.json", 1, StatusFiring},
		{"group_firing.json", 4, StatusFiring},
		{"crashloop_resolved.json", 1, StatusResolved},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p, err := ParsePayload(readTestdata(t, tc.file), 0)
			if err != nil {
				t.Fatalf("ParsePayload: %v", err)
			}
			if len(p.Alerts) != tc.alerts || p.Status != tc.status || p.Receiver != "kubage" {
				t.Fatalf("got %d alerts, status %q, receiver %q", len(p.Alerts), p.Status, p.Receiver)
			}
			for _, a := range p.Alerts {
				if a.Fingerprint == "" || a.StartsAt.IsZero() || a.Name() == "" {
					t.Errorf("alert lost a required field: %+v", a)
				}
			}
		})
	}
}

// minimal is a valid one-alert payload that the bad cases below break one field at a time.
const minimal = `{"version":"4","status":"firing","receiver":"r","alerts":[{"status":"firing","labels":{"alertname":"A","namespace":"ns"},"startsAt":"2026-03-14T09:00:00Z","fingerprint":"abcdef0123456789"}]}`

func TestParsePayloadRejects(t *testing.T) {
	alert := func(fields string) string {
		return `{"version":"4","status":"firing","receiver":"r","alerts":[{` + fields + `}]}`
	}
	ok := `"status":"firing","labels":{"alertname":"A"},"startsAt":"2026-03-14T09:00:00Z","fingerprint":"ab12"`
	many := `{"version":"4","status":"firing","alerts":[` + strings.TrimSuffix(strings.Repeat(`{"status":"firing","labels":{"alertname":"A"},"startsAt":"2026-03-14T09:00:00Z","fingerprint":"ab"},`, 11), ",") + `]}`
	for _, tc := range []struct {
		name, body, reason string
	}{
		{"empty", ``, ReasonMalformedJSON},
		{"whitespace", " \n ", ReasonMalformedJSON},
		{"array", `[` + minimal + `]`, ReasonMalformedJSON},
		{"string", `"hello"`, ReasonMalformedJSON},
		{"truncated", minimal[:len(minimal)-3], ReasonMalformedJSON},
		{"trailing data", minimal + `{}`, ReasonMalformedJSON},
		{"trailing garbage", minimal + `x`, ReasonMalformedJSON},
		{"invalid utf-8", `{"version":"4","status":"firing","receiver":"` + "\xff\xfe" + `","alerts":[]}`, ReasonMalformedJSON},
		{"label not a string", alert(`"status":"firing","labels":{"alertname":5},"startsAt":"2026-03-14T09:00:00Z","fingerprint":"ab"`), ReasonMalformedJSON},
		{"alerts not an array", `{"version":"4","status":"firing","alerts":{}}`, ReasonMalformedJSON},
		{"bad time", alert(`"status":"firing","labels":{"alertname":"A"},"startsAt":"yesterday","fingerprint":"ab"`), ReasonMalformedJSON},
		{"no version", `{"status":"firing","alerts":[]}`, ReasonMissingField},
		{"version 3", strings.Replace(minimal, `"version":"4"`, `"version":"3"`, 1), ReasonUnsupportedVersion},
		{"version number", strings.Replace(minimal, `"version":"4"`, `"version":4`, 1), ReasonMalformedJSON},
		{"no status", strings.Replace(minimal, `"status":"firing","receiver"`, `"receiver"`, 1), ReasonMissingField},
		{"bad status", strings.Replace(minimal, `"status":"firing","receiver"`, `"status":"burning","receiver"`, 1), ReasonInvalidField},
		{"no alerts", `{"version":"4","status":"firing","receiver":"r"}`, ReasonMissingField},
		{"null alerts", `{"version":"4","status":"firing","receiver":"r","alerts":null}`, ReasonMissingField},
		{"empty alerts", `{"version":"4","status":"firing","receiver":"r","alerts":[]}`, ReasonMissingField},
		{"too many alerts", many, ReasonTooManyAlerts},
		{"alert without status", alert(strings.Replace(ok, `"status":"firing",`, ``, 1)), ReasonMissingField},
		{"alert with bad status", alert(strings.Replace(ok, `"status":"firing"`, `"status":"pending"`, 1)), ReasonInvalidField},
		{"alert without labels", alert(`"status":"firing","startsAt":"2026-03-14T09:00:00Z","fingerprint":"ab"`), ReasonMissingField},
		{"alert without alertname", alert(`"status":"firing","labels":{"namespace":"x"},"startsAt":"2026-03-14T09:00:00Z","fingerprint":"ab"`), ReasonMissingField},
		{"alert without startsAt", alert(`"status":"firing","labels":{"alertname":"A"},"fingerprint":"ab"`), ReasonMissingField},
		{"alert with zero startsAt", alert(`"status":"firing","labels":{"alertname":"A"},"startsAt":"0001-01-01T00:00:00Z","fingerprint":"ab"`), ReasonMissingField},
		{"alert without fingerprint", alert(`"status":"firing","labels":{"alertname":"A"},"startsAt":"2026-03-14T09:00:00Z"`), ReasonMissingField},
		{"non-hex fingerprint", alert(`"status":"firing","labels":{"alertname":"A"},"startsAt":"2026-03-14T09:00:00Z","fingerprint":"../../etc"`), ReasonInvalidField},
		{"long fingerprint", alert(`"status":"firing","labels":{"alertname":"A"},"startsAt":"2026-03-14T09:00:00Z","fingerprint":"` + strings.Repeat("a", 64) + `"`), ReasonInvalidField},
		{"long receiver", `{"version":"4","status":"firing","receiver":"` + strings.Repeat("r", 5000) + `","alerts":[]}`, ReasonInvalidField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePayload([]byte(tc.body), 10)
			var pe *PayloadError
			if !errors.As(err, &pe) {
				t.Fatalf("want a PayloadError with reason %s, got payload %v, error %v", tc.reason, p, err)
			}
			if pe.Reason != tc.reason {
				t.Fatalf("reason %s (%s), want %s", pe.Reason, pe.Message, tc.reason)
			}
			if strings.Contains(pe.Message, "\xff") {
				t.Fatalf("message echoes invalid input: %q", pe.Message)
			}
		})
	}
}

func TestParsePayloadNormalisesFingerprint(t *testing.T) {
	p, err := ParsePayload([]byte(strings.Replace(minimal, "abcdef0123456789", "ABCDEF0123456789", 1)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Alerts[0].Fingerprint; got != "abcdef0123456789" {
		t.Fatalf("fingerprint %q, want lowercase", got)
	}
}

func TestCheckAlertContent(t *testing.T) {
	base := func() *Alert {
		return &Alert{Labels: map[string]string{"alertname": "A", "namespace": "ns"}, Annotations: map[string]string{"summary": "s"}}
	}
	many := base()
	for i := 0; i < MaxLabels+1; i++ {
		many.Labels[strings.Repeat("l", i+1)] = "v"
	}
	for _, tc := range []struct {
		name   string
		mutate func(a *Alert)
		reason string
	}{
		{"clean", func(*Alert) {}, ""},
		{"unicode value is fine", func(a *Alert) { a.Labels["team"] = "zürich-☃" }, ""},
		{"newline in annotation is fine", func(a *Alert) { a.Annotations["description"] = "line1\nline2\ttab" }, ""},
		{"NUL in label value", func(a *Alert) { a.Labels["pod"] = "web\x00-1" }, ReasonControlCharacters},
		{"escape in label name", func(a *Alert) { a.Labels["po\x1bd"] = "web" }, ReasonControlCharacters},
		{"newline in label value", func(a *Alert) { a.Labels["pod"] = "web\n" }, ReasonControlCharacters},
		{"bidi override in label", func(a *Alert) { a.Labels["namespace"] = "prod\u202Edev" }, ReasonControlCharacters},
		{"zero-width joiner in label", func(a *Alert) { a.Labels["alertname"] = "A\u200dB" }, ReasonControlCharacters},
		{"C1 control in label", func(a *Alert) { a.Labels["x"] = "\u0085" }, ReasonControlCharacters},
		{"control in annotation name", func(a *Alert) { a.Annotations["a\x07"] = "v" }, ReasonControlCharacters},
		{"long label value", func(a *Alert) { a.Labels["x"] = strings.Repeat("v", MaxLabelValueBytes+1) }, ReasonLabelsTooLarge},
		{"long label name", func(a *Alert) { a.Labels[strings.Repeat("n", MaxLabelNameBytes+1)] = "v" }, ReasonLabelsTooLarge},
		{"too many labels", func(a *Alert) { *a = *many }, ReasonLabelsTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := base()
			tc.mutate(a)
			if reason, msg := checkAlertContent(a); reason != tc.reason {
				t.Fatalf("reason %q (%s), want %q", reason, msg, tc.reason)
			}
		})
	}
}

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                  "plain",
		"a\x00b\x1bc":            "abc",
		"keep\nnewline\tand tab": "keep\nnewline\tand tab",
		"cr\r\nlf":               "cr\n\nlf",
		"rtl\u202Eevil\u202C":    "rtlevil",
		"zw\u200bsp":             "zwsp",
		"unicode ✓ ü 漢字":         "unicode ✓ ü 漢字",
	} {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}
