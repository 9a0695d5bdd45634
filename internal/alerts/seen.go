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
	"container/list"
	"sync"
	"time"
)

// seenCache remembers, per fingerprint, the latest session the receiver created or found,
// so that repeats are answered without an API write and new occurrences inside the
// cooldown are skipped. It is bounded (least recently used out) and per replica: the API
// server's AlreadyExists stays the source of truth for duplicates.
type seenCache struct {
	mu      sync.Mutex
	max     int
	retain  time.Duration
	entries map[string]*list.Element
	lru     *list.List
}

type seenEntry struct {
	fingerprint string
	name        string    // session of the latest occurrence
	createdAt   time.Time // when that session was first seen by this replica
	lastSeen    time.Time
	resolved    bool
}

func newSeenCache(max int, retain time.Duration) *seenCache {
	if max <= 0 {
		max = 100000
	}
	return &seenCache{max: max, retain: retain, entries: map[string]*list.Element{}, lru: list.New()}
}

// get returns a copy of the entry for a fingerprint, if it is still retained.
func (c *seenCache) get(fp string, now time.Time) (seenEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[fp]
	if !ok {
		return seenEntry{}, false
	}
	e := el.Value.(*seenEntry)
	if now.Sub(e.lastSeen) > c.retain {
		c.lru.Remove(el)
		delete(c.entries, fp)
		return seenEntry{}, false
	}
	e.lastSeen = now
	c.lru.MoveToFront(el)
	return *e, true
}

// put records that the session for a fingerprint exists; a new name restarts the cooldown.
func (c *seenCache) put(fp, name string, now time.Time) {
	c.update(fp, name, now, false)
}

// putCreated records a session found in the cluster, whose cooldown began when it was
// created rather than when this replica met it.
func (c *seenCache) putCreated(fp, name string, created, now time.Time) {
	c.update(fp, name, now, false)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[fp]; ok && el.Value.(*seenEntry).name == name {
		el.Value.(*seenEntry).createdAt = created
	}
}

// markResolved records that the session's alert resolved, so that repeated resolved
// notifications need no further write.
func (c *seenCache) markResolved(fp, name string, now time.Time) {
	c.update(fp, name, now, true)
}

func (c *seenCache) update(fp, name string, now time.Time, resolved bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[fp]; ok {
		e := el.Value.(*seenEntry)
		switch {
		case e.name == name:
			e.resolved = e.resolved || resolved
		case resolved:
			// An older occurrence resolving says nothing about the latest one.
		default:
			e.name, e.createdAt, e.resolved = name, now, false
		}
		e.lastSeen = now
		c.lru.MoveToFront(el)
		return
	}
	c.entries[fp] = c.lru.PushFront(&seenEntry{fingerprint: fp, name: name, createdAt: now, lastSeen: now, resolved: resolved})
	for c.lru.Len() > c.max {
		oldest := c.lru.Back()
		c.lru.Remove(oldest)
		delete(c.entries, oldest.Value.(*seenEntry).fingerprint)
	}
}

// len is the number of fingerprints held.
func (c *seenCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
