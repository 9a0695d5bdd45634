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

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kubage/kubage/internal/telemetry"
	"github.com/kubage/kubage/internal/text"
	"github.com/kubage/kubage/internal/tools"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/internal/tools/registry"
)

// ToolSpec describes a tool the brain may offer to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Category routes tools (kubernetes, logs, metrics, alerts, knowledge, other).
	Category string `json:"category,omitempty"`
	// Mutating tools change state: never offered or called in Diagnose mode.
	Mutating bool `json:"mutating,omitempty"`
	// Server is the ToolServer offering the tool, empty for a built-in tool.
	Server string `json:"server,omitempty"`
}

// ToolOutput is the bounded result of one call.
type ToolOutput struct {
	Text string
	// Ref names the call in the tool set's log (for evidence references), if it keeps one.
	Ref string
	// IsError means the tool ran and reported a failure in Text.
	IsError   bool
	Truncated bool
}

// ToolSet is what the brain can call: the built-in tools now, the session registry
// (built-in plus MCP) when the controller provides it.
type ToolSet interface {
	List() []ToolSpec
	Call(ctx context.Context, name string, args json.RawMessage) (ToolOutput, error)
}

// MaxToolOutputBytes bounds one tool result kept by the brain.
const MaxToolOutputBytes = 16 << 10

// BuiltinTools adapts the built-in read-only Kubernetes tools.
func BuiltinTools(reg *tools.Registry) ToolSet { return builtinSet{reg} }

type builtinSet struct{ reg *tools.Registry }

func (b builtinSet) List() []ToolSpec {
	ts := b.reg.Tools()
	out := make([]ToolSpec, 0, len(ts))
	for _, t := range ts {
		out = append(out, ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema(), Category: "kubernetes"})
	}
	return out
}

func (b builtinSet) Call(ctx context.Context, name string, args json.RawMessage) (ToolOutput, error) {
	res, err := b.reg.Call(ctx, name, args)
	if err != nil {
		return ToolOutput{}, err
	}
	return ToolOutput{Text: res.Text, Truncated: res.Truncated}, nil
}

// RegistryTools adapts a session's tool registry (built-in and ToolServer tools).
func RegistryTools(reg *registry.Registry) ToolSet { return registrySet{reg} }

type registrySet struct{ reg *registry.Registry }

func (r registrySet) List() []ToolSpec {
	ts := r.reg.Tools()
	out := make([]ToolSpec, 0, len(ts))
	for _, t := range ts {
		cat := t.Category
		if cat == "" && t.Server == "" {
			cat = "kubernetes"
		}
		out = append(out, ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Category: cat, Mutating: t.Mutating, Server: t.Server})
	}
	return out
}

func (r registrySet) Call(ctx context.Context, name string, args json.RawMessage) (ToolOutput, error) {
	res, err := r.reg.Call(ctx, name, args)
	if err != nil {
		return ToolOutput{Ref: res.CallID}, err
	}
	return ToolOutput{Text: res.Text, Ref: res.CallID, IsError: res.IsError, Truncated: res.Truncated}, nil
}

// toolGate is the brain's view of a tool set for one session: mutating tools removed
// in Diagnose mode, schemas compiled once, arguments checked before any call.
type toolGate struct {
	set     ToolSet
	offered []ToolSpec
	byName  map[string]ToolSpec
	hidden  map[string]bool

	mu       sync.Mutex
	compiled map[string]*kmcp.Schema
}

func newToolGate(set ToolSet) *toolGate {
	g := &toolGate{set: set, byName: map[string]ToolSpec{}, hidden: map[string]bool{}, compiled: map[string]*kmcp.Schema{}}
	if set == nil {
		return g
	}
	for _, t := range set.List() {
		if t.Name == "" || g.byName[t.Name].Name != "" {
			continue
		}
		// Never offered in Diagnose mode; in Remediate mode changes are proposed as
		// actions that run only after approval, so the investigation never mutates either.
		if t.Mutating {
			g.hidden[t.Name] = true
			continue
		}
		g.offered = append(g.offered, t)
		g.byName[t.Name] = t
	}
	return g
}

// Refusals a model gets back instead of a tool result.
var (
	errUnknownTool = errors.New("unknown tool")
	errMutating    = errors.New("tool changes state and is never called by the investigation")
	errBadArgs     = errors.New("invalid arguments")
)

// check validates a call before it is made.
func (g *toolGate) check(name string, args json.RawMessage) error {
	if g.hidden[name] {
		return fmt.Errorf("%w: %q is not available to the investigation; propose the change as a remediation action instead", errMutating, text.ClipMarked(name, 80))
	}
	spec, ok := g.byName[name]
	if !ok {
		return fmt.Errorf("%w %q; available tools: %s", errUnknownTool, text.ClipMarked(name, 80), strings.Join(g.names(12), ", "))
	}
	if len(args) > 0 && !json.Valid(args) {
		return fmt.Errorf("%w for %s: arguments are not valid JSON", errBadArgs, name)
	}
	s, err := g.schema(spec)
	if err != nil {
		return fmt.Errorf("%w for %s: %v", errBadArgs, name, err)
	}
	if err := s.Validate(args); err != nil {
		return fmt.Errorf("%w for %s: %s", errBadArgs, name, strings.TrimPrefix(err.Error(), kmcp.ErrInvalidArguments.Error()+": "))
	}
	return nil
}

func (g *toolGate) schema(spec ToolSpec) (*kmcp.Schema, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.compiled[spec.Name]; ok {
		return s, nil
	}
	raw := spec.InputSchema
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	s, err := kmcp.CompileSchema(raw)
	if err != nil {
		return nil, err
	}
	g.compiled[spec.Name] = s
	return s, nil
}

func (g *toolGate) names(n int) []string {
	out := make([]string, 0, min(n, len(g.offered)))
	for _, t := range g.offered {
		if len(out) == n {
			out = append(out, "…")
			break
		}
		out = append(out, t.Name)
	}
	return out
}

// call runs a checked tool call, in a span of its own.
func (g *toolGate) call(ctx context.Context, name string, args json.RawMessage) (out ToolOutput, err error) {
	spec := g.byName[name]
	ctx, span := telemetry.Tracer().Start(ctx, "tool "+text.ClipMarked(name, 128), trace.WithAttributes(
		attribute.String("kubage.tool", text.ClipMarked(name, 128)), attribute.String("kubage.tool.server", spec.Server)))
	defer func() {
		span.SetAttributes(attribute.Int("kubage.tool.output_bytes", len(out.Text)), attribute.Bool("kubage.tool.truncated", out.Truncated))
		telemetry.Fail(span, err)
		span.End()
	}()
	if err := g.check(name, args); err != nil {
		return ToolOutput{}, err
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	return g.set.Call(ctx, name, args)
}

// argsFromStrings turns a plan task's string arguments into JSON typed by the schema.
func (g *toolGate) argsFromStrings(name string, args map[string]string) (json.RawMessage, error) {
	spec, ok := g.byName[name]
	if !ok {
		return nil, g.check(name, nil)
	}
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(spec.InputSchema, &schema)
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	obj := make(map[string]any, len(args))
	for _, k := range keys {
		t, _ := schema.Properties[k].Type.(string)
		obj[k] = tools.ArgValue(t, args[k])
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return raw, g.check(name, raw)
}

// openaiTools renders the offered tools for a request.
func (g *toolGate) specs() []ToolSpec { return g.offered }
