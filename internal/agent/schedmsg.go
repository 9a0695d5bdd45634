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
	"strconv"
	"strings"
)

// The scheduler explains an unschedulable pod in one line: "0/N nodes are available: " then
// one clause per reason, each "<count> <reason>", sorted and joined by ", ", then an optional
// "preemption: ..." part of the same shape (or "not eligible due to ..."). Each node is
// counted under the first filter that turned it away, so the counts add up to N. The text is
// untrusted (an event anyone in the namespace may write): the parser is bounded in input and
// in clauses, and never fails.

// ClauseKind is the filter a clause of the scheduler's message comes from.
type ClauseKind string

const (
	ClauseInsufficient   ClauseKind = "insufficient"    // NodeResourcesFit: "Insufficient cpu", "Too many pods"
	ClauseTaint          ClauseKind = "taint"           // TaintToleration
	ClauseNodeAffinity   ClauseKind = "node-affinity"   // NodeAffinity, NodeName
	ClauseCordoned       ClauseKind = "cordoned"        // NodeUnschedulable
	ClausePorts          ClauseKind = "ports"           // NodePorts
	ClauseVolumeAffinity ClauseKind = "volume-affinity" // VolumeBinding: volume node affinity conflict
	ClauseVolume         ClauseKind = "volume"          // other volume filters (no PV to bind, zone, limits)
	ClauseSpread         ClauseKind = "topology-spread"
	ClauseAntiAffinity   ClauseKind = "anti-affinity" // InterPodAffinity: the pod's or existing pods' anti-affinity
	ClausePodAffinity    ClauseKind = "pod-affinity"
	ClauseOther          ClauseKind = "other"
)

// SchedClause is one "<count> <reason>" of a scheduler message.
type SchedClause struct {
	Nodes int
	Kind  ClauseKind
	// Text is the reason as printed (bounded).
	Text string
	// Resource is the resource of an Insufficient clause ("cpu", "example.com/gpu", "pods").
	Resource string
	// Taint is the "key: value" of a taint clause when the scheduler printed it.
	Taint string
}

// SchedMessage is a scheduler message split into its clauses.
type SchedMessage struct {
	// Total is N of "0/N nodes are available" (0 when absent).
	Total   int
	Clauses []SchedClause
	// Head is the text before the first clause that is not a clause itself ("pod has unbound
	// immediate PersistentVolumeClaims"), bounded.
	Head string
	// Preemption is the preemption part; nil when the message has none.
	Preemption *SchedPreemption
}

// SchedPreemption is what the scheduler says after "preemption:".
type SchedPreemption struct {
	// NotEligible is the reason the pod may not preempt at all ("preemptionPolicy=Never").
	NotEligible string
	// NoVictims counts nodes where no lower-priority pod could be evicted; NotHelpful counts
	// nodes where evicting would not help (the reason is not resources).
	NoVictims, NotHelpful int
	Clauses               []SchedClause
}

const (
	maxSchedMessage = 4000
	maxSchedClauses = 24
	maxClauseText   = 240
)

// ParseSchedMessage splits a FailedScheduling message into clauses.
func ParseSchedMessage(msg string) SchedMessage {
	msg = clipString(strings.TrimSpace(msg), maxSchedMessage)
	var m SchedMessage
	head, pre, hasPre := strings.Cut(msg, "preemption:")
	m.Total, m.Clauses, m.Head = parseClauses(head)
	if hasPre {
		p := &SchedPreemption{}
		pre = strings.TrimSpace(pre)
		if rest, ok := strings.CutPrefix(pre, "not eligible due to "); ok {
			p.NotEligible = clipString(strings.TrimRight(rest, ". "), maxClauseText)
		} else {
			_, p.Clauses, _ = parseClauses(pre)
			for _, c := range p.Clauses {
				low := strings.ToLower(c.Text)
				switch {
				case strings.Contains(low, "no preemption victims"):
					p.NoVictims += c.Nodes
				case strings.Contains(low, "not helpful"):
					p.NotHelpful += c.Nodes
				}
			}
		}
		m.Preemption = p
	}
	return m
}

// parseClauses reads "0/N nodes are available: c1, c2." into N and its clauses.
func parseClauses(s string) (int, []SchedClause, string) {
	total := 0
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "nodes are available"); i >= 0 {
		if j := strings.LastIndex(s[:i], "/"); j >= 0 {
			total, _ = strconv.Atoi(strings.TrimSpace(s[j+1 : i]))
		}
		s = s[i+len("nodes are available"):]
		s = strings.TrimPrefix(strings.TrimSpace(s), ":")
	}
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
	var out []SchedClause
	var head []string
	for _, part := range splitClauses(s) {
		n, text, ok := leadingCount(part)
		if !ok {
			if len(head) < 4 {
				head = append(head, clipString(part, maxClauseText))
			}
			continue
		}
		if len(out) == maxSchedClauses {
			break
		}
		// A sentence after the last clause ("... selector. no new claims to deallocate,") is
		// another plugin's note, not part of the reason.
		if i := strings.Index(text, ". "); i > 0 && !strings.Contains(text[:i], "{") {
			if len(head) < 4 {
				head = append(head, clipString(strings.Trim(text[i+2:], " ,."), maxClauseText))
			}
			text = text[:i]
		}
		out = append(out, classifyClause(n, text))
	}
	return total, out, strings.Join(head, ", ")
}

// splitClauses cuts at ", " followed by a digit, outside braces (a printed taint may hold a
// comma in an unusual value).
func splitClauses(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s) && len(out) < 4*maxSchedClauses; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 && i+2 < len(s) && s[i+1] == ' ' && s[i+2] >= '0' && s[i+2] <= '9' {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 2
			}
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// leadingCount reads "12 rest" into 12 and "rest".
func leadingCount(s string) (int, string, bool) {
	i := 0
	for i < len(s) && i < 7 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != ' ' {
		return 0, "", false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil {
		return 0, "", false
	}
	return n, strings.TrimSpace(s[i+1:]), true
}

func classifyClause(n int, text string) SchedClause {
	text = clipString(text, maxClauseText)
	c := SchedClause{Nodes: n, Text: text, Kind: ClauseOther}
	low := strings.ToLower(text)
	switch {
	case strings.HasPrefix(low, "insufficient "):
		c.Kind = ClauseInsufficient
		c.Resource = strings.TrimSpace(text[len("insufficient "):])
	case strings.Contains(low, "too many pods"):
		c.Kind, c.Resource = ClauseInsufficient, "pods"
	case strings.Contains(low, "taint"):
		c.Kind = ClauseTaint
		if i := strings.Index(text, "{"); i >= 0 {
			if j := strings.LastIndex(text, "}"); j > i {
				c.Taint = strings.TrimSpace(text[i+1 : j])
			}
		}
	case strings.Contains(low, "were unschedulable"):
		c.Kind = ClauseCordoned
	case strings.Contains(low, "free ports"):
		c.Kind = ClausePorts
	case strings.Contains(low, "volume node affinity") || strings.Contains(low, "persistentvolume") && strings.Contains(low, "affinity"):
		c.Kind = ClauseVolumeAffinity
	case strings.Contains(low, "topology spread"):
		c.Kind = ClauseSpread
	case strings.Contains(low, "anti-affinity"):
		c.Kind = ClauseAntiAffinity
	case strings.Contains(low, "pod affinity"):
		c.Kind = ClausePodAffinity
	case strings.Contains(low, "node affinity") || strings.Contains(low, "node selector") || strings.Contains(low, "affinity/selector") || strings.Contains(low, "node name"):
		c.Kind = ClauseNodeAffinity
	case strings.Contains(low, "volume") || strings.Contains(low, "storage") || strings.Contains(low, "disk"):
		c.Kind = ClauseVolume
	}
	return c
}

// count is the nodes the message puts under kind.
func (m SchedMessage) count(kind ClauseKind) int {
	n := 0
	for _, c := range m.Clauses {
		if c.Kind == kind {
			n += c.Nodes
		}
	}
	return n
}

// resources are the resources of the message's Insufficient clauses, in order.
func (m SchedMessage) resources() []string {
	var out []string
	for _, c := range m.Clauses {
		if c.Kind == ClauseInsufficient && c.Resource != "" && !containsStr(out, c.Resource) {
			out = append(out, c.Resource)
		}
	}
	return out
}
