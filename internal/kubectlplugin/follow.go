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

package kubectlplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// Follow watches the Troubleshoot name until its diagnosis is done (see Finished), showing
// progress as it arrives, and returns its last state.
func (e *Env) Follow(ctx context.Context, name string, timeout time.Duration) (*kubagev1alpha1.Troubleshoot, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res := e.Dynamic.Resource(TroubleshootResource).Namespace(e.Namespace)
	byName := fields.OneTermEqualSelector("metadata.name", name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = byName
			return res.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = byName
			return res.Watch(ctx, opts)
		},
	}
	progress := NewProgress(e.Out, e.TTY, e.Width)
	var last *kubagev1alpha1.Troubleshoot
	_, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, nil, func(ev watch.Event) (bool, error) {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			return false, nil
		}
		if ev.Type == watch.Deleted {
			return false, fmt.Errorf("troubleshoot %q was deleted while being followed", name)
		}
		ts, err := troubleshootFrom(u)
		if err != nil {
			return false, err
		}
		last = ts
		progress.Update(ts)
		return Finished(ts), nil
	})
	progress.Close()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, watchtools.ErrWatchClosed) || ctx.Err() != nil {
			phase := "not started"
			if last != nil && last.Status.Phase != "" {
				phase = string(last.Status.Phase)
			}
			return last, fmt.Errorf("gave up following troubleshoot %q after %s (phase %s); it keeps running: see `kubectl kubage get %s`",
				name, timeout, phase, name)
		}
		return last, e.explain(err, "watch", TroubleshootResource, e.Namespace, name)
	}
	return last, nil
}

// Finished says the diagnosis is over: the session ended, or waits for approval of its
// remediation (Remediate mode), and its RootCauseFound condition is set.
func Finished(ts *kubagev1alpha1.Troubleshoot) bool {
	switch ts.Status.Phase {
	case kubagev1alpha1.PhaseFailed:
		return true
	case kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseAwaitingApproval:
		return meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.RootCauseFoundCondition) != nil
	}
	return false
}

// Progress turns successive states of a Troubleshoot into what the user sees: one line
// updated in place on a terminal, or one appended line per change when output is piped.
type Progress struct {
	out   io.Writer
	tty   bool
	width int

	phase     kubagev1alpha1.TroubleshootPhase
	iteration int32
	tasks     map[string]kubagev1alpha1.TaskState
	evidence  map[string]bool
	latest    string
	drawn     bool
}

// NewProgress writes to out; tty selects the updating line, width bounds it.
func NewProgress(out io.Writer, tty bool, width int) *Progress {
	if width <= 0 {
		width = 80
	}
	return &Progress{out: out, tty: tty, width: width, tasks: map[string]kubagev1alpha1.TaskState{}, evidence: map[string]bool{}}
}

// Update shows what changed since the previous state.
func (p *Progress) Update(ts *kubagev1alpha1.Troubleshoot) {
	st := ts.Status
	var events []string
	if st.Phase != "" && (st.Phase != p.phase || st.Iteration != p.iteration) {
		p.phase, p.iteration = st.Phase, st.Iteration
		ev := "phase " + string(st.Phase)
		if st.Iteration > 0 {
			ev += fmt.Sprintf(" (iteration %d)", st.Iteration)
		}
		events = append(events, ev)
	}
	if st.Plan != nil {
		for _, t := range st.Plan.Tasks {
			state := t.State
			if state == "" {
				state = kubagev1alpha1.TaskPending
			}
			if prev, seen := p.tasks[t.ID]; seen && prev == state {
				continue
			}
			p.tasks[t.ID] = state
			ev := fmt.Sprintf("task %s %s: %s", t.ID, state, t.Description)
			if state.IsDone() && t.Summary != "" {
				ev = fmt.Sprintf("task %s %s: %s", t.ID, state, t.Summary)
			}
			events = append(events, ev)
		}
	}
	for _, ev := range st.Evidence {
		if p.evidence[ev.ID] {
			continue
		}
		p.evidence[ev.ID] = true
		events = append(events, fmt.Sprintf("evidence %s: %s", ev.ID, ev.Summary))
	}
	if len(events) == 0 {
		return
	}
	if !p.tty {
		for _, ev := range events {
			fmt.Fprintln(p.out, oneLine(ev))
		}
		return
	}
	p.latest = events[len(events)-1]
	p.draw()
}

// draw rewrites the progress line: where the session is, then the latest event, cut to width.
func (p *Progress) draw() {
	done := 0
	for _, s := range p.tasks {
		if s.IsDone() {
			done++
		}
	}
	line := fmt.Sprintf("%s · iteration %d · tasks %d/%d · evidence %d · %s",
		p.phase, p.iteration, done, len(p.tasks), len(p.evidence), oneLine(p.latest))
	fmt.Fprint(p.out, "\r\x1b[2K"+truncate(line, p.width-1))
	p.drawn = true
}

// Close clears the progress line so that what follows starts on a clean line.
func (p *Progress) Close() {
	if p.tty && p.drawn {
		fmt.Fprint(p.out, "\r\x1b[2K")
		p.drawn = false
	}
}

// oneLine puts text from the cluster on one line, without control characters.
func oneLine(s string) string {
	return strings.Join(strings.Fields(Sanitize(s)), " ")
}

// truncate cuts s to n runes, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
