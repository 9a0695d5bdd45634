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

// Package remediate executes the few remediation actions the operator may run itself once
// a human approved them: a rollout restart, a scale, deleting a Pod, and a patch to a
// workload or ConfigMap, always in the session's own namespace. Everything else a brain
// proposes stays a draft for a human to run. The caller decides whether an action may run
// at all (Remediate mode, approved, low risk); this package decides whether it can.
package remediate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// ErrNotExecutable says an action is valid advice but not something the operator runs.
var ErrNotExecutable = errors.New("not executable by the operator")

// errPlaceholder: the command leaves blanks (or a redirect) for a human to fill in.
var errPlaceholder = fmt.Errorf("%w: the command has a placeholder or a redirect to fill in by hand", ErrNotExecutable)

// Verb is what an Op does.
type Verb string

const (
	RolloutRestart Verb = "RolloutRestart"
	Scale          Verb = "Scale"
	DeletePod      Verb = "DeletePod"
	Patch          Verb = "Patch"
)

// Op is a parsed, executable action.
type Op struct {
	Verb      Verb
	Kind      string // Deployment, StatefulSet, DaemonSet, Pod or ConfigMap
	Namespace string
	Name      string
	Replicas  int32
	PatchType types.PatchType
	Patch     []byte
	// UID, when set, is the object the action was approved against (see Pin): a Pod
	// deletion then deletes only that Pod, never a namesake created since.
	UID types.UID
	// Resumed says an earlier attempt of this action may have run before the operator
	// stopped: what it already did is recognised and not done again.
	Resumed bool
}

// String renders the op for results and logs.
func (o Op) String() string {
	switch o.Verb {
	case Scale:
		return fmt.Sprintf("scale %s/%s to %d replicas", o.Kind, o.Name, o.Replicas)
	case RolloutRestart:
		return fmt.Sprintf("rollout restart %s/%s", o.Kind, o.Name)
	case DeletePod:
		return "delete Pod/" + o.Name
	default:
		return fmt.Sprintf("patch %s/%s", o.Kind, o.Name)
	}
}

// MaxReplicas bounds a scale the operator performs on its own.
const MaxReplicas = 100

// maxPatchBytes mirrors the API's bound on RemediationPatch.patch.
const maxPatchBytes = 8192

// workloadKinds maps the resource words kubectl accepts to the kinds a restart or scale
// may touch.
var workloadKinds = map[string]string{
	"deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment", "deployment.apps": "Deployment", "deployments.apps": "Deployment",
	"statefulset": "StatefulSet", "statefulsets": "StatefulSet", "sts": "StatefulSet", "statefulset.apps": "StatefulSet", "statefulsets.apps": "StatefulSet",
	"daemonset": "DaemonSet", "daemonsets": "DaemonSet", "ds": "DaemonSet", "daemonset.apps": "DaemonSet", "daemonsets.apps": "DaemonSet",
}

// ParseCommand turns a kubectl command line into an Op confined to namespace. Only
// `kubectl rollout restart`, `kubectl scale --replicas` and `kubectl delete pod` with no
// other flags than the namespace are accepted; shell syntax and placeholders are not.
func ParseCommand(namespace, command string) (Op, error) {
	words, err := splitWords(command)
	if err != nil {
		return Op{}, err
	}
	if len(words) == 0 || words[0] != "kubectl" {
		return Op{}, fmt.Errorf("%w: only kubectl commands run", ErrNotExecutable)
	}
	var args []string
	replicas := ""
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-n" || w == "--namespace":
			if i+1 >= len(words) {
				return Op{}, fmt.Errorf("%w: %s without a value", ErrNotExecutable, w)
			}
			i++
			if words[i] != namespace {
				return Op{}, fmt.Errorf("%w: namespace %q is not the session's namespace %q", ErrNotExecutable, words[i], namespace)
			}
		case strings.HasPrefix(w, "--namespace=") || (strings.HasPrefix(w, "-n") && len(w) > 2 && !strings.HasPrefix(w, "--")):
			ns := strings.TrimPrefix(strings.TrimPrefix(w, "--namespace="), "-n")
			if ns != namespace {
				return Op{}, fmt.Errorf("%w: namespace %q is not the session's namespace %q", ErrNotExecutable, ns, namespace)
			}
		case w == "--replicas":
			if i+1 >= len(words) {
				return Op{}, fmt.Errorf("%w: --replicas without a value", ErrNotExecutable)
			}
			i++
			replicas = words[i]
		case strings.HasPrefix(w, "--replicas="):
			replicas = strings.TrimPrefix(w, "--replicas=")
		case strings.HasPrefix(w, "-"):
			return Op{}, fmt.Errorf("%w: flag %s is not supported", ErrNotExecutable, w)
		default:
			args = append(args, w)
		}
	}
	op := Op{Namespace: namespace}
	switch {
	case len(args) >= 2 && args[0] == "rollout" && args[1] == "restart":
		kind, name, err := resource(args[2:], workloadKinds)
		if err != nil {
			return Op{}, err
		}
		op.Verb, op.Kind, op.Name = RolloutRestart, kind, name
	case len(args) >= 1 && args[0] == "scale":
		kind, name, err := resource(args[1:], workloadKinds)
		if err != nil {
			return Op{}, err
		}
		if kind == "DaemonSet" {
			return Op{}, fmt.Errorf("%w: a DaemonSet cannot be scaled", ErrNotExecutable)
		}
		n, err := strconv.Atoi(replicas)
		if err != nil || n < 0 || n > MaxReplicas {
			return Op{}, fmt.Errorf("%w: --replicas must be a number from 0 to %d", ErrNotExecutable, MaxReplicas)
		}
		op.Verb, op.Kind, op.Name, op.Replicas = Scale, kind, name, int32(n)
	case len(args) >= 1 && args[0] == "delete":
		kind, name, err := resource(args[1:], map[string]string{"pod": "Pod", "pods": "Pod", "po": "Pod"})
		if err != nil {
			return Op{}, err
		}
		op.Verb, op.Kind, op.Name = DeletePod, kind, name
	default:
		return Op{}, fmt.Errorf("%w: only rollout restart, scale and delete pod run", ErrNotExecutable)
	}
	if replicas != "" && op.Verb != Scale {
		return Op{}, fmt.Errorf("%w: --replicas only goes with scale", ErrNotExecutable)
	}
	return op, nil
}

// resource reads "kind/name" or "kind name" (exactly one object).
func resource(args []string, kinds map[string]string) (string, string, error) {
	var word, name string
	switch {
	case len(args) == 1 && strings.Count(args[0], "/") == 1:
		word, name, _ = strings.Cut(args[0], "/")
	case len(args) == 2 && !strings.Contains(args[0], "/"):
		word, name = args[0], args[1]
	default:
		return "", "", fmt.Errorf("%w: name exactly one object", ErrNotExecutable)
	}
	kind, ok := kinds[strings.ToLower(word)]
	if !ok {
		return "", "", fmt.Errorf("%w: %q is not a kind this command may touch", ErrNotExecutable, word)
	}
	if !validName(name) {
		return "", "", fmt.Errorf("%w: %q is not an object name", ErrNotExecutable, name)
	}
	return kind, name, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// splitWords splits a command line like a POSIX shell would for plain words and quotes,
// and refuses anything a shell would interpret (pipes, redirects, substitutions,
// separators) and <placeholders> left for a human to fill in.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			// A comment ends the command.
			return words, nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("%w: unbalanced quote", ErrNotExecutable)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' || s[j] == '$' || s[j] == '`' {
					return nil, fmt.Errorf("%w: shell expansion in quotes", ErrNotExecutable)
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("%w: unbalanced quote", ErrNotExecutable)
			}
			cur.WriteString(s[i+1 : j])
			i = j
			inWord = true
		case c == '<' || c == '>':
			return nil, errPlaceholder
		case strings.IndexByte(";|&`$(){}\\\n\r*?", c) >= 0:
			return nil, fmt.Errorf("%w: shell syntax %q", ErrNotExecutable, string(c))
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// patchKinds are the kinds a structured patch may touch.
var patchKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "ConfigMap": true}

// ParsePatch accepts a structured patch to a workload or ConfigMap in namespace.
func ParsePatch(namespace, kind, objNamespace, name, patchType, patch string) (Op, error) {
	if !patchKinds[kind] {
		return Op{}, fmt.Errorf("%w: patches to %s are not applied by the operator", ErrNotExecutable, kind)
	}
	if objNamespace != "" && objNamespace != namespace {
		return Op{}, fmt.Errorf("%w: namespace %q is not the session's namespace %q", ErrNotExecutable, objNamespace, namespace)
	}
	if !validName(name) {
		return Op{}, fmt.Errorf("%w: %q is not an object name", ErrNotExecutable, name)
	}
	if len(patch) == 0 || len(patch) > maxPatchBytes {
		return Op{}, fmt.Errorf("%w: the patch must hold 1 to %d bytes", ErrNotExecutable, maxPatchBytes)
	}
	pt := types.StrategicMergePatchType
	switch patchType {
	case "", "StrategicMerge":
	case "Merge":
		pt = types.MergePatchType
	case "JSON":
		pt = types.JSONPatchType
	default:
		return Op{}, fmt.Errorf("%w: patch type %q", ErrNotExecutable, patchType)
	}
	return Op{Verb: Patch, Kind: kind, Namespace: namespace, Name: name, PatchType: pt, Patch: []byte(patch)}, nil
}

// Executor applies ops through the typed client.
type Executor struct {
	Client kubernetes.Interface
}

// FieldManager names the operator in managedFields of what it changes.
const FieldManager = "kubage-remediation"

// RestartAnnotation on a pod template records which approved action restarted it. The
// value identifies the action, so executing it twice (after a crash) rolls out once.
const RestartAnnotation = "kubage.io/restarted-for"

// RemediatedAnnotation on an object records the latest approved action that changed it,
// written in the same request as the change, so a resumed action sees it already ran.
const RemediatedAnnotation = "kubage.io/remediated-for"

// Pin returns the UID of the object op acts on ("" when it does not exist), for the caller
// to record before executing, so that a resumed deletion cannot hit a namesake.
func (x *Executor) Pin(ctx context.Context, op Op) (types.UID, error) {
	if x == nil || x.Client == nil || op.Verb != DeletePod {
		return "", nil
	}
	p, err := x.Client.CoreV1().Pods(op.Namespace).Get(ctx, op.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading Pod %s: %w", op.Name, err)
	}
	return p.UID, nil
}

// Execute applies op; stamp identifies the approved action. It returns a one-line result.
// Executing a resumed op again changes nothing its first attempt changed.
func (x *Executor) Execute(ctx context.Context, op Op, stamp string) (string, error) {
	if x == nil || x.Client == nil {
		return "", errors.New("no remediation executor configured")
	}
	opts := metav1.PatchOptions{FieldManager: FieldManager}
	if op.Resumed && (op.Verb == Scale || op.Verb == Patch) {
		if done, err := x.stamped(ctx, op, stamp); err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		} else if done {
			return successMessage(op), nil
		}
	}
	var err error
	switch op.Verb {
	case RolloutRestart:
		body := fmt.Appendf(nil, `{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, RestartAnnotation, stamp)
		err = x.patch(ctx, op.Kind, op.Namespace, op.Name, types.StrategicMergePatchType, body, opts)
		if err == nil {
			return fmt.Sprintf("Restarted the rollout of %s/%s", op.Kind, op.Name), nil
		}
	case Scale:
		body := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}},"spec":{"replicas":%d}}`, RemediatedAnnotation, stamp, op.Replicas)
		err = x.patch(ctx, op.Kind, op.Namespace, op.Name, types.MergePatchType, body, opts)
		if err == nil {
			return successMessage(op), nil
		}
	case DeletePod:
		return x.deletePod(ctx, op)
	case Patch:
		var body []byte
		if body, err = x.stampPatch(ctx, op, stamp); err == nil {
			err = x.patch(ctx, op.Kind, op.Namespace, op.Name, op.PatchType, body, opts)
		}
		if err == nil {
			return successMessage(op), nil
		}
	default:
		return "", fmt.Errorf("%w: unknown operation %q", ErrNotExecutable, op.Verb)
	}
	return "", fmt.Errorf("%s: %w", op, err)
}

func (x *Executor) patch(ctx context.Context, kind, ns, name string, pt types.PatchType, body []byte, opts metav1.PatchOptions) error {
	var err error
	switch kind {
	case "Deployment":
		_, err = x.Client.AppsV1().Deployments(ns).Patch(ctx, name, pt, body, opts)
	case "StatefulSet":
		_, err = x.Client.AppsV1().StatefulSets(ns).Patch(ctx, name, pt, body, opts)
	case "DaemonSet":
		_, err = x.Client.AppsV1().DaemonSets(ns).Patch(ctx, name, pt, body, opts)
	case "ConfigMap":
		_, err = x.Client.CoreV1().ConfigMaps(ns).Patch(ctx, name, pt, body, opts)
	default:
		err = fmt.Errorf("%w: %s", ErrNotExecutable, kind)
	}
	return err
}
