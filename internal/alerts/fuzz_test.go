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
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// FuzzParsePayload feeds untrusted bytes through the parser and, when they parse, through
// the mapping: nothing may panic, and whatever comes out must fit the API's bounds.
func FuzzParsePayload(f *testing.F) {
	for _, name := range []string{"crashloop_firing.json", "group_firing.json", "crashloop_resolved.json"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte(minimal))
	f.Add([]byte(strings.Replace(minimal, `"namespace":"ns"`, `"namespace":"ns","pod":"\u202eevil\u0000","deployment":"ÜBER"`, 1)))
	f.Add([]byte(strings.Replace(minimal, `"alertname":"A"`, `"alertname":"☃\u200d--__"`, 1)))
	f.Add([]byte(`{"version":"4","status":"resolved","alerts":[{"status":"resolved","labels":{"alertname":"x"},"annotations":{"summary":"\u0007"},"startsAt":"9999-12-31T23:59:59Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"FFFF"}]}`))
	f.Add([]byte(`{"version":"4"`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"version":"4","status":"firing","alerts":[{}]}`))

	pol, err := Policy{DefaultNamespace: "default", Matchers: nil}.Compile()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := ParsePayload(body, 50)
		if err != nil {
			if p != nil {
				t.Fatal("payload returned with an error")
			}
			return
		}
		if p.Version != "4" || len(p.Alerts) == 0 || len(p.Alerts) > 50 {
			t.Fatalf("accepted version %q with %d alerts", p.Version, len(p.Alerts))
		}
		for i := range p.Alerts {
			a := &p.Alerts[i]
			if a.Name() == "" || a.StartsAt.IsZero() || a.Fingerprint == "" || a.Fingerprint != strings.ToLower(a.Fingerprint) || len(a.Fingerprint) > MaxFingerprintLen {
				t.Fatalf("accepted alert %+v", a)
			}
			checkSession(t, a, p.Receiver, pol)
		}
		// What parsed once parses again after a round trip.
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParsePayload(again, 50); err != nil {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// checkSession asserts the bounds every session built from an alert must meet.
func checkSession(t *testing.T, a *Alert, receiver string, pol *CompiledPolicy) {
	t.Helper()
	ts, rej := BuildSession(a, receiver, pol, testNow)
	if rej != nil {
		if ts != nil || rej.Reason == "" || !utf8.ValidString(rej.Message) {
			t.Fatalf("bad rejection %+v", rej)
		}
		return
	}
	if errs := validation.IsDNS1123Label(ts.Name); len(errs) > 0 {
		t.Fatalf("name %q: %v", ts.Name, errs)
	}
	if ts.Name != SessionName(a.Name(), a.Fingerprint, a.StartsAt) {
		t.Fatal("name is not the SessionName")
	}
	if errs := validation.IsDNS1123Label(ts.Namespace); len(errs) > 0 {
		t.Fatalf("namespace %q: %v", ts.Namespace, errs)
	}
	for k, v := range ts.Labels {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Fatalf("label %s=%q: %v", k, v, errs)
		}
	}
	if tg := ts.Spec.Target; tg != nil && len(validation.IsDNS1123Subdomain(tg.Name)) > 0 {
		t.Fatalf("target name %q", tg.Name)
	}
	if ts.Spec.Problem == "" || len(ts.Spec.Problem) > maxProblemBytes || !utf8.ValidString(ts.Spec.Problem) {
		t.Fatalf("problem of %d bytes", len(ts.Spec.Problem))
	}
	if len(ts.Spec.Hints) > maxHints {
		t.Fatalf("%d hints", len(ts.Spec.Hints))
	}
	for _, h := range ts.Spec.Hints {
		if len(h) > maxHintBytes || !utf8.ValidString(h) || hasHiddenRunesExceptNewline(h) {
			t.Fatalf("hint %q", h)
		}
	}
	if al := ts.Spec.Alert; len(al.AlertName) > 256 || len(al.Receiver) > 256 || al.AlertName == "" {
		t.Fatalf("alert source %+v", al)
	}
	if tr := ts.Spec.TimeRange; tr == nil || tr.From == nil || tr.From.After(testNow) {
		t.Fatalf("time range %+v", tr)
	}
}
