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
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// journalFile is the journal's name inside its directory.
const journalFile = "intake.jsonl"

// Compaction rewrites the journal with its pending records only once this many finished
// records have piled up (and they outnumber the pending ones).
const compactAfterDone = 20000

// Journal is the receiver's durable list of accepted sessions not yet created: an
// append-only file of JSON lines on the manager's volume. An accepted session is appended
// and fsynced (one fsync per group of concurrent appends) before its sender is answered;
// a finished one is appended without waiting, since replaying it again only costs an
// AlreadyExists. A killed process replays the file on start. One process owns a journal.
type Journal struct {
	dir string

	lock    *os.File // holds an exclusive flock on the directory's lock file
	mu      sync.Mutex
	f       *os.File
	buf     []byte          // records not written yet
	waiters []chan error    // appenders waiting for buf's fsync
	pending map[string]jRec // accepted and not finished, by namespace/name
	order   []string        // pending keys in acceptance order (may hold finished keys)
	done    int             // finished records in the file
	compact int             // done count that triggers compaction
	kick    chan struct{}
	closed  bool
	err     error // a failed write or fsync: the journal refuses further appends
}

// jRec is one line of the journal: an accepted session or a finished key.
type jRec struct {
	At      time.Time                    `json:"at,omitzero"`
	Session *kubagev1alpha1.Troubleshoot `json:"add,omitempty"`
	Done    string                       `json:"done,omitempty"`
}

// OpenJournal opens (creating it when missing) the journal in dir, reads back the
// sessions accepted and not finished before the last stop, and rewrites the file with
// those only. A torn last line, left by a kill in the middle of a write that was never
// acknowledged, is dropped.
func OpenJournal(dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("alert journal: %w", err)
	}
	// One process owns a journal: a second manager pointed at the same volume would
	// replay and rewrite the first one's records under its feet.
	lock, err := os.OpenFile(filepath.Join(dir, journalFile+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("alert journal: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("alert journal %s is in use by another process: %w", dir, err)
	}
	j := &Journal{dir: dir, lock: lock, pending: map[string]jRec{}, kick: make(chan struct{}, 1), compact: compactAfterDone}
	if err := j.load(); err != nil {
		_ = lock.Close()
		return nil, err
	}
	if err := j.rewrite(); err != nil {
		_ = lock.Close()
		return nil, err
	}
	go j.flusher()
	return j, nil
}

func (j *Journal) path() string { return filepath.Join(j.dir, journalFile) }

func (j *Journal) load() error {
	f, err := os.Open(j.path())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("alert journal: %w", err)
	}
	defer func() { _ = f.Close() }()
	r := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			// A line without its newline was being written when the process died.
			return nil
		}
		if err != nil {
			return fmt.Errorf("alert journal: %w", err)
		}
		var rec jRec
		if json.Unmarshal(line, &rec) != nil {
			// Only the tail can be torn; stop at the first line that does not parse.
			return nil
		}
		switch {
		case rec.Session != nil:
			key := rec.Session.Namespace + "/" + rec.Session.Name
			if _, ok := j.pending[key]; !ok {
				j.order = append(j.order, key)
			}
			j.pending[key] = rec
		case rec.Done != "":
			delete(j.pending, rec.Done)
		}
	}
}

// Pending returns the sessions accepted and not finished, oldest first, with the time
// each was accepted.
func (j *Journal) Pending() ([]*kubagev1alpha1.Troubleshoot, []time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*kubagev1alpha1.Troubleshoot
	var at []time.Time
	for _, key := range j.pendingOrder() {
		rec := j.pending[key]
		out = append(out, rec.Session.DeepCopy())
		at = append(at, rec.At)
	}
	return out, at
}

// pendingOrder is the keys of the pending sessions in acceptance order, each once: order
// may still hold finished keys, and a key accepted again after it finished twice. j.mu is
// held (or the journal is not shared yet).
func (j *Journal) pendingOrder() []string {
	order := j.order[:0:0]
	listed := map[string]bool{}
	for _, key := range j.order {
		if _, ok := j.pending[key]; ok && !listed[key] {
			listed[key] = true
			order = append(order, key)
		}
	}
	return order
}

// session returns the pending session of a namespace/name key.
func (j *Journal) session(key string) (*kubagev1alpha1.Troubleshoot, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	rec, ok := j.pending[key]
	if !ok {
		return nil, false
	}
	return rec.Session.DeepCopy(), true
}

// has says whether a namespace/name key is pending, without copying its session.
func (j *Journal) has(key string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.pending[key]
	return ok
}

// Len is the number of pending sessions.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.pending)
}

// Accept records a session durably: it returns once the record is on disk.
func (j *Journal) Accept(ts *kubagev1alpha1.Troubleshoot, at time.Time) error {
	line, err := json.Marshal(jRec{At: at.UTC(), Session: ts})
	if err != nil {
		return fmt.Errorf("alert journal: %w", err)
	}
	key := ts.Namespace + "/" + ts.Name
	ch := make(chan error, 1)
	j.mu.Lock()
	if err := j.usable(); err != nil {
		j.mu.Unlock()
		return err
	}
	j.buf = append(append(j.buf, line...), '\n')
	j.waiters = append(j.waiters, ch)
	if _, ok := j.pending[key]; !ok {
		j.order = append(j.order, key)
	}
	j.pending[key] = jRec{At: at.UTC(), Session: ts.DeepCopy()}
	j.mu.Unlock()
	j.signal()
	return <-ch
}

// Finish records that a session exists (or can never be created); it does not wait for
// the disk.
func (j *Journal) Finish(namespace, name string) {
	key := namespace + "/" + name
	line, _ := json.Marshal(jRec{Done: key})
	j.mu.Lock()
	if _, ok := j.pending[key]; ok && j.usable() == nil {
		delete(j.pending, key)
		j.buf = append(append(j.buf, line...), '\n')
		j.done++
	}
	j.mu.Unlock()
	j.signal()
}

// Close writes what is buffered and closes the file.
func (j *Journal) Close() error {
	ch := make(chan error, 1)
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.waiters = append(j.waiters, ch)
	j.closed = true
	j.mu.Unlock()
	j.signal()
	return <-ch
}

func (j *Journal) usable() error {
	switch {
	case j.err != nil:
		return j.err
	case j.closed:
		return errors.New("alert journal is closed")
	}
	return nil
}

func (j *Journal) signal() {
	select {
	case j.kick <- struct{}{}:
	default:
	}
}

// flusher writes and fsyncs what has accumulated since its last round, so that concurrent
// appenders share one fsync, and compacts the file when finished records dominate it.
func (j *Journal) flusher() {
	for range j.kick {
		j.mu.Lock()
		buf, waiters, closing := j.buf, j.waiters, j.closed
		j.buf, j.waiters = nil, nil
		var err error
		switch {
		case j.err != nil:
			err = j.err
		case j.done >= j.compact && j.done > 2*len(j.pending):
			// The rewrite holds every pending record, buf's included.
			err = j.rewrite()
		case len(buf) > 0:
			j.mu.Unlock()
			start := time.Now()
			err = writeSync(j.f, buf)
			journalSyncSeconds.Observe(time.Since(start).Seconds())
			j.mu.Lock()
		}
		if err != nil && j.err == nil {
			j.err = fmt.Errorf("alert journal: %w", err)
		}
		if closing && j.f != nil {
			if cerr := j.f.Close(); err == nil {
				err = cerr
			}
			j.f = nil
			_ = j.lock.Close()
		}
		j.mu.Unlock()
		for _, ch := range waiters {
			ch <- err
		}
		if closing {
			return
		}
	}
}

func writeSync(f *os.File, b []byte) error {
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Sync()
}

// rewrite replaces the file with the pending records (temp file, fsync, rename, directory
// fsync) and reopens it for appending. j.mu is held (or the journal is not shared yet).
func (j *Journal) rewrite() error {
	var b bytes.Buffer
	order := j.pendingOrder()
	for _, key := range order {
		line, err := json.Marshal(j.pending[key])
		if err != nil {
			return fmt.Errorf("alert journal: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(j.dir, journalFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("alert journal: %w", err)
	}
	if err := writeSync(tmp, b.Bytes()); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("alert journal: %w", err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("alert journal: %w", err)
	}
	if err := os.Rename(tmp.Name(), j.path()); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("alert journal: %w", err)
	}
	if d, err := os.Open(j.dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	f, err := os.OpenFile(j.path(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("alert journal: %w", err)
	}
	if j.f != nil {
		_ = j.f.Close()
	}
	j.f, j.order, j.done = f, order, 0
	return nil
}
