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
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/remote"
)

// Remote clusters: a session with spec.cluster investigates another cluster through the
// kubeconfig of a Secret in its namespace. The session's state (checkpoint, results,
// report, task Jobs) stays in the operator's cluster; only what reads the cluster under
// investigation (the target check, the tools, the rule engine, approved remediations)
// uses the remote client.

const (
	// probeEvery is how long a successful probe of a remote cluster is trusted.
	probeEvery = 30 * time.Second
	// maxRemoteClusters bounds the clients kept, one per kubeconfig and context.
	maxRemoteClusters = 64
	// Retry delays of a session waiting for its cluster: an unreachable server may come
	// back soon; a refused kubeconfig or refused credentials need someone to fix a Secret.
	unreachableRetry = 15 * time.Second
	refusedRetry     = time.Minute
)

// RemoteClusters reads kubeconfig Secrets (with ReadSecret, the way every Secret a session
// names is read), refuses what internal/remote refuses, and keeps one client per kubeconfig,
// so a rotated Secret gets a new client and an unchanged one keeps its connections.
type RemoteClusters struct {
	ReadSecret ReadSecret
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu      sync.Mutex
	clients map[string]*remoteClient
}

type remoteClient struct {
	cs kubernetes.Interface
	// probed is when each namespace was last probed successfully.
	probed map[string]time.Time
}

// Client implements task.Clusters: the client of ref's kubeconfig, not probed.
func (c *RemoteClusters) Client(ctx context.Context, ref agent.ClusterRef) (kubernetes.Interface, error) {
	rc, err := c.client(ctx, ref)
	if err != nil {
		return nil, err
	}
	return rc.cs, nil
}

// Check returns the client of ref's kubeconfig after making sure, at most every probeEvery,
// that the cluster answers and the credentials may read namespace there.
func (c *RemoteClusters) Check(ctx context.Context, ref agent.ClusterRef, namespace string) (kubernetes.Interface, error) {
	rc, err := c.client(ctx, ref)
	if err != nil {
		return nil, err
	}
	now := c.now()
	c.mu.Lock()
	last, ok := rc.probed[namespace]
	c.mu.Unlock()
	if ok && now.Sub(last) < probeEvery {
		return rc.cs, nil
	}
	if err := remote.Probe(ctx, rc.cs, namespace); err != nil {
		return nil, err
	}
	c.mu.Lock()
	rc.probed[namespace] = now
	c.mu.Unlock()
	return rc.cs, nil
}

func (c *RemoteClusters) client(ctx context.Context, ref agent.ClusterRef) (*remoteClient, error) {
	data, err := c.ReadSecret(ctx, ref.Secret)
	switch {
	case apierrors.IsNotFound(err):
		return nil, &remote.Error{Reason: kubagev1alpha1.SecretNotFoundReason, Err: fmt.Errorf("the kubeconfig Secret %s does not exist", ref.Secret)}
	case apierrors.IsForbidden(err):
		return nil, &remote.Error{Reason: kubagev1alpha1.ForbiddenReason, Err: fmt.Errorf("the kubeconfig Secret %s may not be read: %w", ref.Secret, err)}
	case err != nil:
		return nil, fmt.Errorf("reading the kubeconfig Secret %s: %w", ref.Secret, err)
	}
	raw, ok := data[ref.Key]
	if !ok {
		return nil, &remote.Error{Reason: kubagev1alpha1.SecretNotFoundReason, Err: fmt.Errorf("the Secret %s has no key %q", ref.Secret, ref.Key)}
	}
	sum := sha256.Sum256(append(append([]byte(ref.Context), 0), raw...))
	key := string(sum[:])
	c.mu.Lock()
	rc, ok := c.clients[key]
	c.mu.Unlock()
	if ok {
		return rc, nil
	}
	cfg, err := remote.Load(raw, ref.Context)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig in Secret %s[%s]: %w", ref.Secret, ref.Key, err)
	}
	cs, err := remote.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clients == nil || len(c.clients) >= maxRemoteClusters {
		c.clients = map[string]*remoteClient{}
	}
	if rc, ok := c.clients[key]; ok {
		return rc, nil
	}
	rc = &remoteClient{cs: cs, probed: map[string]time.Time{}}
	c.clients[key] = rc
	return rc, nil
}

func (c *RemoteClusters) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// ClusterChecker gives a step the client of its session's other cluster, checked.
type ClusterChecker interface {
	Check(ctx context.Context, ref agent.ClusterRef, namespace string) (kubernetes.Interface, error)
}

// sessionCluster is the cluster under investigation of a session that has not finished:
// the remote one of its kubeconfig, checked, or nil for the operator's own. A session
// that cannot reach it waits with the reason (KubeConfigRefused, ClusterUnreachable,
// ClusterUnauthorized, ClusterForbidden, SecretNotFound, Forbidden, EgressDenied).
func (w *work) sessionCluster(ctx context.Context) (kubernetes.Interface, error) {
	ref := w.ck.Session.Cluster
	if w.st.Phase == "" || w.st.Phase == kubagev1alpha1.PhasePending {
		// Not started: the spec says which cluster the run will investigate.
		ref = ClusterRefOf(w.ts)
	}
	if ref == nil {
		return nil, nil
	}
	if w.e.Clusters == nil {
		return nil, serror.NewStalling(kubagev1alpha1.KubeConfigRefusedReason, errors.New("this operator is not set up to investigate other clusters"))
	}
	cs, err := w.e.Clusters.Check(ctx, *ref, w.ts.Namespace)
	if err == nil {
		return cs, nil
	}
	reason := remote.ReasonOf(err)
	if reason == "" {
		return nil, err
	}
	after := refusedRetry
	if reason == kubagev1alpha1.ClusterUnreachableReason {
		after = unreachableRetry
	}
	switch w.st.Phase {
	case kubagev1alpha1.PhaseAwaitingApproval, kubagev1alpha1.PhaseRemediating:
		// Waiting for people, not for time: an approval may come after the deadline.
	default:
		left := w.waitDeadline().Sub(w.now)
		if left <= 0 {
			return nil, &clusterDeadline{reason: reason, err: err}
		}
		after = min(after, left+time.Second)
	}
	return nil, &serror.Waiting{Reason: reason, Err: err, RequeueAfter: after}
}

// waitDeadline is when a session stops waiting for its cluster: its budget.timeout after it
// started, or after it was created when it never could.
func (w *work) waitDeadline() time.Time {
	if w.st.StartTime == nil && !w.ts.CreationTimestamp.IsZero() {
		timeout := defaultTimeout
		if t := w.ts.Spec.Budget.Timeout; t != nil && t.Duration > 0 {
			timeout = t.Duration
		}
		return w.ts.CreationTimestamp.Add(timeout)
	}
	return w.deadline()
}

// clusterDeadline ends a session whose cluster stayed unusable past its budget.timeout: it
// fails with the cluster's reason instead of waiting forever.
type clusterDeadline struct {
	reason string
	err    error
}

func (e *clusterDeadline) Error() string {
	return "the session's cluster stayed unusable until its deadline: " + e.err.Error()
}
