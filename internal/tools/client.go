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

package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kubage/kubage/internal/text"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// Scope confines a session to one namespace plus cluster-scoped objects.
type Scope struct {
	Namespace string `json:"namespace"`
}

// ErrOutOfScope marks a request for something outside the session's scope.
var ErrOutOfScope = errors.New("outside this session's scope")

// NotFoundError says, in plain words, which object does not exist.
type NotFoundError struct {
	Kind, Namespace, Name string
}

func (e *NotFoundError) Error() string {
	if e.Namespace == "" {
		return fmt.Sprintf("no such %s %s", e.Kind, e.Name)
	}
	return fmt.Sprintf("no such %s %s in %s", e.Kind, e.Name, e.Namespace)
}

// IsNotFound reports whether err means the object does not exist.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf) || apierrors.IsNotFound(err)
}

// Client is a scoped, request-counting view of a kubernetes.Interface. Every API request
// made by the tools goes through it, so Requests() is the exact count for a session.
type Client struct {
	cs       kubernetes.Interface
	scope    Scope
	requests atomic.Int64
	now      func() time.Time
	logs     LogSource
	cache    ObjectCache
}

// NewClient wraps a clientset for one scope.
func NewClient(cs kubernetes.Interface, scope Scope) *Client {
	return &Client{cs: cs, scope: scope, now: time.Now}
}

// SetClock replaces the clock used for ages and time windows (tests, replays).
func (c *Client) SetClock(now func() time.Time) {
	if now != nil {
		c.now = now
	}
}

// Now is the client's current time.
func (c *Client) Now() time.Time { return c.now() }

// Namespace is the session namespace.
func (c *Client) Namespace() string { return c.scope.Namespace }

// Scope returns the client's scope.
func (c *Client) Scope() Scope { return c.scope }

// Requests is the number of API requests made so far.
func (c *Client) Requests() int64 { return c.requests.Load() }

func (c *Client) count() { c.requests.Add(1) }

// CheckNamespace accepts "" or the session namespace and rejects anything else.
func (c *Client) CheckNamespace(ns string) error {
	if c.scope.Namespace == "" {
		return fmt.Errorf("%w: no namespace set for this session", ErrOutOfScope)
	}
	if ns != "" && ns != c.scope.Namespace {
		return fmt.Errorf("namespace %q is %w (only %q and cluster-scoped objects are visible)", text.ClipMarked(ns, 63), ErrOutOfScope, c.scope.Namespace)
	}
	return nil
}

// Get fetches one object of a known kind; namespaced kinds come from the session namespace.
func (c *Client) Get(ctx context.Context, kind, name string) (runtime.Object, *KindInfo, error) {
	k, err := ResolveKind(kind)
	if err != nil {
		return nil, nil, err
	}
	if err := c.CheckNamespace(""); err != nil && k.Namespaced {
		return nil, k, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, k, fmt.Errorf("%w: a %s name is required", ErrInvalidInput, k.Kind)
	}
	ns := ""
	if k.Namespaced {
		ns = c.scope.Namespace
	}
	if c.cache != nil && ns != "" {
		if obj, ok := c.cache.Get(ctx, k.Kind, ns, name); ok {
			return obj, k, nil
		}
	}
	c.count()
	obj, err := k.get(ctx, c.cs, ns, name)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, k, &NotFoundError{Kind: k.Kind, Namespace: ns, Name: text.ClipMarked(name, 253)}
		}
		return nil, k, fmt.Errorf("get %s %s: %w", k.Kind, text.ClipMarked(name, 253), err)
	}
	return obj, k, nil
}

// ListOptions bound a list call.
type ListOptions struct {
	LabelSelector string
	FieldSelector string
	// Max caps the number of objects returned (DefaultListMax when <= 0).
	Max int
}

// DefaultListMax bounds a list when the caller gives no cap.
const DefaultListMax = 500

// HardListMax is the most objects any single list may return, whatever the caller asks.
const HardListMax = 5000

const pageSize = 500

// ListResult is one bounded list.
type ListResult struct {
	Items []runtime.Object
	// More is true when objects beyond Max exist (Items is a prefix).
	More bool
	// Remaining estimates how many were left out when the server says so.
	Remaining int64
}

// List lists objects of a kind in the session namespace (or cluster-wide for
// cluster-scoped kinds), paging through at most opts.Max objects.
func (c *Client) List(ctx context.Context, kind string, opts ListOptions) (ListResult, *KindInfo, error) {
	k, err := ResolveKind(kind)
	if err != nil {
		return ListResult{}, nil, err
	}
	ns := ""
	if k.Namespaced {
		if err := c.CheckNamespace(""); err != nil {
			return ListResult{}, k, err
		}
		ns = c.scope.Namespace
	}
	res, err := c.list(ctx, k, ns, opts)
	return res, k, err
}

func (c *Client) list(ctx context.Context, k *KindInfo, ns string, opts ListOptions) (ListResult, error) {
	max := opts.Max
	if max <= 0 {
		max = DefaultListMax
	}
	if max > HardListMax {
		max = HardListMax
	}
	var out ListResult
	if c.cache != nil && ns != "" {
		if items, ok := c.cache.List(ctx, k.Kind, ns, opts); ok {
			if len(items) > max {
				out.More, out.Remaining, items = true, int64(len(items)-max), items[:max]
			}
			out.Items = items
			return out, nil
		}
	}
	cont := ""
	for pages := 0; pages < HardListMax/pageSize+1; pages++ {
		limit := int64(max - len(out.Items))
		if limit > pageSize {
			limit = pageSize
		}
		c.count()
		items, lm, err := k.list(ctx, c.cs, ns, metav1.ListOptions{
			LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector,
			Limit: limit, Continue: cont,
		})
		if err != nil {
			return out, fmt.Errorf("list %s: %w", k.Plural, err)
		}
		// Clients that ignore Limit (fakes, old servers) still get a bounded result.
		room := max - len(out.Items)
		if len(items) > room {
			out.More = true
			out.Remaining += int64(len(items) - room)
			items = items[:room]
		}
		out.Items = append(out.Items, items...)
		cont = lm.Continue
		if cont == "" {
			break
		}
		if len(out.Items) >= max {
			out.More = true
			if lm.RemainingItemCount != nil {
				out.Remaining += *lm.RemainingItemCount
			}
			break
		}
	}
	return out, nil
}

// listAllNamespaces is used only for node-level aggregates (requests on a node), whose
// callers must not reveal names from other namespaces.
func (c *Client) listAllNamespaces(ctx context.Context, kind string, opts ListOptions) (ListResult, error) {
	k, err := ResolveKind(kind)
	if err != nil {
		return ListResult{}, err
	}
	return c.list(ctx, k, metav1.NamespaceAll, opts)
}

// GetAs fetches an object and asserts its Go type.
func GetAs[T runtime.Object](ctx context.Context, c *Client, kind, name string) (T, error) {
	var zero T
	obj, _, err := c.Get(ctx, kind, name)
	if err != nil {
		return zero, err
	}
	t, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("unexpected type %T for %s", obj, kind)
	}
	return t, nil
}

// ListAs lists objects and asserts their Go type.
func ListAs[T runtime.Object](ctx context.Context, c *Client, kind string, opts ListOptions) ([]T, bool, error) {
	res, _, err := c.List(ctx, kind, opts)
	if err != nil {
		return nil, false, err
	}
	out := make([]T, 0, len(res.Items))
	for _, o := range res.Items {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out, res.More, nil
}

// metaOf returns an object's metadata accessor (nil-safe).
func metaOf(obj runtime.Object) metav1.Object {
	if obj == nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return m
}

// KindNames lists the canonical kinds the tools know, sorted.
func KindNames() []string {
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		if !k.internal {
			out = append(out, k.Kind)
		}
	}
	sort.Strings(out)
	return out
}

// ResolveKind maps a kind, plural or short name (any case) to its KindInfo.
func ResolveKind(s string) (*KindInfo, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexByte(key, '.'); i > 0 {
		key = key[:i] // "deployments.apps" → "deployments"
	}
	if k, ok := kindIndex[key]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("%w: unknown kind %q (known: %s)", ErrInvalidInput, text.ClipMarked(s, 60), strings.Join(KindNames(), ", "))
}
