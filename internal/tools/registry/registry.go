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

// Package registry gives an investigation session the tools it may call: the built-in
// read-only Kubernetes tools plus the tools of every Ready ToolServer that admits the
// session's namespace and matches its selector, minus denied tools and, in Diagnose
// mode, minus mutating ones. Calls are validated against the tool's input schema and
// bounded per server (timeout, circuit breaker, concurrency limit, result size), and
// every call is logged so the brains can cite it as evidence.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/breaker"
	"github.com/kubage/kubage/internal/tools"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// Errors a brain can relay to a model; they name what to do instead.
var (
	// ErrUnknownTool: no tool of that name in this session.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrMutatingInDiagnose: the tool changes state and the session is read-only.
	ErrMutatingInDiagnose = errors.New("tool changes state and this session is in Diagnose mode")
	// ErrResultTooLarge: the server's answer exceeded the transport size cap.
	ErrResultTooLarge = errors.New("tool result too large")
	// ErrCircuitOpen: the server's recent calls kept failing, so it is not called until its cooldown ends.
	ErrCircuitOpen = breaker.ErrOpen
)

// Defaults of Options.
const (
	DefaultMaxResultBytes     = 64 << 10
	DefaultMaxConcurrent      = 4
	DefaultBreakerThreshold   = 5
	DefaultBreakerCooldown    = 30 * time.Second
	DefaultMaxCallLog         = 1000
	DefaultBuiltinTimeout     = 30 * time.Second
	DefaultMaxToolsPerServer  = 256
	DefaultMaxResponseBytes   = 8 << 20
	defaultOpenParallelism    = 8
	maxLoggedArgs             = 1024
	truncationMarkerFormat    = "\n…[truncated: %d of %d bytes shown]"
	maxUnknownToolSuggestions = 8
)

// Options describe one session's view of the tools.
type Options struct {
	// Namespace is the session's namespace.
	Namespace string
	// Selector is the Troubleshoot's spec.toolServers; nil selects every admitting server.
	Selector *metav1.LabelSelector
	// Mode is Diagnose (default: mutating tools are hidden) or Remediate.
	Mode kubagev1alpha1.Mode
	// Builtin is the built-in tool registry scoped to Namespace; nil for none.
	Builtin *tools.Registry
	// Cluster lists ToolServers and resolves their headers; nil for built-in tools only.
	Cluster Cluster

	MaxResultBytes    int
	MaxResponseBytes  int64
	MaxConcurrent     int
	MaxToolsPerServer int
	BreakerThreshold  int
	BreakerCooldown   time.Duration
	BuiltinTimeout    time.Duration
	MaxCallLog        int
	// Redact, when set, cleans the arguments and errors kept in the call log, which
	// ends up in evidence that anyone reading the Troubleshoot sees.
	Redact func(string) string
	Now    func() time.Time
	Logger *slog.Logger
	// Pool, when set, lends server sessions opened by earlier registries and takes them
	// back on Close (see Pool); nil opens and closes them with this registry.
	Pool *Pool
}

func (o *Options) defaults() {
	if o.Mode == "" {
		o.Mode = kubagev1alpha1.ModeDiagnose
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.MaxToolsPerServer <= 0 {
		o.MaxToolsPerServer = DefaultMaxToolsPerServer
	}
	if o.BreakerThreshold <= 0 {
		o.BreakerThreshold = DefaultBreakerThreshold
	}
	if o.BreakerCooldown <= 0 {
		o.BreakerCooldown = DefaultBreakerCooldown
	}
	if o.BuiltinTimeout <= 0 {
		o.BuiltinTimeout = DefaultBuiltinTimeout
	}
	if o.MaxCallLog <= 0 {
		o.MaxCallLog = DefaultMaxCallLog
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// ToolInfo describes one callable tool.
type ToolInfo struct {
	// Name is unique in the session: the tool's own name, or <server>.<tool> when
	// two sources offer the same name.
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Server is "namespace/name" of the ToolServer, empty for a built-in tool.
	Server string `json:"server,omitempty"`
	// Tool is the name on the server (equal to Name for built-in tools).
	Tool     string `json:"tool"`
	Category string `json:"category,omitempty"`
	Mutating bool   `json:"mutating,omitempty"`
}

// ServerProblem says why a selected server contributes no tools to the session.
type ServerProblem struct {
	Server  string `json:"server"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Result is the outcome of a call.
type Result struct {
	// CallID names the call log entry, for evidence references.
	CallID string `json:"callId"`
	Text   string `json:"text"`
	// IsError is true when the tool ran and reported a failure.
	IsError bool `json:"isError,omitempty"`
	// Truncated is true when Text was cut to the size cap; Bytes is the size before.
	Truncated bool `json:"truncated,omitempty"`
	Bytes     int  `json:"bytes"`
	// Data is the structured result of a built-in tool.
	Data any `json:"data,omitempty"`
}

// Outcome classifies a call in the log.
type Outcome string

const (
	OutcomeOK               Outcome = "OK"
	OutcomeToolError        Outcome = "ToolError"
	OutcomeUnknownTool      Outcome = "UnknownTool"
	OutcomeInvalidArguments Outcome = "InvalidArguments"
	OutcomeDenied           Outcome = "Denied"
	OutcomeCircuitOpen      Outcome = "CircuitOpen"
	OutcomeTimeout          Outcome = "Timeout"
	OutcomeTooLarge         Outcome = "TooLarge"
	OutcomeFailed           Outcome = "Failed"
)

// CallRecord is one entry of the session's call log.
type CallRecord struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Server    string        `json:"server,omitempty"`
	Tool      string        `json:"tool"`
	Args      string        `json:"args,omitempty"`
	Start     time.Time     `json:"start"`
	Duration  time.Duration `json:"duration"`
	Outcome   Outcome       `json:"outcome"`
	Bytes     int           `json:"bytes"`
	Truncated bool          `json:"truncated,omitempty"`
	Error     string        `json:"error,omitempty"`
}

// Registry is one session's set of callable tools. It is safe for concurrent use.
type Registry struct {
	opts    Options
	tools   []*entry
	byName  map[string]*entry
	hidden  map[string]string // mutating tools hidden in Diagnose mode: name -> server
	servers []*serverEntry

	problems []ServerProblem

	seq     atomic.Int64
	logMu   sync.Mutex
	log     []CallRecord
	dropped int
}

type entry struct {
	info    ToolInfo
	builtin tools.Tool
	server  *serverEntry

	schemaOnce sync.Once
	schema     *kmcp.Schema
	schemaErr  error
}

// Open builds the registry for a session. A server that cannot be reached is
// reported in Problems, not as an error; errors are reserved for failing to list
// ToolServers at all.
func Open(ctx context.Context, opts Options) (*Registry, error) {
	opts.defaults()
	r := &Registry{opts: opts, byName: map[string]*entry{}, hidden: map[string]string{}}
	if opts.Builtin != nil {
		for _, t := range opts.Builtin.Tools() {
			r.tools = append(r.tools, &entry{builtin: t, info: ToolInfo{
				Name: t.Name(), Tool: t.Name(), Description: t.Description(), InputSchema: t.Schema(), Category: "kubernetes",
			}})
		}
	}
	if opts.Cluster != nil {
		servers, err := r.selectServers(ctx)
		if err != nil {
			return nil, err
		}
		r.openServers(ctx, servers)
	}
	r.assignNames()
	return r, nil
}

// Tools lists the callable tools: built-in ones first, then by server.
func (r *Registry) Tools() []ToolInfo {
	out := make([]ToolInfo, 0, len(r.tools))
	for _, e := range r.tools {
		out = append(out, e.info)
	}
	return out
}

// Lookup returns a tool by session name.
func (r *Registry) Lookup(name string) (ToolInfo, bool) {
	e, ok := r.byName[name]
	if !ok {
		return ToolInfo{}, false
	}
	return e.info, true
}

// Problems lists selected servers that contribute no tools, and why.
func (r *Registry) Problems() []ServerProblem { return append([]ServerProblem(nil), r.problems...) }

// Close ends the server sessions.
func (r *Registry) Close() {
	for _, s := range r.servers {
		s.close()
	}
}
