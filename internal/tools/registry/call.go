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
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kubage/kubage/internal/text"
	"github.com/kubage/kubage/internal/tools"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// Call validates args against the tool's input schema and calls it within the
// server's limits. Errors wrap ErrUnknownTool, kmcp.ErrInvalidArguments,
// ErrMutatingInDiagnose, ErrCircuitOpen or ErrResultTooLarge, or are a *kmcp.Error.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	start := r.opts.Now()
	rec := CallRecord{ID: fmt.Sprintf("call-%d", r.seq.Add(1)), Name: text.ClipMarked(name, 256), Tool: text.ClipMarked(name, 256),
		Args: text.ClipMarked(r.opts.Redact(string(args)), maxLoggedArgs), Start: start}
	res, err := r.call(ctx, name, args, &rec)
	rec.Duration = r.opts.Now().Sub(start)
	res.CallID = rec.ID
	if err != nil {
		rec.Error = text.ClipMarked(r.opts.Redact(err.Error()), 512)
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
			return Result{}, fmt.Errorf("%w: %q on %s needs a Remediate session and approval", ErrMutatingInDiagnose, text.ClipMarked(name, 128), server)
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
func (r *Registry) capText(out string, rec *CallRecord) Result {
	res := Result{Text: out, Bytes: len(out)}
	rec.Bytes = len(out)
	if len(out) > r.opts.MaxResultBytes {
		kept := text.Clip(out, r.opts.MaxResultBytes)
		res.Text = kept + fmt.Sprintf(truncationMarkerFormat, len(kept), len(out))
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
	msg := fmt.Sprintf("%v %q", ErrUnknownTool, text.ClipMarked(name, 128))
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
