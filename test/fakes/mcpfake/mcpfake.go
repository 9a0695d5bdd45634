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

// Package mcpfake runs real mcp-go servers on loopback for tests, benchmarks and
// demos: generated tools, bearer-token auth, outages and restarts on the same port,
// tools/list calls that hang mid-stream, and tools that answer with huge results.
package mcpfake

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpsdk "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// quiet drops the SDK's server logs: tests provoke failures on purpose.
var quiet = slog.New(slog.DiscardHandler)

// Options configure a fake server.
type Options struct {
	// Transport is StreamableHTTP (default) or SSE.
	Transport kmcp.Transport
	// Name and Version are reported during initialisation.
	Name, Version string
	// GeneratedTools adds that many tools named tool_0000, tool_0001, ...
	GeneratedTools int
	// PageSize is the tools/list page size (default 100).
	PageSize int
	// Token, when set, is required as "Authorization: Bearer <token>".
	Token string
	// TLS serves HTTPS with a certificate no client trusts.
	TLS bool
	// NoStandardTools leaves out echo, big, slow, fail and delete_pods.
	NoStandardTools bool
}

// Server is a running fake MCP server.
type Server struct {
	// URL is the endpoint a client connects to (…/mcp, or …/sse for SSE).
	URL string

	opts    Options
	mcp     *server.MCPServer
	handler http.Handler
	addr    string

	mu    sync.Mutex
	http  *http.Server
	tls   *httptest.Server
	token string

	hangList atomic.Bool
	calls    atomic.Int64
	inFlight atomic.Int64
	maxSlow  atomic.Int64
	lists    atomic.Int64
	hanging  sync.WaitGroup
	stopOnce sync.Once
	stopped  chan struct{}
}

// Start runs a server on 127.0.0.1 with a random port.
func Start(opts Options) (*Server, error) {
	if opts.Transport == "" {
		opts.Transport = kmcp.TransportStreamableHTTP
	}
	if opts.Name == "" {
		opts.Name = "mcpfake"
	}
	if opts.Version == "" {
		opts.Version = "1.0.0"
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	s := &Server{opts: opts, token: opts.Token, stopped: make(chan struct{})}
	s.mcp = server.NewMCPServer(opts.Name, opts.Version,
		server.WithToolCapabilities(true),
		server.WithPaginationLimit(opts.PageSize),
		server.WithRecovery(),
		server.WithLogger(quiet))
	if !opts.NoStandardTools {
		s.addStandardTools()
	}
	for i := 0; i < opts.GeneratedTools; i++ {
		name := fmt.Sprintf("tool_%04d", i)
		s.mcp.AddTool(mcpsdk.NewTool(name,
			mcpsdk.WithDescription(fmt.Sprintf("Generated tool number %d: returns its query.", i)),
			mcpsdk.WithReadOnlyHintAnnotation(true),
			mcpsdk.WithString("q", mcpsdk.Required(), mcpsdk.Description("What to look up"))),
			func(_ context.Context, req mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
				s.calls.Add(1)
				return mcpsdk.NewToolResultText(name + ": " + req.GetString("q", "")), nil
			})
	}

	path := "/mcp"
	var mcpHandler http.Handler
	if opts.Transport == kmcp.TransportSSE {
		path = "/sse"
		mcpHandler = server.NewSSEServer(s.mcp)
	} else {
		mcpHandler = server.NewStreamableHTTPServer(s.mcp, server.WithEndpointPath(path), server.WithStreamableHTTPLogger(quiet))
	}
	s.handler = s.wrap(mcpHandler)

	if opts.TLS {
		s.tls = httptest.NewTLSServer(s.handler)
		s.URL = s.tls.URL + path
		return s, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.addr = l.Addr().String()
	s.URL = "http://" + s.addr + path
	s.serve(l)
	return s, nil
}

func (s *Server) serve(l net.Listener) {
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 5 * time.Second}
	s.mu.Lock()
	s.http = srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(l) }()
}

// wrap adds bearer auth and the hang switch in front of the MCP handler.
func (s *Server) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		token := s.token
		s.mu.Unlock()
		if token != "" {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcpfake"`)
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write([]byte(`{"error":"unauthorized"}`))
				return
			}
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &msg)
			if msg.Method == "tools/list" {
				s.lists.Add(1)
				if s.hangList.Load() {
					s.hang(w, r)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hang starts an event stream, sends half an event and waits for the client to go.
func (s *Server) hang(w http.ResponseWriter, r *http.Request) {
	s.hanging.Add(1)
	defer s.hanging.Done()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/prog"))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	select {
	case <-r.Context().Done():
	case <-s.stopped:
	}
}

func (s *Server) addStandardTools() {
	s.mcp.AddTool(mcpsdk.NewTool("echo",
		mcpsdk.WithDescription("Echo a message back."),
		mcpsdk.WithReadOnlyHintAnnotation(true),
		mcpsdk.WithString("message", mcpsdk.Required(), mcpsdk.Description("Text to echo")),
		mcpsdk.WithInteger("repeat", mcpsdk.Description("How many times, 1-10"), mcpsdk.Min(1), mcpsdk.Max(10))),
		func(_ context.Context, req mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			s.calls.Add(1)
			n := max(req.GetInt("repeat", 1), 1)
			return mcpsdk.NewToolResultText(strings.Repeat(req.GetString("message", ""), n)), nil
		})
	s.mcp.AddTool(mcpsdk.NewTool("big",
		mcpsdk.WithDescription("Return a text result of the given size in bytes."),
		mcpsdk.WithReadOnlyHintAnnotation(true),
		mcpsdk.WithInteger("bytes", mcpsdk.Required(), mcpsdk.Min(0))),
		func(_ context.Context, req mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			s.calls.Add(1)
			return mcpsdk.NewToolResultText(strings.Repeat("x", req.GetInt("bytes", 0))), nil
		})
	s.mcp.AddTool(mcpsdk.NewTool("slow",
		mcpsdk.WithDescription("Answer after the given number of milliseconds."),
		mcpsdk.WithReadOnlyHintAnnotation(true),
		mcpsdk.WithInteger("ms", mcpsdk.Required(), mcpsdk.Min(0))),
		func(ctx context.Context, req mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			s.calls.Add(1)
			n := s.inFlight.Add(1)
			defer s.inFlight.Add(-1)
			for m := s.maxSlow.Load(); n > m && !s.maxSlow.CompareAndSwap(m, n); m = s.maxSlow.Load() {
			}
			select {
			case <-time.After(time.Duration(req.GetInt("ms", 0)) * time.Millisecond):
				return mcpsdk.NewToolResultText("done"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-s.stopped:
				return nil, errors.New("server stopped")
			}
		})
	s.mcp.AddTool(mcpsdk.NewTool("fail",
		mcpsdk.WithDescription("Always report a tool error."),
		mcpsdk.WithReadOnlyHintAnnotation(true)),
		func(context.Context, mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			s.calls.Add(1)
			return mcpsdk.NewToolResultError("the backend said no"), nil
		})
	s.mcp.AddTool(mcpsdk.NewTool("delete_pods",
		mcpsdk.WithDescription("Delete pods (destructive)."),
		mcpsdk.WithReadOnlyHintAnnotation(false),
		mcpsdk.WithDestructiveHintAnnotation(true),
		mcpsdk.WithString("selector", mcpsdk.Required())),
		func(context.Context, mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			s.calls.Add(1)
			return mcpsdk.NewToolResultText("deleted"), nil
		})
}

// AddTextTool adds a read-only tool with one optional string argument "q" that answers text.
func (s *Server) AddTextTool(name, description, text string) {
	s.mcp.AddTool(mcpsdk.NewTool(name, mcpsdk.WithDescription(description), mcpsdk.WithReadOnlyHintAnnotation(true), mcpsdk.WithString("q")),
		func(context.Context, mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			s.calls.Add(1)
			return mcpsdk.NewToolResultText(text), nil
		})
}

// AddRawTool adds a tool with a raw input schema, valid or not.
func (s *Server) AddRawTool(name string, schema json.RawMessage) {
	s.mcp.AddTool(mcpsdk.Tool{Name: name, Description: "Tool with a raw schema.", RawInputSchema: schema},
		func(context.Context, mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			s.calls.Add(1)
			return mcpsdk.NewToolResultText("raw"), nil
		})
}

// RemoveTools removes tools by name.
func (s *Server) RemoveTools(names ...string) { s.mcp.DeleteTools(names...) }

// SetToken changes the required bearer token; "" turns auth off.
func (s *Server) SetToken(token string) {
	s.mu.Lock()
	s.token = token
	s.mu.Unlock()
}

// HangToolsList makes tools/list requests hang mid-stream (true) or answer (false).
func (s *Server) HangToolsList(hang bool) { s.hangList.Store(hang) }

// MaxConcurrentSlow is the most calls of the slow tool that ran at the same time.
func (s *Server) MaxConcurrentSlow() int64 { return s.maxSlow.Load() }

// Calls counts tool calls answered; Lists counts tools/list requests received.
func (s *Server) Calls() int64 { return s.calls.Load() }
func (s *Server) Lists() int64 { return s.lists.Load() }

// Stop closes the listener and every connection; Restart serves again on the same port.
func (s *Server) Stop() {
	s.mu.Lock()
	srv := s.http
	s.http = nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Restart listens again on the address the server had before Stop.
func (s *Server) Restart() error {
	if s.tls != nil {
		return errors.New("restart is not supported with TLS")
	}
	s.Stop()
	var l net.Listener
	var err error
	// The port was just released; retry briefly in case the kernel still holds it.
	for i := 0; i < 50; i++ {
		if l, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	s.serve(l)
	return nil
}

// Close stops the server for good and releases hanging requests.
func (s *Server) Close() {
	s.stopOnce.Do(func() { close(s.stopped) })
	s.Stop()
	if s.tls != nil {
		s.tls.CloseClientConnections()
		s.tls.Close()
	}
	s.hanging.Wait()
}
