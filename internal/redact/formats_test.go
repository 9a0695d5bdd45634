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

package redact

import (
	"regexp"
	"strings"
	"testing"
)

// secretRuns are the random-looking runs of a positive example: what must not survive.
var runRE = regexp.MustCompile(`[A-Za-z0-9+/_~-]{16,}`)

func secretRuns(s string) []string {
	var out []string
	for _, run := range runRE.FindAllString(s, -1) {
		if highEntropy(run) && strings.ContainsAny(run, "0123456789") && strings.ToLower(run) != run && strings.ToUpper(run) != run {
			out = append(out, run)
		}
	}
	return out
}

func TestFormatsTable(t *testing.T) {
	if len(Formats) < 40 {
		t.Fatalf("%d credential formats, want at least 40", len(Formats))
	}
	r := New([]byte("k"))
	names := map[string]bool{}
	for _, f := range Formats {
		if names[f.Name] {
			t.Errorf("format %s listed twice", f.Name)
		}
		names[f.Name] = true
		if f.Positive == "" || f.Negative == "" {
			t.Errorf("%s: needs a positive and a negative example", f.Name)
			continue
		}
		out := r.Redact(f.Positive)
		if !strings.Contains(out, Marker) {
			t.Errorf("%s: positive not redacted: %q", f.Name, out)
		}
		for _, run := range secretRuns(f.Positive) {
			if strings.Contains(out, run) {
				t.Errorf("%s: %q survived in %q", f.Name, run, out)
			}
		}
		if got := r.Redact(f.Negative); got != f.Negative {
			t.Errorf("%s: negative changed: %q -> %q", f.Name, f.Negative, got)
		}
		if f.Pattern != "" {
			re := regexp.MustCompile(f.Pattern)
			if !re.MatchString(f.Positive) {
				t.Errorf("%s: its own pattern misses the positive", f.Name)
			}
			lower := strings.ToLower(re.FindString(f.Positive))
			if !containsAny(lower, f.Anchors) {
				t.Errorf("%s: the match %q holds none of the anchors %v", f.Name, lower, f.Anchors)
			}
		}
	}
}

func TestEntropyDecidesValuesOfSecretLookingKeys(t *testing.T) {
	r := New([]byte("k"))
	for in, redacted := range map[string]bool{
		"authTokenB64=Zq8mN3vR7tY1uI5oP9aS2dF6": true,
		"signatureHeader: X-Hub-Signature-256":  false,
		"tokenBudgetRemaining=1200":             false,
		"privateRegistryHost=registry.shop.io":  false,
		"saltRounds: q8mN3vR7tY1uI5oP9aS2dF6gZ": true,
	} {
		out := r.Redact(in)
		if got := strings.Contains(out, Marker); got != redacted {
			t.Errorf("%q -> %q, redacted=%v want %v", in, out, got, redacted)
		}
	}
}
