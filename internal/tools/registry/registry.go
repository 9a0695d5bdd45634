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
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

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
				Name: t.Name, Tool: t.Name, Description: clip(desc, 2048), InputSchema: t.InputSchema,
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
	srv.sess = sess
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

// Call validates args against the tool's input schema and calls it within the
// server's limits. Errors wrap ErrUnknownTool, kmcp.ErrInvalidArguments,
// ErrMutatingInDiagnose, ErrCircuitOpen or ErrResultTooLarge, or are a *kmcp.Error.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	start := r.opts.Now()
	rec := CallRecord{ID: fmt.Sprintf("call-%d", r.seq.Add(1)), Name: clip(name, 256), Tool: clip(name, 256),
		Args: clip(r.opts.Redact(string(args)), maxLoggedArgs), Start: start}
	res, err := r.call(ctx, name, args, &rec)
	rec.Duration = r.opts.Now().Sub(start)
	res.CallID = rec.ID
	if err != nil {
		rec.Error = clip(r.opts.Redact(err.Error()), 512)
		if rec.Outcome == "" {
			rec.Outcome = OutcomeFailed
		}
	}
	r.append(rec)
	return res, err
}

func (r *Registry) call(ctx context.Context, name string, args json.RawMessage, rec *CallRecord) (Result, error) {
	e, ok := r.byName[name]
	if !ok {
		if server, hidden := r.hidden[name]; hidden {
			rec.Outcome, rec.Server = OutcomeDenied, server
			return Result{}, fmt.Errorf("%w: %q on %s needs a Remediate session and approval", ErrMutatingInDiagnose, clip(name, 128), server)
		}
		rec.Outcome = OutcomeUnknownTool
		return Result{}, r.unknownTool(name)
	}
	rec.Server, rec.Tool = e.info.Server, e.info.Tool
	if err := e.validate(args); err != nil {
		rec.Outcome = OutcomeInvalidArguments
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}
	if e.builtin != nil {
		return r.callBuiltin(ctx, e, args, rec)
	}
	return r.callServer(ctx, e, args, rec)
}

func (r *Registry) callBuiltin(ctx context.Context, e *entry, args json.RawMessage, rec *CallRecord) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.BuiltinTimeout)
	defer cancel()
	out, err := e.builtin.Call(ctx, args)
	if err != nil {
		switch {
		case errors.Is(err, tools.ErrInvalidInput):
			rec.Outcome = OutcomeInvalidArguments
		case errors.Is(err, context.DeadlineExceeded):
			rec.Outcome = OutcomeTimeout
		default:
			// A built-in tool's error (not found, out of scope) is an answer the model can use.
			rec.Outcome = OutcomeToolError
		}
		return Result{}, err
	}
	res := r.capText(out.Text, rec)
	res.Data = out.Data
	res.Truncated = res.Truncated || out.Truncated
	rec.Truncated = res.Truncated
	rec.Outcome = OutcomeOK
	return res, nil
}

func (r *Registry) callServer(ctx context.Context, e *entry, args json.RawMessage, rec *CallRecord) (Result, error) {
	srv := e.server
	if err := srv.br.Allow(); err != nil {
		rec.Outcome = OutcomeCircuitOpen
		return Result{}, fmt.Errorf("%s: %w", srv.key, err)
	}
	// The concurrency wait counts against the call's timeout.
	ctx, cancel := context.WithTimeout(ctx, srv.cfg.Timeout)
	defer cancel()
	select {
	case srv.sem <- struct{}{}:
	case <-ctx.Done():
		srv.br.Release()
		rec.Outcome = OutcomeTimeout
		return Result{}, fmt.Errorf("%s: waited %s for one of %d call slots: %w", srv.key, srv.cfg.Timeout, cap(srv.sem), ctx.Err())
	}
	defer func() { <-srv.sem }()

	sess, err := srv.session(ctx)
	if err == nil {
		var out *kmcp.CallResult
		out, err = sess.CallTool(ctx, e.info.Tool, args)
		if err == nil {
			srv.br.Record(false)
			res := r.capText(out.Text, rec)
			res.IsError = out.IsError
			rec.Outcome = OutcomeOK
			if out.IsError {
				rec.Outcome = OutcomeToolError
			}
			return res, nil
		}
		if kmcp.IsServerFault(err) || kmcp.ReasonOf(err) == kmcp.ReasonResponseTooLarge {
			// The session may be dead (server restarted, SSE stream cut at the size
			// cap); reconnect on the next call.
			srv.drop(sess)
		}
	}
	fault := kmcp.IsServerFault(err) && ctx.Err() != context.Canceled
	srv.br.Record(fault)
	switch kmcp.ReasonOf(err) {
	case kmcp.ReasonTimeout:
		rec.Outcome = OutcomeTimeout
	case kmcp.ReasonResponseTooLarge:
		rec.Outcome = OutcomeTooLarge
		rec.Bytes = int(r.opts.MaxResponseBytes)
		return Result{}, fmt.Errorf("%w: %s answered more than %d bytes; ask for less (narrower query, shorter time range, a limit)",
			ErrResultTooLarge, e.info.Name, r.opts.MaxResponseBytes)
	}
	return Result{}, err
}

// capText cuts text to MaxResultBytes with a marker saying how much was kept.
func (r *Registry) capText(text string, rec *CallRecord) Result {
	res := Result{Text: text, Bytes: len(text)}
	rec.Bytes = len(text)
	if len(text) > r.opts.MaxResultBytes {
		cut := r.opts.MaxResultBytes
		for cut > 0 && (text[cut]&0xC0) == 0x80 {
			cut--
		}
		res.Text = text[:cut] + fmt.Sprintf(truncationMarkerFormat, cut, len(text))
		res.Truncated = true
		rec.Truncated = true
	}
	return res
}

// unknownTool names the closest tools so a model can correct itself.
func (r *Registry) unknownTool(name string) error {
	var suggestions []string
	needle := strings.ToLower(name)
	if i := strings.LastIndexByte(needle, '.'); i >= 0 {
		needle = needle[i+1:]
	}
	for _, e := range r.tools {
		n := strings.ToLower(e.info.Name)
		if strings.Contains(n, needle) || strings.Contains(needle, strings.ToLower(e.info.Tool)) {
			suggestions = append(suggestions, e.info.Name)
		}
		if len(suggestions) >= maxUnknownToolSuggestions {
			break
		}
	}
	if len(suggestions) == 0 {
		for _, e := range r.tools {
			suggestions = append(suggestions, e.info.Name)
			if len(suggestions) >= maxUnknownToolSuggestions {
				break
			}
		}
	}
	msg := fmt.Sprintf("%v %q", ErrUnknownTool, clip(name, 128))
	if len(suggestions) > 0 {
		msg += "; available tools include: " + strings.Join(suggestions, ", ")
	}
	return &unknownToolError{msg: msg}
}

type unknownToolError struct{ msg string }

func (e *unknownToolError) Error() string { return e.msg }
func (e *unknownToolError) Unwrap() error { return ErrUnknownTool }

// CallArgs calls a tool with string arguments (as plan tasks carry them), converting
// each to the type its schema property declares.
func (r *Registry) CallArgs(ctx context.Context, name string, args map[string]string) (Result, error) {
	e, ok := r.byName[name]
	if !ok {
		return r.Call(ctx, name, nil)
	}
	var props map[string]struct {
		Type any `json:"type"`
	}
	var schema struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(e.info.InputSchema, &schema) == nil && len(schema.Properties) > 0 {
		_ = json.Unmarshal(schema.Properties, &props)
	}
	obj := make(map[string]any, len(args))
	for k, v := range args {
		t, _ := props[k].Type.(string)
		obj[k] = tools.ArgValue(t, v)
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return Result{}, err
	}
	return r.Call(ctx, name, raw)
}

// CallLog returns the calls so far, oldest first, and how many older ones were dropped.
func (r *Registry) CallLog() ([]CallRecord, int) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	return append([]CallRecord(nil), r.log...), r.dropped
}

func (r *Registry) append(rec CallRecord) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	if len(r.log) >= r.opts.MaxCallLog {
		r.log = r.log[1:]
		r.dropped++
	}
	r.log = append(r.log, rec)
}

func (e *entry) validate(args json.RawMessage) error {
	e.schemaOnce.Do(func() {
		e.schema, e.schemaErr = kmcp.CompileSchema(e.info.InputSchema)
	})
	if e.schemaErr != nil {
		return fmt.Errorf("%w: the tool's input schema is unusable: %v", kmcp.ErrInvalidArguments, e.schemaErr)
	}
	return e.schema.Validate(args)
}

// serverEntry is one ToolServer's connection and limits within a session.
type serverEntry struct {
	key  string
	name string
	ts   *kubagev1alpha1.ToolServer
	cfg  kmcp.Config
	sem  chan struct{}
	br   *breaker.Breaker

	mu   sync.Mutex
	sess *kmcp.Session
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
		s.sess = nil
		go sess.Close()
	}
}

func (s *serverEntry) close() {
	s.mu.Lock()
	sess := s.sess
	s.sess = nil
	s.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
}

func key(ts *kubagev1alpha1.ToolServer) string { return ts.Namespace + "/" + ts.Name }

// clip shortens s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
