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

package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/memory"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/runner"
)

// Checkpoint is the part of a session's state that the status has no room for: the full
// task definitions of the current plan (with their arguments), the regulator's last
// verdict, why the loop stopped, the conclusion and the phase timeline. It lives in the
// ConfigMap CheckpointName(<troubleshoot>), owned by the Troubleshoot, and is always
// written before the status that depends on it, so a restart at any moment finds both
// consistent (or a checkpoint one step ahead, which the step simply redoes).
type Checkpoint struct {
	// Run is runner.RunToken of the rerun annotation this run answers.
	Run string `json:"run,omitempty"`
	// Generation is the spec generation the run started from.
	Generation int64 `json:"generation,omitempty"`
	// SpecHash is SpecHash(spec) when the run started; a different hash later means the
	// result answers an older question.
	SpecHash string `json:"specHash,omitempty"`
	// Runner is the task runner chosen when the run started.
	Runner string `json:"runner,omitempty"`
	// Session is the brain's view of the spec, fixed when the run started.
	Session agent.Session `json:"session"`
	// Iteration is the current round, starting at 1.
	Iteration int `json:"iteration,omitempty"`
	// Tasks are the current round's tasks with their arguments.
	Tasks []agent.Task `json:"tasks,omitempty"`
	// Verdict is the regulator's last verdict.
	Verdict *agent.Verdict `json:"verdict,omitempty"`
	// VerdictIteration is the round Verdict judged.
	VerdictIteration int `json:"verdictIteration,omitempty"`
	// Stop says why the loop ended early or the session failed.
	Stop *Stop `json:"stop,omitempty"`
	// Degraded is the latest step where the brain fell back from the model.
	Degraded *Degradation `json:"degraded,omitempty"`
	// Conclusion is the summarizer's answer, kept for re-rendering the report.
	Conclusion *agent.Conclusion `json:"conclusion,omitempty"`
	// Fingerprint is the conclusion's incident-memory fingerprint, recorded when the
	// session completes.
	Fingerprint *memory.Fingerprint `json:"fingerprint,omitempty"`
	// Rounds records each finished round for the report.
	Rounds []Round `json:"rounds,omitempty"`
	// Timeline records phase changes.
	Timeline []Mark `json:"timeline,omitempty"`
	// Executing lists the approved actions whose execution began, saved before each
	// action runs, so that an operator restarted mid-action resumes it instead of running
	// it blind a second time.
	Executing []Intent `json:"executing,omitempty"`
	// Restarts counts, per task of the run, the starts that replaced an attempt lost with
	// the operator process that ran it (the runner reported it Orphaned): a restart or a
	// new leader, not the task's fault, so they do not count toward Engine.MaxAttempts.
	Restarts map[string]int32 `json:"restarts,omitempty"`

	resourceVersion string
	exists          bool
	// saved is the checkpoint as last read or written, in this type's encoding, to tell
	// whether a step changed it; stored is what the ConfigMap holds (redacted).
	saved  []byte
	stored []byte
}

// Stop is why a session stopped before the regulator concluded, or failed.
type Stop struct {
	// Reason is a condition reason: BudgetExhausted, TimedOut, TargetNotFound, ...
	Reason string `json:"reason,omitempty"`
	// Message says what happened in one line.
	Message string `json:"message"`
	// Failed is true when the session ends in phase Failed.
	Failed bool `json:"failed,omitempty"`
}

// Intent is an approved action about to run: its id and the UID of the object it was
// pinned to (a Pod to delete), so a resumed deletion cannot hit a namesake.
type Intent struct {
	Action string `json:"action"`
	UID    string `json:"uid,omitempty"`
}

// Degradation is why the brain answered without the model, as a condition reason
// (ModelUnreachable, ModelCircuitOpen, ModelSecretInvalid, ...) and message.
type Degradation struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Round is one finished plan → investigate → regulate round.
type Round struct {
	Iteration int         `json:"iteration"`
	Tasks     []RoundTask `json:"tasks"`
	Verdict   string      `json:"verdict,omitempty"`
}

// RoundTask is how one task of a round ended.
type RoundTask struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	State       string `json:"state"`
	Summary     string `json:"summary,omitempty"`
}

// Mark is one phase change.
type Mark struct {
	Phase     string    `json:"phase"`
	Iteration int       `json:"iteration,omitempty"`
	At        time.Time `json:"at"`
	Note      string    `json:"note,omitempty"`
}

// Bounds of the checkpoint (a ConfigMap holds at most 1 MiB).
const (
	maxTimeline       = 200
	maxCheckpointSize = 900 << 10
	checkpointKey     = "session.json"
	// ComponentSession marks checkpoint ConfigMaps.
	ComponentSession = "session"
	// ComponentReport marks report ConfigMaps.
	ComponentReport = "report"
)

// CheckpointName is the name of a Troubleshoot's checkpoint ConfigMap.
func CheckpointName(troubleshoot string) string { return runner.ObjectName(troubleshoot, "session") }

// ReportName is the name of a Troubleshoot's report ConfigMap.
func ReportName(troubleshoot string) string { return runner.ObjectName(troubleshoot, "report") }

// loadCheckpoint reads the owner's checkpoint; a missing one (or one left by a deleted
// namesake) comes back empty with found false.
func loadCheckpoint(ctx context.Context, cs kubernetes.Interface, owner runner.Owner) (*Checkpoint, bool, error) {
	cm, err := cs.CoreV1().ConfigMaps(owner.Namespace).Get(ctx, CheckpointName(owner.Name), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &Checkpoint{}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading session checkpoint: %w", err)
	}
	if err := runner.CheckManaged(cm, ComponentSession); err != nil {
		return nil, false, err
	}
	ck := &Checkpoint{resourceVersion: cm.ResourceVersion, exists: true}
	if !owner.Owns(cm.OwnerReferences) {
		return ck, false, nil
	}
	if err := ck.decode([]byte(cm.Data[checkpointKey])); err != nil {
		// A corrupt checkpoint is treated as lost: the session restarts from Pending.
		return &Checkpoint{resourceVersion: cm.ResourceVersion, exists: true}, false, nil
	}
	return ck, true, nil
}

// decode fills ck from the stored JSON and remembers it as saved, re-encoded so that an
// unchanged checkpoint encodes to the same bytes (the stored form has its keys sorted).
func (ck *Checkpoint) decode(stored []byte) error {
	if err := json.Unmarshal(stored, ck); err != nil {
		return err
	}
	saved, err := json.Marshal(ck)
	if err != nil {
		return err
	}
	ck.saved, ck.stored = saved, stored
	return nil
}

// saveCheckpoint writes ck if it changed, with optimistic concurrency.
func saveCheckpoint(ctx context.Context, cs kubernetes.Interface, owner runner.Owner, ck *Checkpoint) error {
	raw, err := json.Marshal(ck)
	if err != nil {
		return fmt.Errorf("encoding session checkpoint: %w", err)
	}
	if bytes.Equal(raw, ck.saved) {
		return nil
	}
	// The checkpoint holds the problem text and task summaries: credentials stay out of it.
	stored := redact.Default().SecretsJSON(raw)
	if len(stored) > maxCheckpointSize {
		return fmt.Errorf("session checkpoint of %d bytes exceeds %d", len(stored), maxCheckpointSize)
	}
	lbls := owner.Labels()
	lbls[runner.LabelComponent] = ComponentSession
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: CheckpointName(owner.Name), Namespace: owner.Namespace, Labels: lbls,
			OwnerReferences: []metav1.OwnerReference{owner.Reference()},
			ResourceVersion: ck.resourceVersion,
		},
		Data: map[string]string{checkpointKey: string(stored)},
	}
	cms := cs.CoreV1().ConfigMaps(owner.Namespace)
	var out *corev1.ConfigMap
	if !ck.exists {
		out, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	} else {
		out, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("writing session checkpoint: %w", err)
	}
	ck.resourceVersion, ck.exists, ck.saved, ck.stored = out.ResourceVersion, true, raw, stored
	return nil
}

// resumeAt drops the marks of steps whose status write was lost: those after the last mark
// of the phase and round the status holds. An Advance that ran several steps and is redone
// from its first phase then records each mark once.
func (ck *Checkpoint) resumeAt(phase string, iteration int) {
	for i := len(ck.Timeline) - 1; i >= 0; i-- {
		if m := ck.Timeline[i]; m.Phase == phase && m.Iteration == iteration {
			ck.Timeline = ck.Timeline[:i+1]
			return
		}
	}
}

// mark appends a phase change to the timeline, keeping it bounded.
func (ck *Checkpoint) mark(phase string, iteration int, at time.Time, note string) {
	m := Mark{Phase: phase, Iteration: iteration, At: at.UTC().Truncate(time.Second), Note: clean(note, 300)}
	if n := len(ck.Timeline); n > 0 && ck.Timeline[n-1].Phase == phase && ck.Timeline[n-1].Iteration == iteration {
		// A redone step (its status write was lost) replaces its own mark.
		ck.Timeline[n-1] = m
		return
	}
	if len(ck.Timeline) >= maxTimeline {
		ck.Timeline[len(ck.Timeline)-1] = m
		return
	}
	ck.Timeline = append(ck.Timeline, m)
}

// noteRestart counts a start of task id that replaces an attempt lost with its process.
// The map is replaced, not changed in place, like the checkpoint's slices: a chained step
// that fails restores the checkpoint from a shallow copy.
func (ck *Checkpoint) noteRestart(id string) {
	m := make(map[string]int32, len(ck.Restarts)+1)
	for k, v := range ck.Restarts {
		m[k] = v
	}
	m[id]++
	ck.Restarts = m
}
