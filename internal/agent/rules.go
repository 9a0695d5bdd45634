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

package agent

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Rule is one entry of the root-cause catalogue.
type Rule struct {
	// ID is the stable kebab-case slug, e.g. "crash-loop".
	ID string
	// Category is the UpperCamelCase category written to the Troubleshoot status.
	Category string
	// Confidence is the rule's base confidence in percent.
	Confidence int
	// Title says in plain words what is wrong.
	Title string
	// Signals lists what the analyzers look at to fire the rule.
	Signals string
	// Actions are remediation templates; {placeholders} come from the finding's facts.
	Actions []ActionTemplate
	// Validation are the steps that show the fix worked (templates too).
	Validation []string
}

// ActionTemplate is a remediation step with a draft command (never executed by KubAge).
type ActionTemplate struct {
	Description string
	Command     string
	Risk        Risk
}

// Catalogue is every rule the engine knows, keyed by ID.
var Catalogue = map[string]Rule{}

func rule(r Rule) { Catalogue[r.ID] = r }

// Rules returns the catalogue sorted by ID.
func Rules() []Rule {
	out := make([]Rule, 0, len(Catalogue))
	for _, r := range Catalogue {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

var placeholder = regexp.MustCompile(`\{([a-zA-Z]+)\}`)

// fill replaces {key} with facts[key]; unknown keys become <key> so drafts stay readable.
func fill(tmpl string, facts map[string]string) string {
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		k := m[1 : len(m)-1]
		if v, ok := facts[k]; ok && v != "" {
			return v
		}
		return "<" + k + ">"
	})
}

// kubectlResource renders kind/name the way kubectl accepts it.
func kubectlResource(r ObjectRef) string {
	return strings.ToLower(r.Kind) + "/" + r.Name
}

// CatalogueMarkdown renders the rule catalogue as a Markdown table (for docs and reports).
func CatalogueMarkdown() string {
	var b strings.Builder
	b.WriteString("| Rule | Category | Confidence | What it means | Signals |\n|---|---|---|---|---|\n")
	for _, r := range Rules() {
		b.WriteString("| `" + r.ID + "` | " + r.Category + " | " + strconv.Itoa(r.Confidence) + "% | " + r.Title + " | " + strings.ReplaceAll(r.Signals, "|", "\\|") + " |\n")
	}
	return b.String()
}
