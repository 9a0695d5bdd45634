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

package memory

import (
	"sort"

	"github.com/kubage/kubage/internal/text"
)

// Fingerprint is what a session saw, in terms that stay the same when the same fault
// happens again: the kinds of findings (rule ids) with the kinds of the objects they were
// on and blamed, never object names, which change with every pod. Root is the token of
// the conclusion (its rule, or its category when a model concluded, with the culprit's
// kind); Signals are the tokens of every finding, sorted and unique.
type Fingerprint struct {
	Root    string   `json:"root"`
	Signals []string `json:"signals,omitempty"`
}

// NewFingerprint builds a bounded fingerprint: signals sorted, unique and clipped.
func NewFingerprint(root string, signals ...string) Fingerprint {
	seen := map[string]bool{}
	out := make([]string, 0, len(signals))
	for _, s := range signals {
		s = text.Clip(s, maxSignalBytes)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	sort.Strings(out)
	if len(out) > maxSignals {
		out = out[:maxSignals]
	}
	return Fingerprint{Root: text.Clip(root, maxSignalBytes), Signals: out}
}

// IsZero says whether the fingerprint has nothing to compare.
func (f Fingerprint) IsZero() bool { return f.Root == "" }

// Similarity is 0 when the roots differ (another cause, however alike the symptoms),
// else half for the shared root plus half the Jaccard index of the signals, in percent:
// the same fault recurring scores 100, the same cause reached through other symptoms
// at least 50.
func (f Fingerprint) Similarity(o Fingerprint) int {
	if f.IsZero() || f.Root != o.Root {
		return 0
	}
	if len(f.Signals) == 0 && len(o.Signals) == 0 {
		return 100
	}
	in := map[string]bool{}
	for _, s := range f.Signals {
		in[s] = true
	}
	shared, union := 0, len(f.Signals)
	for _, s := range o.Signals {
		if in[s] {
			shared++
		} else {
			union++
		}
	}
	return 50 + 50*shared/union
}
