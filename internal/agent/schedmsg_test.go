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
	"fmt"
	"strings"
	"testing"
)

// The scheduler's message shapes, as its filter plugins word them, split into clauses.
func TestParseSchedMessage(t *testing.T) {
	type cl = SchedClause
	cases := []struct {
		msg   string
		total int
		want  []cl
		pre   *SchedPreemption
		head  string
	}{
		{msg: "0/9 nodes are available: 1 Insufficient example.com/gpu, 1 node(s) didn't have free ports for the requested pod ports, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod topology spread constraints, 1 node(s) didn't satisfy existing pods anti-affinity rules, 1 node(s) had untolerated taint {dedicated: infra}, 1 node(s) had volume node affinity conflict, 1 node(s) were unschedulable, 1 Insufficient cpu. preemption: 0/9 nodes are available: 2 No preemption victims found for incoming pod, 7 Preemption is not helpful for scheduling.",
			total: 9,
			want: []cl{
				{Nodes: 1, Kind: ClauseInsufficient, Resource: "example.com/gpu"},
				{Nodes: 1, Kind: ClausePorts},
				{Nodes: 1, Kind: ClauseNodeAffinity},
				{Nodes: 1, Kind: ClauseSpread},
				{Nodes: 1, Kind: ClauseAntiAffinity},
				{Nodes: 1, Kind: ClauseTaint, Taint: "dedicated: infra"},
				{Nodes: 1, Kind: ClauseVolumeAffinity},
				{Nodes: 1, Kind: ClauseCordoned},
				{Nodes: 1, Kind: ClauseInsufficient, Resource: "cpu"},
			},
			pre: &SchedPreemption{NoVictims: 2, NotHelpful: 7}},
		{msg: "0/4 nodes are available: 2 Too many pods, 2 node(s) had untolerated taint(s). preemption: not eligible due to preemptionPolicy=Never.",
			total: 4,
			want:  []cl{{Nodes: 2, Kind: ClauseInsufficient, Resource: "pods"}, {Nodes: 2, Kind: ClauseTaint}},
			pre:   &SchedPreemption{NotEligible: "preemptionPolicy=Never"}},
		{msg: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
			total: 3, head: "pod has unbound immediate PersistentVolumeClaims", pre: &SchedPreemption{NotHelpful: 3}},
		{msg: "0/2 nodes are available: 1 node(s) had untolerated taint {team: a,b}, 1 node(s) didn't find available persistent volumes to bind.",
			total: 2, want: []cl{{Nodes: 1, Kind: ClauseTaint, Taint: "team: a,b"}, {Nodes: 1, Kind: ClauseVolume}}},
		{msg: "0/5 nodes are available: 5 node(s) didn't match pod anti-affinity rules, 0 node(s) didn't match the requested node name.",
			total: 5, want: []cl{{Nodes: 5, Kind: ClauseAntiAffinity}, {Nodes: 0, Kind: ClauseNodeAffinity}}},
		{msg: "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) didn't match PersistentVolume's node affinity. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
			total: 2,
			want:  []cl{{Nodes: 1, Kind: ClauseInsufficient, Resource: "cpu"}, {Nodes: 1, Kind: ClauseInsufficient, Resource: "memory"}, {Nodes: 1, Kind: ClauseVolumeAffinity}},
			pre:   &SchedPreemption{NoVictims: 1, NotHelpful: 1}},
		{msg: "0/21 nodes are available: 1 Insufficient nvidia.com/gpu, 15 node(s) had untolerated taint(s), 4 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/21 nodes are available: 1 No preemption victims found for incoming pod, 20 Preemption is not helpful for scheduling.",
			total: 21, head: "no new claims to deallocate",
			want: []cl{{Nodes: 1, Kind: ClauseInsufficient, Resource: "nvidia.com/gpu"}, {Nodes: 15, Kind: ClauseTaint}, {Nodes: 4, Kind: ClauseNodeAffinity}},
			pre:  &SchedPreemption{NoVictims: 1, NotHelpful: 20}},
		{msg: "", want: nil},
		{msg: "garbage ::: {{{ 99999999999999999999 Insufficient", want: nil, head: "garbage ::: {{{ 99999999999999999999 Insufficient"},
	}
	for _, c := range cases {
		m := ParseSchedMessage(c.msg)
		if m.Total != c.total || len(m.Clauses) != len(c.want) || m.Head != c.head {
			t.Fatalf("ParseSchedMessage(%q) = total %d, %d clauses %+v, head %q; want %d, %d, %q", c.msg, m.Total, len(m.Clauses), m.Clauses, m.Head, c.total, len(c.want), c.head)
		}
		for i, w := range c.want {
			g := m.Clauses[i]
			if g.Nodes != w.Nodes || g.Kind != w.Kind || g.Resource != w.Resource || g.Taint != w.Taint {
				t.Errorf("clause %d of %q = %+v, want %+v", i, c.msg, g, w)
			}
		}
		switch {
		case c.pre == nil && m.Preemption != nil:
			t.Errorf("%q: unexpected preemption %+v", c.msg, m.Preemption)
		case c.pre != nil && m.Preemption == nil:
			t.Errorf("%q: no preemption part", c.msg)
		case c.pre != nil && (m.Preemption.NotEligible != c.pre.NotEligible || m.Preemption.NoVictims != c.pre.NoVictims || m.Preemption.NotHelpful != c.pre.NotHelpful):
			t.Errorf("%q: preemption %+v, want %+v", c.msg, m.Preemption, c.pre)
		}
	}
}

// Hostile input stays bounded: clauses and text are capped whatever the message holds.
func TestParseSchedMessageBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("0/100000 nodes are available: ")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "%d node(s) had untolerated taint {k%d: %s}, ", i, i, strings.Repeat("v", 50))
	}
	m := ParseSchedMessage(b.String() + "preemption: " + strings.Repeat("{", 10000))
	if len(m.Clauses) > maxSchedClauses {
		t.Fatalf("%d clauses", len(m.Clauses))
	}
	for _, c := range m.Clauses {
		if len(c.Text) > maxClauseText+4 {
			t.Fatalf("clause text of %d bytes", len(c.Text))
		}
	}
}

// The clause to act on is the one that alone blocks the most nodes the pod may use: a node
// counted under a taint that also lacks the cpu is not freed by removing the taint, and nodes
// the pod does not select are not candidates at all.
func TestLeadClause(t *testing.T) {
	node := func(kinds ...ClauseKind) *nodeBlock {
		b := &nodeBlock{kinds: map[ClauseKind]bool{}}
		for _, k := range kinds {
			b.kinds[k] = true
		}
		return b
	}
	excluded := node(ClauseNodeAffinity)
	excluded.excluded = true
	cases := []struct {
		name   string
		msg    string
		blocks []*nodeBlock
		want   ClauseKind
		freed  int
	}{
		{"tainted nodes are short too", "0/3 nodes are available: 2 node(s) had untolerated taint {team: ml}, 1 Insufficient cpu.",
			[]*nodeBlock{node(ClauseTaint, ClauseInsufficient), node(ClauseTaint, ClauseInsufficient), node(ClauseInsufficient)}, ClauseInsufficient, 1},
		{"the volume pins the pod to the full node", "0/4 nodes are available: 1 Insufficient memory, 2 node(s) had volume node affinity conflict, 1 node(s) didn't match Pod's node affinity/selector.",
			[]*nodeBlock{node(ClauseInsufficient), node(ClauseVolumeAffinity), node(ClauseVolumeAffinity), excluded}, ClauseVolumeAffinity, 2},
		{"nodes the cluster shows no reason for are the spread's", "0/3 nodes are available: 2 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint {ml: true}.",
			[]*nodeBlock{node(), node(), node(ClauseTaint)}, ClauseSpread, 2},
		{"other teams' tainted pools do not outvote the pod's own node", "0/4 nodes are available: 1 node(s) didn't find available persistent volumes to bind, 3 node(s) had untolerated taint {dedicated: other}.",
			[]*nodeBlock{node(), node(ClauseTaint), node(ClauseTaint), node(ClauseTaint)}, ClauseVolume, 1},
		{"every node blocked twice", "0/2 nodes are available: 2 node(s) were unschedulable.",
			[]*nodeBlock{node(ClauseCordoned, ClauseTaint), node(ClauseCordoned, ClauseInsufficient)}, "", 0},
		{"no candidate", "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
			[]*nodeBlock{excluded}, "", 0},
	}
	for _, c := range cases {
		v := &schedView{blocks: c.blocks}
		got, freed, _ := v.leadClause(ParseSchedMessage(c.msg))
		if got != c.want || freed != c.freed {
			t.Errorf("%s: lead %q freeing %d, want %q freeing %d", c.name, got, freed, c.want, c.freed)
		}
	}
}
