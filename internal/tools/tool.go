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

// Package tools holds KubAge's built-in read-only Kubernetes tools: typed, bounded
// functions over a kubernetes.Interface, confined to one namespace (plus cluster-scoped
// objects) and counted per call, shared by the rule engine, the LLM brain and MCP.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/kubage/kubage/internal/text"
)

// Result is what a tool returns: compact bounded text for a model or a report, and
// structured data for programs.
type Result struct {
	Text      string `json:"text"`
	Data      any    `json:"data,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Tool is one callable, read-only tool.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON schema of the tool's input object.
	Schema() json.RawMessage
	// Call decodes JSON arguments strictly and runs the tool.
	Call(ctx context.Context, args json.RawMessage) (Result, error)
	// CallArgs runs the tool from string arguments (as carried by plan tasks).
	CallArgs(ctx context.Context, args map[string]string) (Result, error)
}

// ErrInvalidInput marks arguments that do not fit a tool's input schema.
var ErrInvalidInput = errors.New("invalid tool input")

// Typed is a Tool with a Go input type; its schema is derived from the struct tags
// `json` (name, omitempty = optional), `desc` (description) and `enum` (comma list).
type Typed[In any] struct {
	name, description string
	run               func(context.Context, In) (Result, error)
	schema            json.RawMessage
}

// NewTyped builds a Typed tool.
func NewTyped[In any](name, description string, run func(context.Context, In) (Result, error)) *Typed[In] {
	var zero In
	s, err := json.Marshal(schemaOf(reflect.TypeOf(zero)))
	if err != nil {
		s = []byte(`{"type":"object"}`)
	}
	return &Typed[In]{name: name, description: description, run: run, schema: s}
}

func (t *Typed[In]) Name() string            { return t.name }
func (t *Typed[In]) Description() string     { return t.description }
func (t *Typed[In]) Schema() json.RawMessage { return append(json.RawMessage(nil), t.schema...) }

// Run calls the tool with a typed input.
func (t *Typed[In]) Run(ctx context.Context, in In) (Result, error) {
	if err := checkRequired(reflect.ValueOf(in)); err != nil {
		return Result{}, err
	}
	return t.run(ctx, in)
}

func (t *Typed[In]) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	var in In
	if len(bytes.TrimSpace(args)) > 0 && string(bytes.TrimSpace(args)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return Result{}, fmt.Errorf("%w for %s: %v", ErrInvalidInput, t.name, err)
		}
	}
	return t.Run(ctx, in)
}

func (t *Typed[In]) CallArgs(ctx context.Context, args map[string]string) (Result, error) {
	var in In
	if err := DecodeArgs(args, &in); err != nil {
		return Result{}, fmt.Errorf("%s: %w", t.name, err)
	}
	return t.Run(ctx, in)
}

// DecodeArgs fills a flat struct pointer from string arguments keyed by JSON name.
func DecodeArgs(args map[string]string, out any) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%w: want a struct pointer", ErrInvalidInput)
	}
	v = v.Elem()
	fields := map[string]int{}
	for i := 0; i < v.NumField(); i++ {
		if n, _ := jsonName(v.Type().Field(i)); n != "" {
			fields[n] = i
		}
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		i, ok := fields[k]
		if !ok {
			return fmt.Errorf("%w: unknown argument %q", ErrInvalidInput, k)
		}
		f := v.Field(i)
		raw := args[k]
		switch f.Kind() {
		case reflect.String:
			f.SetString(raw)
		case reflect.Int, reflect.Int32, reflect.Int64:
			n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
			if err != nil {
				return fmt.Errorf("%w: argument %q wants an integer, got %q", ErrInvalidInput, k, text.ClipMarked(raw, 40))
			}
			f.SetInt(n)
		case reflect.Bool:
			b, err := strconv.ParseBool(strings.TrimSpace(raw))
			if err != nil {
				return fmt.Errorf("%w: argument %q wants true or false, got %q", ErrInvalidInput, k, text.ClipMarked(raw, 40))
			}
			f.SetBool(b)
		case reflect.Slice:
			if f.Type().Elem().Kind() != reflect.String {
				return fmt.Errorf("%w: argument %q is not settable from a string", ErrInvalidInput, k)
			}
			var parts []string
			for _, p := range strings.Split(raw, ",") {
				if p = strings.TrimSpace(p); p != "" {
					parts = append(parts, p)
				}
			}
			f.Set(reflect.ValueOf(parts))
		default:
			return fmt.Errorf("%w: argument %q is not settable from a string", ErrInvalidInput, k)
		}
	}
	return nil
}

func jsonName(f reflect.StructField) (name string, optional bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	parts := strings.Split(tag, ",")
	name = parts[0]
	if name == "" {
		name = f.Name
	}
	for _, p := range parts[1:] {
		if p == "omitempty" || p == "omitzero" {
			optional = true
		}
	}
	return name, optional
}

// checkRequired rejects zero values in required (non-omitempty) string fields.
func checkRequired(v reflect.Value) error {
	if v.Kind() != reflect.Struct {
		return nil
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, optional := jsonName(f)
		if name == "" || optional {
			continue
		}
		if v.Field(i).Kind() == reflect.String && strings.TrimSpace(v.Field(i).String()) == "" {
			return fmt.Errorf("%w: %q is required", ErrInvalidInput, name)
		}
	}
	return nil
}

func schemaOf(t reflect.Type) map[string]any {
	if t == nil {
		return map[string]any{"type": "object"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, optional := jsonName(f)
			if name == "" {
				continue
			}
			p := schemaOf(f.Type)
			if d := f.Tag.Get("desc"); d != "" {
				p["description"] = d
			}
			if e := f.Tag.Get("enum"); e != "" {
				p["enum"] = strings.Split(e, ",")
			}
			props[name] = p
			if !optional {
				required = append(required, name)
			}
		}
		s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	default:
		return map[string]any{}
	}
}

// Registry is an ordered set of tools looked up by name.
type Registry struct {
	client *Client
	tools  []Tool
	byName map[string]Tool
}

// NewRegistry builds a registry; later tools with a duplicate name are rejected.
func NewRegistry(client *Client, ts ...Tool) (*Registry, error) {
	r := &Registry{client: client, byName: map[string]Tool{}}
	for _, t := range ts {
		if _, dup := r.byName[t.Name()]; dup {
			return nil, fmt.Errorf("duplicate tool name %q", t.Name())
		}
		r.byName[t.Name()] = t
		r.tools = append(r.tools, t)
	}
	return r, nil
}

// Tools lists the tools in registration order.
func (r *Registry) Tools() []Tool { return append([]Tool(nil), r.tools...) }

// Get returns a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Client is the counted, scoped client behind the registry's tools.
func (r *Registry) Client() *Client { return r.client }

// Call runs a tool by name with JSON arguments.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	t, ok := r.byName[name]
	if !ok {
		return Result{}, fmt.Errorf("unknown tool %q", text.ClipMarked(name, 60))
	}
	return t.Call(ctx, args)
}
