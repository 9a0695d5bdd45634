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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// RunTask runs one task and never fails: errors and panics become TaskResult.Error,
// so one broken analyzer cannot take the session down.
func RunTask(ctx context.Context, inv Investigator, s Session, t Task) (res TaskResult) {
	defer func() {
		if p := recover(); p != nil {
			res = TaskResult{TaskID: t.ID, Summary: "task crashed", Error: clipString(fmt.Sprint("panic: ", p), 500)}
		}
	}()
	if inv == nil {
		return TaskResult{TaskID: t.ID, Summary: "no investigator", Error: "no investigator configured"}
	}
	res, err := inv.Investigate(ctx, s, t)
	res.TaskID = t.ID
	if err != nil {
		res.Error = clipString(err.Error(), 500)
		if res.Summary == "" {
			res.Summary = "task failed: " + res.Error
		}
	}
	return res
}

// TaskRequest is the JSON a task Job reads (`kubage agent task`).
type TaskRequest struct {
	Session Session `json:"session"`
	Task    Task    `json:"task"`
}

// MaxTaskRequestBytes bounds the task JSON a Job will read.
const MaxTaskRequestBytes = 1 << 20

// RunTaskJSON reads a TaskRequest from r, runs it and writes the TaskResult JSON to w.
func RunTaskJSON(ctx context.Context, inv Investigator, r io.Reader, w io.Writer) error {
	raw, err := io.ReadAll(io.LimitReader(r, MaxTaskRequestBytes+1))
	if err != nil {
		return fmt.Errorf("read task: %w", err)
	}
	if len(raw) > MaxTaskRequestBytes {
		return fmt.Errorf("task request larger than %d bytes", MaxTaskRequestBytes)
	}
	var req TaskRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return fmt.Errorf("decode task: %w", err)
	}
	if req.Task.ID == "" {
		return errors.New("task has no id")
	}
	res := RunTask(ctx, inv, req.Session, req.Task)
	enc := json.NewEncoder(w)
	return enc.Encode(res)
}

// IterationTrace records one round of the loop.
type IterationTrace struct {
	Iteration int           `json:"iteration"`
	Tasks     []Task        `json:"tasks"`
	Results   []TaskResult  `json:"results"`
	Verdict   *Verdict      `json:"verdict,omitempty"`
	Duration  time.Duration `json:"duration"`
}

// Trace is the record of a whole session, for reports and benchmarks (session.Local
// records it as the session engine runs).
type Trace struct {
	Iterations  []IterationTrace `json:"iterations"`
	ToolCalls   int              `json:"toolCalls"`
	APIRequests int64            `json:"apiRequests"`
	StopReason  string           `json:"stopReason,omitempty"`
	Duration    time.Duration    `json:"duration"`
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
