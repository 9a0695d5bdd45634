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

// Package report renders the final report of a Troubleshoot session as Markdown for
// people and JSON for tools. It knows nothing of Kubernetes clients: the caller gathers
// the facts into a Report and stores the rendered text (a ConfigMap <name>-report).
package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Report is everything the rendered report says. Field values are untrusted text from the
// cluster and the brains; Markdown escapes them.
type Report struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	Problem   string    `json:"problem"`
	Target    string    `json:"target,omitempty"`
	Mode      string    `json:"mode"`
	Phase     string    `json:"phase"`
	Outcome   string    `json:"outcome,omitempty"`
	StartTime time.Time `json:"startTime,omitzero"`
	EndTime   time.Time `json:"endTime,omitzero"`
	// TraceID is the session's OpenTelemetry trace, when the operator exports traces.
	TraceID string `json:"traceID,omitempty"`

	Timeline     []Mark      `json:"timeline,omitempty"`
	Iterations   []Iteration `json:"iterations,omitempty"`
	RootCause    *RootCause  `json:"rootCause,omitempty"`
	Alternatives []RootCause `json:"alternatives,omitempty"`
	SeenBefore   *SeenBefore `json:"seenBefore,omitempty"`
	Evidence     []Evidence  `json:"evidence,omitempty"`
	Actions      []Action    `json:"actions,omitempty"`
	Validation   []string    `json:"validationSteps,omitempty"`
	Usage        Usage       `json:"usage"`
}

// Mark is one phase change.
type Mark struct {
	Phase     string    `json:"phase"`
	Iteration int       `json:"iteration,omitempty"`
	At        time.Time `json:"at"`
	Note      string    `json:"note,omitempty"`
}

// Iteration is one plan → investigate → regulate round.
type Iteration struct {
	Number  int    `json:"number"`
	Tasks   []Task `json:"tasks"`
	Verdict string `json:"verdict,omitempty"`
}

// Task is one plan task and how it ended.
type Task struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	State       string `json:"state"`
	Summary     string `json:"summary,omitempty"`
	ToolCalls   int    `json:"toolCalls"`
}

// RootCause is a named cause with the chain that leads to it.
type RootCause struct {
	Summary    string   `json:"summary"`
	Category   string   `json:"category"`
	Confidence int      `json:"confidence"`
	Culprit    string   `json:"culprit,omitempty"`
	Affected   []string `json:"affected,omitempty"`
	Chain      []string `json:"chain,omitempty"`
	Evidence   []string `json:"evidenceIds,omitempty"`
}

// SeenBefore is an earlier session of the namespace with a similar fingerprint.
type SeenBefore struct {
	Session     string    `json:"session"`
	ConcludedAt time.Time `json:"concludedAt,omitzero"`
	Similarity  int       `json:"similarity"`
	Occurrences int       `json:"occurrences,omitempty"`
	RootCause   string    `json:"rootCause,omitempty"`
	Culprit     string    `json:"culprit,omitempty"`
	Fix         string    `json:"fix,omitempty"`
}

// Evidence is one observed fact and where it came from.
type Evidence struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	Source  string `json:"source"`
	TaskID  string `json:"taskId,omitempty"`
	Data    string `json:"data,omitempty"`
}

// Action is a remediation draft and what became of it.
type Action struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Command     string `json:"command,omitempty"`
	Risk        string `json:"risk"`
	Approval    string `json:"approval"`
	Result      string `json:"result,omitempty"`
}

// Usage is what the session consumed.
type Usage struct {
	ToolCalls        int64 `json:"toolCalls"`
	LLMCalls         int64 `json:"llmCalls"`
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
}

// MaxBytes bounds each rendering so that both fit in one ConfigMap (1 MiB).
const MaxBytes = 400 << 10

// JSON renders the report as indented JSON of at most MaxBytes, dropping evidence data
// and then evidence until it fits.
func JSON(r Report) ([]byte, error) {
	r.Evidence = append([]Evidence(nil), r.Evidence...)
	for attempt := 0; ; attempt++ {
		raw, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encoding report: %w", err)
		}
		if len(raw) <= MaxBytes || attempt > 20 {
			return raw, nil
		}
		if attempt == 0 {
			for i := range r.Evidence {
				r.Evidence[i].Data = ""
			}
			continue
		}
		r.Evidence = r.Evidence[:len(r.Evidence)/2]
	}
}

// Markdown renders the report for people, at most MaxBytes.
func Markdown(r Report) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	w("# Troubleshoot %s/%s\n\n", inline(r.Namespace), inline(r.Name))
	w("**Problem:** %s\n\n", inline(r.Problem))
	if r.Target != "" {
		w("**Target:** %s  \n", inline(r.Target))
	}
	w("**Mode:** %s  \n**Phase:** %s", inline(r.Mode), inline(r.Phase))
	if r.Outcome != "" {
		w(" (%s)", inline(r.Outcome))
	}
	w("  \n")
	if !r.StartTime.IsZero() {
		w("**Started:** %s", stamp(r.StartTime))
		if !r.EndTime.IsZero() {
			w(" · **Finished:** %s (%s)", stamp(r.EndTime), r.EndTime.Sub(r.StartTime).Round(time.Second))
		}
		w("\n")
	}
	if r.TraceID != "" {
		w("**Trace:** `%s`\n", inline(r.TraceID))
	}
	w("\n")

	w("## Root cause\n\n")
	if r.RootCause == nil {
		w("No root cause was named.\n\n")
	} else {
		rc := r.RootCause
		w("%s\n\n", inline(rc.Summary))
		w("- Category: %s\n- Confidence: %d%%\n", inline(rc.Category), rc.Confidence)
		if rc.Culprit != "" {
			w("- Culprit: `%s`\n", code(rc.Culprit))
		}
		if len(rc.Affected) > 0 {
			w("- Affected: %s\n", codeList(rc.Affected))
		}
		if len(rc.Evidence) > 0 {
			w("- Evidence: %s\n", strings.Join(anchors(rc.Evidence), ", "))
		}
		if len(rc.Chain) > 0 {
			w("\nHow it leads to the symptom:\n\n")
			for i, step := range rc.Chain {
				w("%d. %s\n", i+1, inline(step))
			}
		}
		w("\n")
	}
	if len(r.Alternatives) > 0 {
		w("### Other candidates\n\n")
		for _, a := range r.Alternatives {
			w("- %s (%s, %d%%)\n", inline(a.Summary), inline(a.Category), a.Confidence)
		}
		w("\n")
	}

	if sb := r.SeenBefore; sb != nil {
		w("## Seen before\n\n")
		w("Session `%s`", code(sb.Session))
		if !sb.ConcludedAt.IsZero() {
			w(" (%s)", stamp(sb.ConcludedAt))
		}
		w(" had a similar fingerprint (%d%%", sb.Similarity)
		if sb.Occurrences > 1 {
			w(", %d remembered sessions match", sb.Occurrences)
		}
		w(").\n\n")
		if sb.RootCause != "" {
			w("- Its root cause: %s\n", inline(sb.RootCause))
		}
		if sb.Culprit != "" {
			w("- Its culprit: `%s`\n", code(sb.Culprit))
		}
		if sb.Fix != "" {
			w("- Its fix: %s\n", inline(sb.Fix))
		} else {
			w("- It proposed no fix.\n")
		}
		w("\n")
	}

	w("## Remediation\n\n")
	if len(r.Actions) == 0 {
		w("No action proposed.\n\n")
	}
	for _, a := range r.Actions {
		w("- **%s** (%s risk, %s): %s\n", inline(a.ID), inline(a.Risk), inline(a.Approval), inline(a.Description))
		if a.Command != "" {
			w("\n%s\n", indentBlock(fenced(a.Command, "sh"), "  "))
		}
		if a.Result != "" {
			w("  Result: %s\n", inline(a.Result))
		}
	}
	if len(r.Actions) > 0 {
		w("\n")
	}
	if len(r.Validation) > 0 {
		w("### Validation\n\n")
		for _, v := range r.Validation {
			w("- `%s`\n", code(v))
		}
		w("\n")
	}

	w("## Evidence\n\n")
	if len(r.Evidence) == 0 {
		w("No evidence was recorded.\n\n")
	}
	for _, ev := range r.Evidence {
		w("- <a id=\"%s\"></a>**%s**: %s  \n  Source: %s", anchorID(ev.ID), inline(ev.ID), inline(ev.Summary), inline(ev.Source))
		if ev.TaskID != "" {
			w(" (task %s)", inline(ev.TaskID))
		}
		w("\n")
		if ev.Data != "" {
			w("\n%s\n", indentBlock(fenced(ev.Data, "text"), "  "))
		}
	}
	w("\n")

	w("## Investigation\n\n")
	for _, it := range r.Iterations {
		w("### Iteration %d\n\n", it.Number)
		w("| Task | What | State | Tool calls | Result |\n|---|---|---|---|---|\n")
		for _, t := range it.Tasks {
			w("| %s | %s | %s | %d | %s |\n", cell(t.ID), cell(t.Description), cell(t.State), t.ToolCalls, cell(t.Summary))
		}
		if it.Verdict != "" {
			w("\nRegulator: %s\n", inline(it.Verdict))
		}
		w("\n")
	}

	w("## Timeline\n\n")
	for _, m := range r.Timeline {
		w("- %s %s", stamp(m.At), inline(m.Phase))
		if m.Iteration > 0 {
			w(" (iteration %d)", m.Iteration)
		}
		if m.Note != "" {
			w(": %s", inline(m.Note))
		}
		w("\n")
	}
	w("\n## Usage\n\n- Tool calls: %d\n- LLM calls: %d (prompt tokens %d, completion tokens %d)\n",
		r.Usage.ToolCalls, r.Usage.LLMCalls, r.Usage.PromptTokens, r.Usage.CompletionTokens)

	out := b.String()
	if len(out) > MaxBytes {
		cut := MaxBytes - 64
		for cut > 0 && (out[cut]&0xC0) == 0x80 {
			cut--
		}
		out = out[:cut] + "\n\n… report truncated; see report.json\n"
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// inline escapes text for a Markdown paragraph: one line, no markup, no HTML.
func inline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '!', '~':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cell escapes text for a table cell.
func cell(s string) string { return inline(s) }

// code makes text safe inside a single-backtick code span.
func code(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "'")
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = "`" + code(it) + "`"
	}
	return strings.Join(out, ", ")
}

// fenced wraps text in a code fence longer than any backtick run inside it, so that
// untrusted content cannot close the fence.
func fenced(s, lang string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence
}

func indentBlock(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func anchorID(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors links evidence ids to their entries in the Evidence section.
func anchors(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "[" + inline(id) + "](#" + anchorID(id) + ")"
	}
	return out
}
