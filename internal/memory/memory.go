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

// Package memory is the incident memory of a namespace: each session that named a root
// cause leaves an entry (its fingerprint, root cause, fix and outcome), and a later session
// whose fingerprint is similar cites the earlier one as "seen before".
//
// The memory of a namespace is one ConfigMap, MemoryName, labelled as the operator's and
// owned by nothing, so it outlives the sessions it remembers and survives an operator
// restart. Every write is a read-modify-write guarded by the ConfigMap's resourceVersion
// (retried on conflict), so concurrent sessions never lose each other's entries. It holds at
// most MaxEntries entries (the oldest go first) and drops entries older than Retention on
// every write and ignores them on every read; each entry's text is clipped, so the
// ConfigMap stays far below its 1 MiB limit.
package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/kubage/kubage/internal/text"
)

const (
	// MemoryName is the name of the memory ConfigMap in each namespace.
	MemoryName = "kubage-incident-memory"
	// entriesKey is the ConfigMap key holding the entries as JSON.
	entriesKey = "entries.json"
	// LabelComponent and ComponentMemory mark the memory ConfigMap; LabelManagedBy and
	// ManagedBy say it is the operator's, like its other ConfigMaps.
	LabelComponent  = "app.kubernetes.io/component"
	ComponentMemory = "incident-memory"
	LabelManagedBy  = "app.kubernetes.io/managed-by"
	ManagedBy       = "kubage"

	// DefaultMaxEntries and DefaultRetention apply when a Store leaves them zero.
	DefaultMaxEntries = 50
	DefaultRetention  = 30 * 24 * time.Hour
	// DefaultMinSimilarity is the fingerprint similarity (percent) a match needs.
	DefaultMinSimilarity = 50

	// Bounds of one entry: at most 50 of them stay well under 1 MiB together.
	maxText        = 1024
	maxName        = 253
	maxSignals     = 32
	maxSignalBytes = 128
)

// Entry is one remembered incident.
type Entry struct {
	// Session and UID name the Troubleshoot; Run is its rerun token, so reruns are kept apart.
	Session string `json:"session"`
	UID     string `json:"uid"`
	Run     string `json:"run,omitempty"`
	// At is when the session concluded.
	At time.Time `json:"at"`
	// Fingerprint is the session's signals (see Fingerprint).
	Fingerprint Fingerprint `json:"fingerprint"`
	// RootCause, Category and Culprit ("Kind/name") are the conclusion.
	RootCause string `json:"rootCause"`
	Category  string `json:"category,omitempty"`
	Culprit   string `json:"culprit,omitempty"`
	// Fix is the remediation the session proposed, as a person would read it.
	Fix string `json:"fix,omitempty"`
	// Outcome is the session's outcome reason, e.g. RootCauseFound.
	Outcome string `json:"outcome,omitempty"`
}

// key identifies an entry; recording the same session run again replaces it.
func (e Entry) key() string { return e.UID + "/" + e.Run }

// Match is the best earlier entry for a fingerprint.
type Match struct {
	Entry Entry
	// Similarity of the fingerprints in percent.
	Similarity int
	// Occurrences counts the remembered entries that matched, this one included.
	Occurrences int
}

// Store reads and writes the memory ConfigMaps.
type Store struct {
	Client kubernetes.Interface
	// MaxEntries bounds the entries per namespace (DefaultMaxEntries when zero).
	MaxEntries int
	// Retention is how long an entry is kept (DefaultRetention when zero).
	Retention time.Duration
	// MinSimilarity is the similarity in percent a match needs (DefaultMinSimilarity when zero).
	MinSimilarity int
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu         sync.Mutex
	namespaces map[string]*nsMemory
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) maxEntries() int {
	if s.MaxEntries > 0 {
		return s.MaxEntries
	}
	return DefaultMaxEntries
}

func (s *Store) retention() time.Duration {
	if s.Retention > 0 {
		return s.Retention
	}
	return DefaultRetention
}

func (s *Store) minSimilarity() int {
	if s.MinSimilarity > 0 {
		return s.MinSimilarity
	}
	return DefaultMinSimilarity
}

// ErrNotManaged means a ConfigMap of the memory's name exists but is not the operator's.
var ErrNotManaged = errors.New("the incident memory ConfigMap exists but is not managed by kubage")

// Entries returns the live entries of a namespace, newest first.
func (s *Store) Entries(ctx context.Context, namespace string) ([]Entry, error) {
	cm, err := s.ns(namespace).read(ctx, s, namespace)
	if err != nil {
		return nil, fmt.Errorf("reading the incident memory: %w", err)
	}
	if cm == nil {
		return nil, nil
	}
	if !managed(cm) {
		return nil, ErrNotManaged
	}
	return s.live(decode(cm)), nil
}

// Find returns the most similar live entry to fp, excluding the entry of (uid, run), or
// nil when none reaches MinSimilarity. Ties go to the newest entry.
func (s *Store) Find(ctx context.Context, namespace string, fp Fingerprint, uid, run string) (*Match, error) {
	entries, err := s.Entries(ctx, namespace)
	if err != nil {
		return nil, err
	}
	var best *Match
	count := 0
	self := Entry{UID: uid, Run: run}.key()
	for _, e := range entries {
		if e.key() == self {
			continue
		}
		sim := fp.Similarity(e.Fingerprint)
		if sim < s.minSimilarity() {
			continue
		}
		count++
		if best == nil || sim > best.Similarity {
			best = &Match{Entry: e, Similarity: sim}
		}
	}
	if best != nil {
		best.Occurrences = count
	}
	return best, nil
}

// Record adds or replaces e's entry in its namespace's memory, then drops expired entries
// and the oldest beyond MaxEntries, in one conflict-checked update, and returns once that
// update is stored. Sessions that conclude together share updates: entries recorded while
// a write of the namespace is under way go together in the next one, so a burst of them
// costs far fewer writes than entries, and each caller still learns how its own ended.
func (s *Store) Record(ctx context.Context, namespace string, e Entry) error {
	m := s.ns(namespace)
	r := &recording{entry: bound(e), done: make(chan struct{})}
	m.queueMu.Lock()
	m.queue = append(m.queue, r)
	m.queueMu.Unlock()
	// This process's writers take turns, so they do not conflict with one another, and
	// each starts from the version the previous one wrote.
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-r.done:
		// The writer before took this entry along.
		return r.err
	default:
	}
	m.queueMu.Lock()
	batch := m.queue
	m.queue = nil
	m.queueMu.Unlock()
	entries := make([]Entry, 0, len(batch))
	for _, b := range batch {
		entries = append(entries, b.entry)
	}
	err := s.write(ctx, namespace, m, entries)
	for _, b := range batch {
		b.err = err
		close(b.done)
	}
	return err
}

// recording is an entry waiting for the write that stores it.
type recording struct {
	entry Entry
	done  chan struct{}
	err   error
}

// write stores added in the namespace's memory (a later entry of a key replaces an
// earlier one), retrying on conflict; the caller holds m.mu.
func (s *Store) write(ctx context.Context, namespace string, m *nsMemory, added []Entry) error {
	cms := s.Client.CoreV1().ConfigMaps(namespace)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := m.base(ctx, cms)
		create := apierrors.IsNotFound(err)
		switch {
		case create:
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: MemoryName, Namespace: namespace,
				Labels: map[string]string{LabelComponent: ComponentMemory, LabelManagedBy: ManagedBy},
			}}
		case err != nil:
			return fmt.Errorf("reading the incident memory: %w", err)
		case !managed(cm):
			return ErrNotManaged
		}
		entries := make([]Entry, 0, len(added)+s.maxEntries())
		seen := map[string]bool{}
		for i := len(added) - 1; i >= 0; i-- {
			if k := added[i].key(); !seen[k] {
				seen[k] = true
				entries = append(entries, added[i])
			}
		}
		for _, old := range decode(cm) {
			if !seen[old.key()] {
				entries = append(entries, old)
			}
		}
		entries = s.live(entries)
		if len(entries) > s.maxEntries() {
			entries = entries[:s.maxEntries()]
		}
		raw, err := json.Marshal(entries)
		if err != nil {
			return err
		}
		cm.Data = map[string]string{entriesKey: string(raw)}
		var out *corev1.ConfigMap
		if create {
			out, err = cms.Create(ctx, cm, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				// Another writer created it first: read it and merge again.
				err = apierrors.NewConflict(corev1.Resource("configmaps"), MemoryName, err)
			}
		} else {
			out, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			if apierrors.IsNotFound(err) {
				// Deleted meanwhile: read again, which finds it missing, and create it.
				err = apierrors.NewConflict(corev1.Resource("configmaps"), MemoryName, err)
			}
		}
		m.wrote(out, err, s.now())
		return err
	})
}

// live drops expired entries and sorts the rest newest first.
func (s *Store) live(entries []Entry) []Entry {
	cutoff := s.now().Add(-s.retention())
	out := entries[:0:0]
	for _, e := range entries {
		if e.At.After(cutoff) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	return out
}

func managed(cm *corev1.ConfigMap) bool {
	return cm.Labels[LabelManagedBy] == ManagedBy && cm.Labels[LabelComponent] == ComponentMemory
}

// decode reads the entries of cm; a damaged memory reads as empty rather than failing
// every session of the namespace (the next write replaces it).
func decode(cm *corev1.ConfigMap) []Entry {
	var entries []Entry
	if err := json.Unmarshal([]byte(cm.Data[entriesKey]), &entries); err != nil {
		return nil
	}
	for i := range entries {
		entries[i] = bound(entries[i])
	}
	return entries
}

// bound clips an entry's text, so that MaxEntries entries always fit in one ConfigMap.
func bound(e Entry) Entry {
	e.Session = text.Clip(e.Session, maxName)
	e.UID = text.Clip(e.UID, 64)
	e.Run = text.Clip(e.Run, 64)
	e.RootCause = text.ClipMarked(e.RootCause, maxText-3)
	e.Category = text.Clip(e.Category, 63)
	e.Culprit = text.Clip(e.Culprit, maxName+64)
	e.Fix = text.ClipMarked(e.Fix, maxText-3)
	e.Outcome = text.Clip(e.Outcome, 63)
	e.Fingerprint = NewFingerprint(e.Fingerprint.Root, e.Fingerprint.Signals...)
	return e
}
