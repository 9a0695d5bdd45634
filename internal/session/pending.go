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
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/tools"
)

// pending checks what can be checked before any work and starts the run.
func pending(ctx context.Context, w *work) (time.Duration, error) {
	name := w.ts.Spec.TaskRunner
	if name == "" {
		name = w.e.DefaultRunner
	}
	if _, ok := w.e.Runners[name]; !ok {
		return 0, serror.NewStalling(kubagev1alpha1.RunnerUnavailableReason, fmt.Errorf("task runner %q is not available in this operator (available: %s)", name, w.e.runnerNames()))
	}
	if t := w.ts.Spec.Target; t != nil && t.Name != "" && !w.e.Offline {
		if _, err := tools.ResolveKind(t.Kind); err == nil {
			c := tools.NewClient(w.cluster(), tools.Scope{Namespace: w.ts.Namespace})
			if w.e.Cache != nil && w.remote == nil {
				c.SetCache(w.e.Cache)
			}
			if _, _, err := c.Get(ctx, t.Kind, t.Name); err != nil {
				if tools.IsNotFound(err) {
					return w.fail(ctx, kubagev1alpha1.TargetNotFoundReason, "The target does not exist: "+err.Error())
				}
				return 0, fmt.Errorf("checking the target: %w", err)
			}
		}
	}
	start := metav1.NewTime(w.now)
	w.st.StartTime, w.st.CompletionTime = &start, nil
	w.st.Iteration, w.st.Plan, w.st.Evidence, w.st.RootCause, w.st.Remediation, w.st.ReportRef = 1, nil, nil, nil, nil, nil
	w.st.Usage = kubagev1alpha1.Usage{}
	w.ck.Generation, w.ck.Runner, w.ck.Session = w.ts.Generation, string(name), SessionFor(w.ts, w.now)
	w.ck.SpecHash = SpecHash(w.ts.Spec)
	w.ck.Iteration, w.ck.Tasks, w.ck.Verdict, w.ck.VerdictIteration, w.ck.Stop, w.ck.Conclusion, w.ck.Rounds = 1, nil, nil, 0, nil, nil, nil
	w.ck.Degraded = nil
	w.enter(kubagev1alpha1.PhasePlanning, "runner "+string(name))
	return soon, nil
}

func (e *Engine) runnerNames() string {
	names := make([]string, 0, len(e.Runners))
	for n := range e.Runners {
		names = append(names, string(n))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
