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

// Command scenarios prints the scenario catalogue without a cluster: one line per scenario
// (name, split, hops, class, source), then the counts per split and class.
package main

import (
	"flag"
	"fmt"

	"github.com/kubage/kubage/test/scenarios"
)

func main() {
	summary := flag.Bool("summary", true, "print counts per split and class after the list")
	flag.Parse()
	all := scenarios.All()
	split := map[scenarios.Split]int{}
	class := map[scenarios.Class]int{}
	multi := 0
	for _, s := range all {
		fmt.Println(s.ListLine())
		split[s.Split()]++
		class[s.Class]++
		if s.HopCount() >= 2 {
			multi++
		}
	}
	if !*summary {
		return
	}
	fmt.Printf("\n%d scenarios: %d tune, %d heldout; %d need 2 or more hops\n", len(all), split[scenarios.Tune], split[scenarios.HeldOut], multi)
	for c := scenarios.ClassSingle; c <= scenarios.ClassOutside; c++ {
		fmt.Printf("class %d: %d\n", c, class[c])
	}
}
