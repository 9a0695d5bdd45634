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

// Package mcp is KubAge's client side of the Model Context Protocol: it connects to
// a tool server over streamable HTTP or SSE (with mcp-go), initialises a session,
// lists tools page by page and calls them, with every request bounded in time and
// every response bounded in size, and it classifies failures into the reasons a
// ToolServer reports (Unreachable, AuthFailed, TLSError, Timeout, ProtocolError...).
// It knows nothing of Kubernetes.
package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpsdk "github.com/mark3labs/mcp-go/mcp"
)

// Transport is the wire protocol of a server; the values match the ToolServer API.
type Transport string

const (
	TransportStreamableHTTP Transport = "StreamableHTTP"
	TransportSSE            Transport = "SSE"
)

// Defaults and hard bounds.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxResponseBytes = 8 << 20
	DefaultMaxTools         = 5000
	DefaultMaxPages         = 200
	// maxSchemaBytes bounds one tool's input schema; larger ones are flagged invalid.
	maxSchemaBytes = 64 << 10
)

// Config says how to reach one server.
type Config struct {
	// URL of the MCP endpoint (streamable HTTP) or of the SSE stream.
	URL       string
	Transport Transport
	// Headers are sent with every request (e.g. Authorization).
	Headers map[string]string
	// Timeout bounds each request: connect, initialise, one page of tools/list, one call.
	Timeout time.Duration
	// MaxResponseBytes bounds one HTTP response body, or one event of an SSE stream.
	MaxResponseBytes int64
	// MaxTools stops listing once this many tools were seen; MaxPages bounds the pages.
	MaxTools int
	MaxPages int
	// ClientName and ClientVersion identify KubAge to the server.
	ClientName, ClientVersion string
	// RoundTripper replaces the default HTTP transport (tests, custom TLS).
	RoundTripper http.RoundTripper
	// Logger receives mcp-go's transport logs; nil discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Transport == "" {
		c.Transport = TransportStreamableHTTP
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if c.MaxTools <= 0 {
		c.MaxTools = DefaultMaxTools
	}
	if c.MaxPages <= 0 {
		c.MaxPages = DefaultMaxPages
	}
	if c.ClientName == "" {
		c.ClientName = "kubage"
	}
	if c.ClientVersion == "" {
		c.ClientVersion = "v1alpha1"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// ServerInfo is what the server said about itself.
type ServerInfo struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocolVersion"`
}

// Tool is one tool as listed by a server.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// ReadOnly is the server's readOnlyHint; Destructive is set only when the server
	// annotates the tool as destructive and not read-only.
	ReadOnly    bool `json:"readOnly,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
	// SchemaError says why InputSchema is unusable; such a tool must not be called.
	SchemaError string `json:"schemaError,omitempty"`
}

// ToolList is the result of listing a server's tools.
type ToolList struct {
	Tools []Tool
	// Truncated is true when listing stopped at MaxTools or MaxPages.
	Truncated bool
	Pages     int
}

// CallResult is the outcome of one tool call.
type CallResult struct {
	// Text is the tool's content rendered as text; non-text parts become placeholders.
	Text string
	// IsError is true when the tool reported a failure (the call itself worked).
	IsError bool
}

// Session is an initialised connection to one server. It is safe for concurrent use.
type Session struct {
	cfg    Config
	client *client.Client
	info   ServerInfo
	// obs watches the session's long-lived stream (SSE); ctx ends when the session
	// closes or that stream exceeds the size cap, failing in-flight operations.
	obs    *observer
	ctx    context.Context
	cancel context.CancelFunc
}

// Connect opens and initialises a session. The caller must Close it.
func Connect(ctx context.Context, cfg Config) (*Session, error) {
	cfg = cfg.withDefaults()
	if cfg.Transport != TransportStreamableHTTP && cfg.Transport != TransportSSE {
		return nil, &Error{Reason: ReasonProtocolError, Op: "connect", Err: fmt.Errorf("unknown transport %q", cfg.Transport)}
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &Session{cfg: cfg, ctx: sctx, cancel: cancel}
	s.obs = &observer{limit: cfg.MaxResponseBytes, onTrip: cancel}
	hc := newHTTPClient(cfg.RoundTripper, cfg.Timeout, cfg.MaxResponseBytes, s.obs)

	var tr transport.Interface
	var err error
	switch cfg.Transport {
	case TransportSSE:
		tr, err = transport.NewSSE(cfg.URL,
			transport.WithHTTPClient(hc),
			transport.WithHeaders(cfg.Headers),
			transport.WithSSELogger(cfg.Logger),
			transport.WithEndpointTimeout(cfg.Timeout),
			transport.WithResponseTimeout(cfg.Timeout))
	default:
		tr, err = transport.NewStreamableHTTP(cfg.URL,
			transport.WithHTTPBasicClient(hc),
			transport.WithHTTPHeaders(cfg.Headers),
			transport.WithHTTPLogger(cfg.Logger))
	}
	if err != nil {
		cancel()
		return nil, &Error{Reason: ReasonProtocolError, Op: "connect", Err: err}
	}
	s.client = client.NewClient(tr, client.WithDiscoverTimeout(cfg.Timeout))

	// The SSE stream lives on the Start context, so it gets the session's context,
	// and the handshake is bounded by the endpoint timeout and the caller's ctx.
	startErr := make(chan error, 1)
	go func() { startErr <- s.client.Start(withObserver(sctx, s.obs)) }()
	select {
	case err = <-startErr:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		s.Close()
		return nil, classify("connect", err, s.obs)
	}

	opCtx, obs, done := s.op(ctx)
	defer done()
	res, err := s.client.Initialize(opCtx, mcpsdk.InitializeRequest{Params: mcpsdk.InitializeParams{
		ClientInfo: mcpsdk.Implementation{Name: cfg.ClientName, Version: cfg.ClientVersion},
	}})
	if err != nil {
		s.Close()
		return nil, classify("initialize", err, obs, s.obs)
	}
	s.info = ServerInfo{Name: res.ServerInfo.Name, Version: res.ServerInfo.Version, ProtocolVersion: res.ProtocolVersion}
	return s, nil
}

// op derives the context of one request: bounded by the timeout, ended by the
// session, and reporting to its own observer.
func (s *Session) op(ctx context.Context) (context.Context, *observer, func()) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	stop := context.AfterFunc(s.ctx, cancel)
	o := &observer{limit: s.cfg.MaxResponseBytes, onTrip: cancel}
	return withObserver(ctx, o), o, func() { stop(); cancel() }
}

// Info is what the server said about itself during initialisation.
func (s *Session) Info() ServerInfo { return s.info }

// Close ends the session. It may send a final request, bounded by a few seconds.
func (s *Session) Close() {
	if s.client != nil {
		_ = s.client.Close()
	}
	s.cancel()
}

// ListTools lists the server's tools page by page, stopping at MaxTools or MaxPages.
func (s *Session) ListTools(ctx context.Context) (*ToolList, error) {
	out := &ToolList{}
	seen := map[mcpsdk.Cursor]bool{}
	var cursor mcpsdk.Cursor
	for out.Pages < s.cfg.MaxPages {
		req := mcpsdk.ListToolsRequest{}
		req.Params.Cursor = cursor
		opCtx, obs, done := s.op(ctx)
		res, err := s.client.ListToolsByPage(opCtx, req)
		done()
		if err != nil {
			return nil, classify("tools/list", err, obs, s.obs)
		}
		out.Pages++
		for _, t := range res.Tools {
			if len(out.Tools) >= s.cfg.MaxTools {
				out.Truncated = true
				return out, nil
			}
			out.Tools = append(out.Tools, convertTool(t))
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, &Error{Reason: ReasonProtocolError, Op: "tools/list", Err: fmt.Errorf("the server repeated cursor %q", clip(string(res.NextCursor), 64))}
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	out.Truncated = true
	return out, nil
}

// CallTool calls one tool with JSON object arguments.
func (s *Session) CallTool(ctx context.Context, name string, args json.RawMessage) (*CallResult, error) {
	req := mcpsdk.CallToolRequest{}
	req.Params.Name = name
	if len(args) > 0 {
		req.Params.Arguments = args
	} else {
		req.Params.Arguments = map[string]any{}
	}
	opCtx, obs, done := s.op(ctx)
	defer done()
	res, err := s.client.CallTool(opCtx, req)
	if err != nil {
		return nil, classify("tools/call "+clip(name, 128), err, obs, s.obs)
	}
	return &CallResult{Text: renderContent(res), IsError: res.IsError}, nil
}

// Discovery is the outcome of one connect-and-list.
type Discovery struct {
	Server  ServerInfo
	Tools   *ToolList
	Elapsed time.Duration
}

// Discover connects, lists the tools and closes the session.
func Discover(ctx context.Context, cfg Config) (*Discovery, error) {
	start := time.Now()
	s, err := Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Closing may send a DELETE to a server that hangs; do not wait for it.
	defer func() { go s.Close() }()
	tools, err := s.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	return &Discovery{Server: s.Info(), Tools: tools, Elapsed: time.Since(start)}, nil
}

func convertTool(t mcpsdk.Tool) Tool {
	out := Tool{Name: t.Name, Title: t.Title, Description: t.Description}
	if t.Title == "" {
		out.Title = t.Annotations.Title
	}
	out.ReadOnly = t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
	out.Destructive = !out.ReadOnly && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint
	raw, err := json.Marshal(t.InputSchema)
	switch {
	case err != nil:
		out.SchemaError = "input schema cannot be encoded: " + err.Error()
	case t.InputSchema.Type != "object":
		out.SchemaError = fmt.Sprintf("input schema type is %q, want \"object\"", clip(t.InputSchema.Type, 32))
	case len(raw) > maxSchemaBytes:
		out.SchemaError = fmt.Sprintf("input schema is %d bytes, more than %d", len(raw), maxSchemaBytes)
	default:
		out.InputSchema = raw
		if _, err := CompileSchema(raw); err != nil {
			out.SchemaError = err.Error()
		}
	}
	return out
}

// renderContent flattens a tool result into text for a model or a report.
func renderContent(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for i, c := range res.Content {
		if i > 0 {
			b.WriteString("\n")
		}
		switch v := c.(type) {
		case mcpsdk.TextContent:
			b.WriteString(v.Text)
		case *mcpsdk.TextContent:
			b.WriteString(v.Text)
		case mcpsdk.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", v.MIMEType, base64.StdEncoding.DecodedLen(len(v.Data)))
		case mcpsdk.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", v.MIMEType, base64.StdEncoding.DecodedLen(len(v.Data)))
		case mcpsdk.EmbeddedResource:
			if tr, ok := v.Resource.(mcpsdk.TextResourceContents); ok {
				fmt.Fprintf(&b, "[resource %s]\n%s", tr.URI, tr.Text)
			} else {
				b.WriteString("[binary resource]")
			}
		case mcpsdk.ResourceLink:
			fmt.Fprintf(&b, "[resource link %s]", v.URI)
		default:
			b.WriteString("[unsupported content]")
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(raw)
		}
	}
	return b.String()
}

// clip shortens s to at most n bytes for messages.
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
