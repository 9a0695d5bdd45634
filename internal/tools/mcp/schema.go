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

package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled tool input schema.
type Schema struct {
	s *jsonschema.Schema
}

// ErrInvalidArguments marks arguments that do not match a tool's input schema.
var ErrInvalidArguments = errors.New("invalid arguments")

var (
	schemaSeq atomic.Uint64
	english   = message.NewPrinter(language.English)
)

// noLoader refuses every external $ref: a tool schema must be self-contained, and
// compiling one must never read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not allowed", clip(url, 128))
}

// schemaCache remembers compiled schemas by content: servers are re-listed every
// health check with the same schemas, and compiling is the dominant cost of a listing.
var schemaCache = struct {
	sync.Mutex
	m map[[sha256.Size]byte]compiled
}{m: map[[sha256.Size]byte]compiled{}}

type compiled struct {
	s   *Schema
	err error
}

// maxCachedSchemas bounds the cache; it is emptied when full.
const maxCachedSchemas = 4096

// CompileSchema compiles a JSON schema for tool arguments. Schemas without
// $schema are read as draft 2020-12, the version MCP specifies. The result is
// immutable and safe for concurrent use.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if len(raw) > maxSchemaBytes {
		return nil, fmt.Errorf("input schema is %d bytes, more than %d", len(raw), maxSchemaBytes)
	}
	key := sha256.Sum256(raw)
	schemaCache.Lock()
	c, ok := schemaCache.m[key]
	schemaCache.Unlock()
	if ok {
		return c.s, c.err
	}
	s, err := compileSchema(raw)
	schemaCache.Lock()
	if len(schemaCache.m) >= maxCachedSchemas {
		clear(schemaCache.m)
	}
	schemaCache.m[key] = compiled{s: s, err: err}
	schemaCache.Unlock()
	return s, err
}

func compileSchema(raw json.RawMessage) (*Schema, error) {
	if len(raw) > maxSchemaBytes {
		return nil, fmt.Errorf("input schema is %d bytes, more than %d", len(raw), maxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	loc := fmt.Sprintf("mem:///tool-%d.json", schemaSeq.Add(1))
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("invalid input schema: %s", firstLine(err.Error()))
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("invalid input schema: %s", firstLine(err.Error()))
	}
	return &Schema{s: s}, nil
}

// Validate checks JSON arguments against the schema; an empty input is an empty object.
func (s *Schema) Validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("%w: not a JSON object: %v", ErrInvalidArguments, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("%w: arguments must be a JSON object", ErrInvalidArguments)
	}
	if err := s.s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%w: %s", ErrInvalidArguments, describeValidation(ve))
		}
		return fmt.Errorf("%w: %v", ErrInvalidArguments, err)
	}
	return nil
}

// describeValidation renders the leaf causes of a validation error on one line
// each, with the argument path, for a model to correct its call.
func describeValidation(ve *jsonschema.ValidationError) string {
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(leaves) >= 5 {
			return
		}
		if len(e.Causes) == 0 {
			at := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", at, e.ErrorKind.LocalizedString(english)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) == 0 {
		return firstLine(ve.Error())
	}
	return strings.Join(leaves, "; ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 300)
}
