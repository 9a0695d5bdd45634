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
	"fmt"
	"testing"
	"time"
)

func TestSeenCache(t *testing.T) {
	c := newSeenCache(3, time.Hour)
	t0 := time.Unix(1000, 0)
	c.put("f1", "n1", t0)
	if e, ok := c.get("f1", t0.Add(time.Minute)); !ok || e.name != "n1" || !e.createdAt.Equal(t0) || e.resolved {
		t.Fatalf("get: %+v %v", e, ok)
	}
	c.put("f1", "n1", t0.Add(2*time.Minute))
	if e, _ := c.get("f1", t0.Add(3*time.Minute)); !e.createdAt.Equal(t0) {
		t.Fatal("a repeat must not restart the cooldown")
	}
	c.markResolved("f1", "n0", t0.Add(4*time.Minute))
	if e, _ := c.get("f1", t0.Add(4*time.Minute)); e.name != "n1" || e.resolved {
		t.Fatal("an older occurrence resolving must not touch the latest")
	}
	c.markResolved("f1", "n1", t0.Add(5*time.Minute))
	if e, _ := c.get("f1", t0.Add(5*time.Minute)); !e.resolved {
		t.Fatal("resolution not recorded")
	}
	c.put("f1", "n2", t0.Add(6*time.Minute))
	if e, _ := c.get("f1", t0.Add(6*time.Minute)); e.name != "n2" || e.resolved || !e.createdAt.Equal(t0.Add(6*time.Minute)) {
		t.Fatalf("a new occurrence must replace the entry: %+v", e)
	}
	if _, ok := c.get("f1", t0.Add(2*time.Hour)); ok {
		t.Fatal("entry outlived its retention")
	}
	for i := 0; i < 10; i++ {
		c.put(fmt.Sprint("g", i), "n", t0)
	}
	if c.len() != 3 {
		t.Fatalf("%d entries, bound 3", c.len())
	}
	if _, ok := c.get("g9", t0); !ok {
		t.Fatal("the most recent entry was evicted")
	}
}
