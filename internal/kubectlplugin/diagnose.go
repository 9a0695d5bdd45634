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
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// DiagnoseOptions are the arguments of `kubectl kubage diagnose`.
type DiagnoseOptions struct {
	// Target is "<kind>/<name>"; empty scans the whole namespace (then Problem is required).
	Target  string
	Problem string
	Mode    kubagev1alpha1.Mode
	Runner  kubagev1alpha1.TaskRunner
	// Follow watches the session until it ends and prints the root cause.
	Follow bool
	// Timeout bounds how long Follow waits.
	Timeout time.Duration
}

// NewTroubleshoot builds the Troubleshoot a diagnosis creates (nothing is sent to the cluster).
func NewTroubleshoot(ns string, target *Target, o DiagnoseOptions) (*kubagev1alpha1.Troubleshoot, error) {
	problem := o.Problem
	if problem == "" {
		if target == nil {
			return nil, fmt.Errorf("say what is wrong: a namespace-wide diagnosis needs --problem, or name a target such as deploy/checkout")
		}
		problem = fmt.Sprintf("%s %s does not work as expected", target.Kind, target.Name)
	}
	mode, ok := oneOf(string(o.Mode), kubagev1alpha1.ModeDiagnose, kubagev1alpha1.ModeRemediate)
	if !ok {
		return nil, fmt.Errorf("--mode %q: want Diagnose or Remediate", o.Mode)
	}
	runner, ok := oneOf(string(o.Runner), kubagev1alpha1.TaskRunnerJob, kubagev1alpha1.TaskRunnerInProcess)
	if !ok {
		return nil, fmt.Errorf("--runner %q: want Job or InProcess", o.Runner)
	}
	ts := &kubagev1alpha1.Troubleshoot{
		TypeMeta:   metav1.TypeMeta{APIVersion: kubagev1alpha1.GroupVersion.String(), Kind: "Troubleshoot"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: generateNameFor(target), Namespace: ns},
		Spec:       kubagev1alpha1.TroubleshootSpec{Problem: problem, Mode: mode, TaskRunner: runner},
	}
	if target != nil {
		ts.Spec.Target = target.Spec()
	}
	return ts, nil
}

// Diagnose checks that KubAge is installed and the target exists, creates the Troubleshoot
// and, with Follow, shows its progress and returns the outcome (an ExitError when no root
// cause was found). It returns the created object.
func (e *Env) Diagnose(ctx context.Context, o DiagnoseOptions) (*kubagev1alpha1.Troubleshoot, error) {
	if err := e.CheckInstalled(); err != nil {
		return nil, err
	}
	var target *Target
	if o.Target != "" {
		t, err := ParseTarget(o.Target, e.Mapper)
		if err != nil {
			return nil, err
		}
		if err := e.checkTarget(ctx, t); err != nil {
			return nil, err
		}
		target = &t
	}
	ts, err := NewTroubleshoot(e.Namespace, target, o)
	if err != nil {
		return nil, err
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ts)
	if err != nil {
		return nil, err
	}
	created, err := e.Dynamic.Resource(TroubleshootResource).Namespace(e.Namespace).
		Create(ctx, &unstructured.Unstructured{Object: raw}, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, e.explain(err, "create", TroubleshootResource, e.Namespace, "")
	}
	if ts, err = troubleshootFrom(created); err != nil {
		return nil, err
	}
	if !o.Follow {
		return ts, nil
	}
	subject := "namespace " + e.Namespace
	if target != nil {
		subject = target.String()
	}
	fmt.Fprintf(e.Out, "troubleshoot.kubage.io/%s created: diagnosing %s in namespace %s\n", ts.Name, subject, e.Namespace)
	final, err := e.Follow(ctx, ts.Name, o.Timeout)
	if err != nil {
		return ts, err
	}
	PrintOutcome(e.Out, final)
	return final, Verdict(final, subject)
}

// oneOf matches s against the allowed values in any case; empty matches (the zero value).
func oneOf[T ~string](s string, allowed ...T) (T, bool) {
	if s == "" {
		return "", true
	}
	for _, v := range allowed {
		if strings.EqualFold(s, string(v)) {
			return v, true
		}
	}
	return "", false
}

// FieldManager names the plugin in managedFields.
const FieldManager = "kubectl-kubage"

// checkTarget fails with a clear message when the target does not exist or cannot be read.
func (e *Env) checkTarget(ctx context.Context, t Target) error {
	res := e.Dynamic.Resource(t.Resource)
	var err error
	if t.Namespaced {
		_, err = res.Namespace(e.Namespace).Get(ctx, t.Name, metav1.GetOptions{})
	} else {
		_, err = res.Get(ctx, t.Name, metav1.GetOptions{})
	}
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err) && t.Namespaced:
		return fmt.Errorf("%s not found in namespace %s", t, e.Namespace)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s not found", t)
	}
	ns := ""
	if t.Namespaced {
		ns = e.Namespace
	}
	return e.explain(err, "get", t.Resource, ns, t.Name)
}
