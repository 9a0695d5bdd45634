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
	"sync"
	"time"
)

// TaskRunner runs a round of tasks and returns one result per task, in task order.
type TaskRunner interface {
	Run(ctx context.Context, s Session, tasks []Task) []TaskResult
}

// InProcessRunner runs tasks in goroutines of the current process, honouring DependsOn
// by running in waves.
type InProcessRunner struct {
	Investigator Investigator
	Parallelism  int
}

// Run implements TaskRunner.
func (r InProcessRunner) Run(ctx context.Context, s Session, tasks []Task) []TaskResult {
	par := r.Parallelism
	if par <= 0 {
		par = DefaultParallelism
	}
	results := make([]TaskResult, len(tasks))
	done := map[string]bool{}
	pending := make([]int, len(tasks))
	for i := range tasks {
		pending[i] = i
	}
	for len(pending) > 0 {
		var wave, rest []int
		for _, i := range pending {
			if depsDone(tasks[i].DependsOn, done, tasks) {
				wave = append(wave, i)
			} else {
				rest = append(rest, i)
			}
		}
		if len(wave) == 0 {
			// A cycle or a dependency on an unknown task: run nothing more, say why.
			for _, i := range rest {
				results[i] = TaskResult{TaskID: tasks[i].ID, Summary: "not run: unresolved dependencies", Error: "dependency cycle or unknown dependency"}
			}
			break
		}
		sem := make(chan struct{}, par)
		var wg sync.WaitGroup
		for _, i := range wave {
			wg.Add(1)
			sem <- struct{}{}
			go func(i int) {
				defer wg.Done()
				defer func() { <-sem }()
				results[i] = RunTask(ctx, r.Investigator, s, tasks[i])
			}(i)
		}
		wg.Wait()
		for _, i := range wave {
			done[tasks[i].ID] = true
		}
		pending = rest
	}
	return results
}

func depsDone(deps []string, done map[string]bool, tasks []Task) bool {
	for _, d := range deps {
		if !done[d] {
			return false
		}
	}
	return true
}

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

// Trace is the record of a whole session, for reports and benchmarks.
type Trace struct {
	Iterations  []IterationTrace `json:"iterations"`
	ToolCalls   int              `json:"toolCalls"`
	APIRequests int64            `json:"apiRequests"`
	StopReason  string           `json:"stopReason,omitempty"`
	Duration    time.Duration    `json:"duration"`
}

// RunSession drives a brain through plan → investigate → judge rounds until it concludes,
// stops, or a budget runs out, then summarizes. A budget stop still yields a conclusion
// from what was gathered; only a failing planner or summarizer returns an error.
func RunSession(ctx context.Context, brain Brain, s Session, runner TaskRunner, budget Budget) (Conclusion, Trace, error) {
	budget = budget.WithDefaults()
	start := time.Now()
	var trace Trace
	if runner == nil {
		runner = InProcessRunner{Investigator: brain, Parallelism: budget.Parallelism}
	}
	loopCtx, cancel := context.WithTimeout(ctx, budget.Timeout)
	defer cancel()
	var p Progress
	for iter := 1; ; iter++ {
		if err := loopCtx.Err(); err != nil {
			p.StopReason = "timeout after " + budget.Timeout.String()
			break
		}
		p.Iteration = iter
		itStart := time.Now()
		tasks, err := brain.Plan(loopCtx, s, p)
		if err != nil {
			return Conclusion{}, trace, fmt.Errorf("plan (iteration %d): %w", iter, err)
		}
		for i := range tasks {
			if tasks[i].ID == "" {
				tasks[i].ID = taskID(iter, i+1)
			}
		}
		if len(tasks) == 0 {
			trace.Iterations = append(trace.Iterations, IterationTrace{Iteration: iter, Duration: time.Since(itStart)})
			break
		}
		results := runner.Run(loopCtx, s, tasks)
		for _, r := range results {
			trace.ToolCalls += len(r.ToolCalls)
			trace.APIRequests += r.APIRequests
		}
		p.Results = append(p.Results, results...)
		it := IterationTrace{Iteration: iter, Tasks: tasks, Results: results}
		switch {
		case trace.ToolCalls >= budget.MaxToolCalls:
			p.StopReason = fmt.Sprintf("tool-call budget of %d used", budget.MaxToolCalls)
		case iter >= budget.MaxIterations:
			p.StopReason = fmt.Sprintf("iteration budget of %d used", budget.MaxIterations)
		case loopCtx.Err() != nil:
			p.StopReason = "timeout after " + budget.Timeout.String()
		}
		if p.StopReason != "" {
			it.Duration = time.Since(itStart)
			trace.Iterations = append(trace.Iterations, it)
			break
		}
		v, err := brain.Judge(loopCtx, s, p)
		if err != nil {
			return Conclusion{}, trace, fmt.Errorf("judge (iteration %d): %w", iter, err)
		}
		p.Verdict = &v
		it.Verdict = &v
		it.Duration = time.Since(itStart)
		trace.Iterations = append(trace.Iterations, it)
		if v.Decision != Replan {
			if v.Decision == Stop {
				p.StopReason = "regulator stopped: " + v.Feedback
			}
			break
		}
	}
	trace.StopReason = p.StopReason
	// Summarize even after a timeout, with a short grace period of its own.
	sumCtx, cancelSum := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancelSum()
	c, err := brain.Summarize(sumCtx, s, p)
	trace.Duration = time.Since(start)
	if err != nil {
		return Conclusion{}, trace, fmt.Errorf("summarize: %w", err)
	}
	return c, trace, nil
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
