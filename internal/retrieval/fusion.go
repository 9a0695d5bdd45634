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

package retrieval

import "sort"

// Fused is one item of a fused ranking.
type Fused struct {
	ID    string
	Score float64
	// Ranks holds the item's 1-based rank in each leg that returned it.
	Ranks map[Leg]int
}

// RRF fuses ranked id lists with Reciprocal Rank Fusion:
// score(d) = Σ_leg weight(leg) / (k + rank_leg(d)). Ties are broken by the best
// single-leg rank, then by id, so the output is deterministic.
func RRF(lists map[Leg][]string, f Fusion) []Fused {
	k := f.k()
	byID := map[string]*Fused{}
	var order []*Fused
	for _, leg := range sortedLegs(lists) {
		w := f.weight(leg)
		for i, id := range lists[leg] {
			it := byID[id]
			if it == nil {
				it = &Fused{ID: id, Ranks: map[Leg]int{}}
				byID[id] = it
				order = append(order, it)
			}
			if _, dup := it.Ranks[leg]; dup {
				continue // a leg listing an id twice counts once, at its best rank
			}
			it.Ranks[leg] = i + 1
			it.Score += w / (k + float64(i+1))
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if ba, bb := bestRank(a), bestRank(b); ba != bb {
			return ba < bb
		}
		return a.ID < b.ID
	})
	out := make([]Fused, len(order))
	for i, it := range order {
		out[i] = *it
	}
	return out
}

func bestRank(f *Fused) int {
	best := int(^uint(0) >> 1)
	for _, r := range f.Ranks {
		best = min(best, r)
	}
	return best
}

// sortedLegs returns the legs present in lists in AllLegs order, then any others by name.
func sortedLegs(lists map[Leg][]string) []Leg {
	var out []Leg
	for _, l := range AllLegs {
		if _, ok := lists[l]; ok {
			out = append(out, l)
		}
	}
	var extra []Leg
	for l := range lists {
		if !contains(legStrings(AllLegs), string(l)) {
			extra = append(extra, l)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	return append(out, extra...)
}
