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
	"sync"
	"time"

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
// 2-core machine needs most of it for the failures that take several restarts (at 323
// scenarios, OOMKilled restarts and a three-replica StatefulSet's ordered start ran past 4m).
const FailureTimeout = 6 * time.Minute

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
				d.err = fmt.Errorf("scenario %s: the failure never showed: %w", d.Name, d.err)
			}
			d.ready = time.Since(d.start)
		}()
	}
	return out
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
