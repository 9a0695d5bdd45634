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

// Package runner runs the tasks of a Troubleshoot session's plan and brings their results
// back through the Kubernetes API. Every runner honours the same contract:
//
//   - Start is idempotent per (owner, task id): starting a task that runs or has a result
//     does nothing, so a controller that crashed between Start and its status write can
//     simply call Start again.
//   - A task's result is a ConfigMap ResultName(owner, task id) in the owner's namespace,
//     labelled LabelTroubleshoot, LabelTaskID and LabelRun, owned by the Troubleshoot
//     (deleting it deletes the results), with the agent.TaskResult JSON under ResultKey,
//     at most MaxResultBytes. WriteResult and ReadResult implement it for everyone.
//   - Check reports Running, Done (with the result), Failed (with a reason) or Missing
//     (the runner knows nothing of the task and there is no result: start it again).
//   - Cleanup stops in-flight work and removes the runner's own objects (Jobs). Results
//     are removed separately (DeleteResults), because a finished session keeps them.
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
)

// Runner starts plan tasks and reports on them.
type Runner interface {
	// Start launches the task of req for owner unless it already runs or has a result.
	Start(ctx context.Context, owner Owner, req agent.TaskRequest) error
	// Check says where the task stands; Done carries the result.
	Check(ctx context.Context, owner Owner, taskID string) (Outcome, error)
	// Cleanup stops the owner's in-flight tasks and deletes the runner's own objects.
	Cleanup(ctx context.Context, owner Owner) error
}

// Notifier is implemented by runners that can tell when a task of an owner finished, so
// the controller reacts at once instead of waiting for its next poll.
type Notifier interface {
	// Finished delivers the owner of every task that reached Done or Failed. Sends never
	// block: a full channel drops the notification and the controller's poll catches up.
	Finished() <-chan Owner
}

// Namer is implemented by runners that create one object per task (a Job), so that the
// status can name it (status.plan.tasks[].jobName).
type Namer interface {
	TaskObjectName(owner Owner, taskID string) string
}

// State is where a task stands for its runner.
type State string

const (
	// StateRunning: the task was started and has no result yet.
	StateRunning State = "Running"
	// StateDone: the result ConfigMap exists; Outcome.Result holds it.
	StateDone State = "Done"
	// StateFailed: the task cannot produce a result (crash, deadline, image missing,
	// malformed result); Outcome.Reason says why.
	StateFailed State = "Failed"
	// StateMissing: the runner knows nothing of the task and there is no result, e.g.
	// the operator restarted while an in-process task ran. Start it again.
	StateMissing State = "Missing"
)

// Outcome is the answer of Check.
type Outcome struct {
	State State
	// Reason explains a Failed task in one line.
	Reason string
	// Result is set when State is Done.
	Result *agent.TaskResult
	// Orphaned is set with State Missing by runners whose tasks live in the operator's
	// process (InProcess) when this process never started the task: whatever attempt ran
	// was started by an operator process that has ended since (a restart, a new leader)
	// and took the task with it. Such a loss says nothing about the task itself.
	Orphaned bool
}

// Owner identifies the Troubleshoot session whose tasks run, and which run of it (a
// rerun starts a new run so that late results of the previous one are ignored).
type Owner struct {
	Namespace string
	Name      string
	UID       types.UID
	// Run is a label-safe token of the session's run (see RunToken); empty for the first.
	Run string
}

// Environment variables that carry an Owner into a task Job (`kubage agent task`).
const (
	EnvOwnerNamespace = "KUBAGE_OWNER_NAMESPACE"
	EnvOwnerName      = "KUBAGE_OWNER_NAME"
	EnvOwnerUID       = "KUBAGE_OWNER_UID"
	EnvOwnerRun       = "KUBAGE_OWNER_RUN"
)

// Env renders the owner as environment variables for a task Job.
func (o Owner) Env() map[string]string {
	return map[string]string{
		EnvOwnerNamespace: o.Namespace,
		EnvOwnerName:      o.Name,
		EnvOwnerUID:       string(o.UID),
		EnvOwnerRun:       o.Run,
	}
}

// OwnerFromEnv reads the owner that Env wrote (getenv is os.Getenv when nil).
func OwnerFromEnv(getenv func(string) string) (Owner, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	o := Owner{
		Namespace: getenv(EnvOwnerNamespace),
		Name:      getenv(EnvOwnerName),
		UID:       types.UID(getenv(EnvOwnerUID)),
		Run:       getenv(EnvOwnerRun),
	}
	return o, o.Validate()
}

// Validate checks that the owner can name and own Kubernetes objects.
func (o Owner) Validate() error {
	switch {
	case o.Namespace == "":
		return fmt.Errorf("owner has no namespace")
	case o.Name == "":
		return fmt.Errorf("owner has no name")
	case o.UID == "":
		return fmt.Errorf("owner %s/%s has no UID", o.Namespace, o.Name)
	}
	if o.Run != "" {
		if errs := validation.IsValidLabelValue(o.Run); len(errs) > 0 {
			return fmt.Errorf("owner run %q: %v", o.Run, errs)
		}
	}
	return nil
}

// String renders namespace/name.
func (o Owner) String() string { return o.Namespace + "/" + o.Name }

// key identifies one run of one owner in memory.
func (o Owner) key() string { return string(o.UID) + "/" + o.Run }

// Reference is the ownerReference every object a runner creates carries, so that
// deleting the Troubleshoot deletes it. It is not a controller reference and does not
// block owner deletion, which keeps the agent's RBAC free of troubleshoots/finalizers.
func (o Owner) Reference() metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: kubagev1alpha1.GroupVersion.String(),
		Kind:       "Troubleshoot",
		Name:       o.Name,
		UID:        o.UID,
	}
}

// Labels shared by every object a runner creates for an owner.
func (o Owner) Labels() map[string]string {
	return map[string]string{
		LabelManagedBy:    "kubage",
		LabelTroubleshoot: LabelValue(o.Name),
		LabelRun:          o.Run,
	}
}

// Owns reports whether refs name this owner (by UID).
func (o Owner) Owns(refs []metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.UID == o.UID && r.Kind == "Troubleshoot" {
			return true
		}
	}
	return false
}

// Labels and keys of the contract.
const (
	// LabelTroubleshoot holds LabelValue(name of the owning Troubleshoot).
	LabelTroubleshoot = "kubage.io/troubleshoot"
	// LabelTaskID holds the plan task id.
	LabelTaskID = "kubage.io/task-id"
	// LabelRun holds Owner.Run.
	LabelRun = "kubage.io/run"
	// LabelComponent says what an object is for: ComponentTaskResult, ComponentTask, ...
	LabelComponent = "app.kubernetes.io/component"
	// LabelManagedBy is "kubage" on everything the operator and its agents create.
	LabelManagedBy = "app.kubernetes.io/managed-by"

	// ComponentTaskResult marks result ConfigMaps.
	ComponentTaskResult = "task-result"

	// ResultKey is the ConfigMap data key of the agent.TaskResult JSON.
	ResultKey = "result.json"
	// MaxResultBytes bounds the result JSON; WriteResult trims a larger result to fit.
	MaxResultBytes = 256 << 10

	// MaxNameLength keeps every derived object name a DNS-1123 label, valid for
	// ConfigMaps, Jobs and Pods alike.
	MaxNameLength = validation.DNS1123LabelMaxLength
)

// ResultName is the name of the result ConfigMap of a task.
func ResultName(owner Owner, taskID string) string {
	return ObjectName(owner.Name, taskID)
}

// ObjectName joins a Troubleshoot name and a suffix into a deterministic DNS-1123 label of
// at most MaxNameLength characters. A name too long is cut and made unique again with a
// hash of the whole.
func ObjectName(base, suffix string) string {
	full := base + "-" + suffix
	if len(full) <= MaxNameLength && len(validation.IsDNS1123Label(full)) == 0 {
		return full
	}
	h := shortHash(full)
	keep := MaxNameLength - len(suffix) - len(h) - 2
	b := sanitizeLabel(base)
	if keep < 1 {
		// The suffix alone is too long: hash everything.
		return "t-" + shortHash(full)
	}
	if len(b) > keep {
		b = b[:keep]
	}
	b = trimDashes(b)
	if b == "" {
		b = "t"
	}
	return b + "-" + h + "-" + suffix
}

// LabelValue turns a name into a label value (at most 63 characters), hashing the tail
// of a longer one. Selection by this label is a hint: callers also check the owner UID.
func LabelValue(name string) string {
	if len(validation.IsValidLabelValue(name)) == 0 {
		return name
	}
	b := trimDashes(sanitizeLabel(name))
	h := shortHash(name)
	if len(b) > validation.LabelValueMaxLength-len(h)-1 {
		b = b[:validation.LabelValueMaxLength-len(h)-1]
	}
	b = trimDashes(b)
	if b == "" {
		return h
	}
	return b + "-" + h
}

// RunToken turns a free-form rerun request (an annotation value) into Owner.Run.
func RunToken(request string) string {
	if request == "" {
		return ""
	}
	return "r" + shortHash(request)
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:10]
}

// sanitizeLabel keeps lower-case letters, digits and dashes.
func sanitizeLabel(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			out = append(out, c)
		case c >= 'A' && c <= 'Z':
			out = append(out, c+'a'-'A')
		default:
			out = append(out, '-')
		}
	}
	return string(out)
}

func trimDashes(s string) string {
	for len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == '-' {
		s = s[:len(s)-1]
	}
	return s
}
