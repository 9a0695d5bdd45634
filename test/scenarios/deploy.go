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

package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Deployed is a scenario whose objects exist, with its precondition awaited in the background.
type Deployed struct {
	*Scenario
	Env *Env

	done  chan struct{}
	err   error
	start time.Time
	ready time.Duration
}

// Done is closed once the scenario's failure is visible (or waiting for it gave up).
func (d *Deployed) Done() <-chan struct{} { return d.done }

// Err is why the precondition was not reached (nil when it was); valid after Done.
func (d *Deployed) Err() error { return d.err }

// ReadyAfter is how long after deployment the failure became visible; valid after Done.
func (d *Deployed) ReadyAfter() time.Duration { return d.ready }

// deployParallelism bounds concurrent setups (namespace creation waits for its ServiceAccount).
const deployParallelism = 8

// FailureTimeout is how long a deployed scenario may take to show its failure. A whole
// corpus (over two hundred scenarios, a few hundred pods crash-looping at once) on a
// 2-core machine needs most of it for the failures that take several restarts. (Wave 9's
// "ran past 4m" was no slowness: the pods created last were Pending on the shared nodes' CPU,
// see TestCorpusFitsSharedNodes; with that fixed every tune failure shows within a minute.)
const FailureTimeout = 4 * time.Minute

// MinSettle is the least time between a scenario's deployment and its judgement. A Wait holds
// as soon as the state it names shows (a pod NotReady), which can be seconds before the
// kubelet's first probe event or log line that says why: nobody troubleshoots a fault five
// seconds old, and an alert fires after minutes. Whole-corpus runs never notice it.
const MinSettle = 20 * time.Second

// DeployAll creates every scenario's objects, then awaits each precondition concurrently in
// the background (at most waitTimeout each), so slow failures overlap. Scenarios that failed to
// deploy are returned too (with Err set and Done closed); clean all of them up with CleanupAll.
func DeployAll(ctx context.Context, cs kubernetes.Interface, list []*Scenario, waitTimeout time.Duration) []*Deployed {
	out := make([]*Deployed, len(list))
	sem := make(chan struct{}, deployParallelism)
	var wg sync.WaitGroup
	// Every scenario is created before any is awaited: the waits' polling shares the
	// client's rate limit with the creates and, started early, starved them (a corpus of
	// 229 took 90s to create while the first ones were polled).
	for i, s := range list {
		d := &Deployed{Scenario: s, done: make(chan struct{})}
		out[i] = d
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			d.start = time.Now()
			d.Env, d.err = Deploy(ctx, cs, s)
			<-sem
		}()
	}
	wg.Wait()
	bg := context.WithoutCancel(ctx)
	for _, d := range out {
		if d.err != nil {
			close(d.done)
			continue
		}
		go func() {
			defer close(d.done)
			d.err = d.Ready(bg, d.Env, waitTimeout)
			if d.err != nil {
				d.err = fmt.Errorf("scenario %s: the failure never showed: %w%s", d.Name, d.err, unscheduledPods(bg, d.Env))
			} else if w := MinSettle - time.Since(d.start); w > 0 {
				time.Sleep(w)
			}
			d.ready = time.Since(d.start)
		}()
	}
	return out
}

// unscheduledPods names the scenario's pods the scheduler could not place and why, so a
// failure that never showed because the cluster ran out of room (other scenarios' pods share
// the kwok nodes) says so instead of only "no container restarted".
func unscheduledPods(ctx context.Context, e *Env) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range l.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				fmt.Fprintf(&b, "\n  pod %s not scheduled: %s: %s", p.Name, c.Reason, c.Message)
			}
		}
	}
	return b.String()
}

// CleanupAll removes every deployed scenario's objects.
func CleanupAll(ctx context.Context, ds []*Deployed) error {
	var errs []error
	for _, d := range ds {
		if d == nil || d.Env == nil {
			continue
		}
		if err := d.Env.Cleanup(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.Name, err))
		}
	}
	return errors.Join(errs...)
}
