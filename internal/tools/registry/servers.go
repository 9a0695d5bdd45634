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

package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/breaker"
	"github.com/kubage/kubage/internal/text"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// selectServers returns the Ready ToolServers that match the selector and admit the namespace.
func (r *Registry) selectServers(ctx context.Context) ([]*kubagev1alpha1.ToolServer, error) {
	list, err := r.opts.Cluster.ListToolServers(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing ToolServers: %w", err)
	}
	sel := labels.Everything()
	if r.opts.Selector != nil {
		if sel, err = metav1.LabelSelectorAsSelector(r.opts.Selector); err != nil {
			return nil, fmt.Errorf("spec.toolServers: %w", err)
		}
	}
	var nsLabels map[string]string
	nsLoaded := false
	var out []*kubagev1alpha1.ToolServer
	for i := range list {
		ts := &list[i]
		if !sel.Matches(labels.Set(ts.Labels)) {
			continue
		}
		if ts.Spec.AllowedNamespaces.From == kubagev1alpha1.NamespacesFromSelector && !nsLoaded {
			if nsLabels, err = r.opts.Cluster.NamespaceLabels(ctx, r.opts.Namespace); err != nil {
				return nil, fmt.Errorf("reading namespace %s: %w", r.opts.Namespace, err)
			}
			nsLoaded = true
		}
		if !Admits(ts, r.opts.Namespace, nsLabels) {
			continue
		}
		if !meta.IsStatusConditionTrue(ts.Status.Conditions, kubagev1alpha1.ReadyCondition) {
			reason := "NotReady"
			if c := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition); c != nil {
				reason = c.Reason
			}
			r.problems = append(r.problems, ServerProblem{Server: key(ts), Reason: reason, Message: "the ToolServer is not Ready"})
			continue
		}
		out = append(out, ts)
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out, nil
}

// openServers connects to the servers in parallel and collects their tools.
func (r *Registry) openServers(ctx context.Context, servers []*kubagev1alpha1.ToolServer) {
	results := make([]openResult, len(servers))
	sem := make(chan struct{}, defaultOpenParallelism)
	var wg sync.WaitGroup
	for i, ts := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = r.openServer(ctx, ts)
		}()
	}
	wg.Wait()
	for _, res := range results {
		if res.err != nil {
			r.problems = append(r.problems, ServerProblem{Server: res.srv.key, Reason: string(kmcp.ReasonOf(res.err)), Message: res.err.Error()})
			continue
		}
		r.servers = append(r.servers, res.srv)
		policy := res.srv.ts.Spec.Tools
		seen := map[string]bool{}
		kept := 0
		for _, t := range res.tools {
			if t.SchemaError != "" || seen[t.Name] || !Allowed(policy, t.Name) {
				continue
			}
			seen[t.Name] = true
			mutating := Mutating(policy, t)
			if mutating && r.opts.Mode != kubagev1alpha1.ModeRemediate {
				r.hidden[t.Name] = res.srv.key
				continue
			}
			if kept >= r.opts.MaxToolsPerServer {
				r.problems = append(r.problems, ServerProblem{Server: res.srv.key, Reason: "TooManyTools",
					Message: fmt.Sprintf("only the first %d allowed tools are offered", r.opts.MaxToolsPerServer)})
				break
			}
			kept++
			desc := t.Description
			if desc == "" {
				desc = t.Title
			}
			r.tools = append(r.tools, &entry{server: res.srv, info: ToolInfo{
				Name: t.Name, Tool: t.Name, Description: text.ClipMarked(desc, 2048), InputSchema: t.InputSchema,
				Server: res.srv.key, Category: string(res.srv.ts.Spec.Category), Mutating: mutating,
			}})
		}
	}
}

// openResult is what connecting to one server gave.
type openResult struct {
	srv   *serverEntry
	tools []kmcp.Tool
	err   error
}

func (r *Registry) openServer(ctx context.Context, ts *kubagev1alpha1.ToolServer) (res openResult) {
	srv := &serverEntry{key: key(ts), name: ts.Name, ts: ts,
		sem: make(chan struct{}, r.opts.MaxConcurrent),
		br:  breaker.New(r.opts.BreakerThreshold, r.opts.BreakerCooldown, r.opts.Now)}
	res.srv = srv
	headers, err := r.opts.Cluster.Headers(ctx, ts)
	if err != nil {
		var missing *MissingReferenceError
		if errors.As(err, &missing) {
			res.err = &kmcp.Error{Reason: kmcp.Reason(missing.Kind + "NotFound"), Op: "headers", Err: err}
		} else {
			res.err = &kmcp.Error{Reason: "HeadersUnavailable", Op: "headers", Err: err}
		}
		return res
	}
	srv.cfg = ConfigFor(ts, headers)
	srv.cfg.MaxResponseBytes = r.opts.MaxResponseBytes
	srv.cfg.Logger = r.opts.Logger
	if srv.pool = r.opts.Pool; srv.pool != nil {
		srv.poolKey = poolKey(srv.key, srv.cfg)
		if sess, tools, ok := srv.pool.take(srv.poolKey); ok {
			srv.sess, srv.tools, res.tools = sess, tools, tools
			return res
		}
	}
	sess, err := kmcp.Connect(ctx, srv.cfg)
	if err != nil {
		res.err = err
		return res
	}
	list, err := sess.ListTools(ctx)
	if err != nil {
		sess.Close()
		res.err = err
		return res
	}
	srv.sess, srv.tools = sess, list.Tools
	res.tools = list.Tools
	return res
}

// assignNames gives every tool a session-unique name: built-in tools keep theirs,
// a server tool whose name is offered twice becomes <server>.<tool> (and
// <namespace>.<server>.<tool> if that still collides).
func (r *Registry) assignNames() {
	count := map[string]int{}
	for _, e := range r.tools {
		count[e.info.Tool]++
	}
	for _, e := range r.tools {
		name := e.info.Tool
		if e.server != nil && count[name] > 1 {
			name = e.server.name + "." + e.info.Tool
			if _, taken := r.byName[name]; taken {
				name = e.server.ts.Namespace + "." + name
			}
		}
		if _, taken := r.byName[name]; taken {
			continue
		}
		e.info.Name = name
		r.byName[name] = e
	}
	kept := r.tools[:0]
	for _, e := range r.tools {
		if r.byName[e.info.Name] == e {
			kept = append(kept, e)
		}
	}
	r.tools = kept
}

// serverEntry is one ToolServer's connection and limits within a session.
type serverEntry struct {
	key  string
	name string
	ts   *kubagev1alpha1.ToolServer
	cfg  kmcp.Config
	sem  chan struct{}
	br   *breaker.Breaker

	// pool takes the session back on close (nil: it is closed); tools are what the
	// session listed, lent along with it.
	pool    *Pool
	poolKey string
	tools   []kmcp.Tool

	mu   sync.Mutex
	sess *kmcp.Session
	// failed is set when a session was dropped: its successor is not pooled, since
	// its tool list was not read again.
	failed bool
}

// session returns the open session, reconnecting if a previous one was dropped.
func (s *serverEntry) session(ctx context.Context) (*kmcp.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != nil {
		return s.sess, nil
	}
	sess, err := kmcp.Connect(ctx, s.cfg)
	if err != nil {
		return nil, err
	}
	s.sess = sess
	return sess, nil
}

func (s *serverEntry) drop(sess *kmcp.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == sess {
		s.sess, s.failed = nil, true
		go sess.Close()
	}
}

func (s *serverEntry) close() {
	s.mu.Lock()
	sess, failed := s.sess, s.failed
	s.sess = nil
	s.mu.Unlock()
	switch {
	case sess == nil:
	case s.pool != nil && !failed:
		s.pool.put(s.poolKey, sess, s.tools)
	default:
		sess.Close()
	}
}

func key(ts *kubagev1alpha1.ToolServer) string { return ts.Namespace + "/" + ts.Name }
