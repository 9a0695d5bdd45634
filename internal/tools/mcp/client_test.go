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

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/test/fakes/mcpfake"
)

func startFake(t *testing.T, opts mcpfake.Options) *mcpfake.Server {
	t.Helper()
	s, err := mcpfake.Start(opts)
	if err != nil {
		t.Fatalf("starting fake server: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func toolNames(l *kmcp.ToolList) []string {
	var out []string
	for _, t := range l.Tools {
		out = append(out, t.Name)
	}
	return out
}

func findTool(l *kmcp.ToolList, name string) *kmcp.Tool {
	for i := range l.Tools {
		if l.Tools[i].Name == name {
			return &l.Tools[i]
		}
	}
	return nil
}

func TestDiscoverBothTransports(t *testing.T) {
	for _, tr := range []kmcp.Transport{kmcp.TransportStreamableHTTP, kmcp.TransportSSE} {
		t.Run(string(tr), func(t *testing.T) {
			g := NewWithT(t)
			s := startFake(t, mcpfake.Options{Transport: tr, Name: "logs", Version: "2.3.4", GeneratedTools: 250, PageSize: 40})
			d, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Transport: tr, Timeout: 5 * time.Second})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Server.Name).To(Equal("logs"))
			g.Expect(d.Server.Version).To(Equal("2.3.4"))
			g.Expect(d.Server.ProtocolVersion).NotTo(BeEmpty())
			g.Expect(d.Tools.Tools).To(HaveLen(255))
			g.Expect(d.Tools.Pages).To(Equal(7), "255 tools in pages of 40")
			g.Expect(d.Tools.Truncated).To(BeFalse())
			g.Expect(toolNames(d.Tools)).To(ContainElements("echo", "tool_0000", "tool_0249", "delete_pods"))

			echo := findTool(d.Tools, "echo")
			g.Expect(echo.ReadOnly).To(BeTrue())
			g.Expect(echo.SchemaError).To(BeEmpty())
			g.Expect(string(echo.InputSchema)).To(ContainSubstring(`"message"`))
			g.Expect(findTool(d.Tools, "delete_pods").Destructive).To(BeTrue())
		})
	}
}

func TestListStopsAtMaxTools(t *testing.T) {
	g := NewWithT(t)
	s := startFake(t, mcpfake.Options{GeneratedTools: 3000, PageSize: 500, NoStandardTools: true})
	d, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Timeout: 5 * time.Second, MaxTools: 1200})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Tools.Tools).To(HaveLen(1200))
	g.Expect(d.Tools.Truncated).To(BeTrue())
	g.Expect(d.Tools.Pages).To(Equal(3), "no page is fetched after the cap")
}

func TestInvalidInputSchemaIsFlaggedPerTool(t *testing.T) {
	g := NewWithT(t)
	s := startFake(t, mcpfake.Options{})
	s.AddRawTool("typo", json.RawMessage(`{"type":"object","properties":{"q":{"type":"strnig"}}}`))
	s.AddRawTool("not_object", json.RawMessage(`{"type":"string"}`))
	s.AddRawTool("remote_ref", json.RawMessage(`{"type":"object","properties":{"q":{"$ref":"http://example.com/s.json"}}}`))
	d, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Timeout: 5 * time.Second})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(findTool(d.Tools, "typo").SchemaError).To(ContainSubstring("invalid input schema"))
	g.Expect(findTool(d.Tools, "not_object").SchemaError).To(ContainSubstring(`want "object"`))
	g.Expect(findTool(d.Tools, "remote_ref").SchemaError).To(ContainSubstring("not allowed"))
	g.Expect(findTool(d.Tools, "echo").SchemaError).To(BeEmpty())
}

func TestFailuresAreClassified(t *testing.T) {
	t.Run("401 without a token", func(t *testing.T) {
		g := NewWithT(t)
		s := startFake(t, mcpfake.Options{Token: "s3cret"})
		_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Timeout: 5 * time.Second})
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonAuthFailed), "%v", err)
		g.Expect(err.Error()).To(ContainSubstring("HTTP 401"))

		d, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Timeout: 5 * time.Second,
			Headers: map[string]string{"Authorization": "Bearer s3cret"}})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.Tools.Tools).NotTo(BeEmpty())
	})
	t.Run("401 over SSE", func(t *testing.T) {
		g := NewWithT(t)
		s := startFake(t, mcpfake.Options{Transport: kmcp.TransportSSE, Token: "s3cret"})
		_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Transport: kmcp.TransportSSE, Timeout: 5 * time.Second})
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonAuthFailed), "%v", err)
	})
	t.Run("403 from a proxy", func(t *testing.T) {
		g := NewWithT(t)
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 403, Header: http.Header{"Content-Type": {"text/plain"}},
				Body: http.NoBody, Request: r}, nil
		})
		_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: "http://mcp.invalid/mcp", Timeout: 5 * time.Second, RoundTripper: rt})
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonAuthFailed), "%v", err)
		g.Expect(err.Error()).To(ContainSubstring("HTTP 403"))
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		g := NewWithT(t)
		s := startFake(t, mcpfake.Options{TLS: true})
		_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Timeout: 5 * time.Second})
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonTLSError), "%v", err)
	})
	t.Run("nothing listening", func(t *testing.T) {
		g := NewWithT(t)
		s := startFake(t, mcpfake.Options{})
		s.Stop()
		_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Timeout: 5 * time.Second})
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonUnreachable), "%v", err)
		g.Expect(kmcp.IsServerFault(err)).To(BeTrue())
	})
	t.Run("unknown host", func(t *testing.T) {
		g := NewWithT(t)
		_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: "http://no-such-host.invalid/mcp", Timeout: 5 * time.Second})
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonUnreachable), "%v", err)
	})
	t.Run("not an MCP server", func(t *testing.T) {
		g := NewWithT(t)
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/html"}},
				Body: http.NoBody, Request: r}, nil
		})
		_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: "http://web.invalid/", Timeout: 5 * time.Second, RoundTripper: rt})
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonProtocolError), "%v", err)
	})
}

func TestHangingListIsCutByTheTimeout(t *testing.T) {
	for _, tr := range []kmcp.Transport{kmcp.TransportStreamableHTTP, kmcp.TransportSSE} {
		t.Run(string(tr), func(t *testing.T) {
			g := NewWithT(t)
			s := startFake(t, mcpfake.Options{Transport: tr})
			s.HangToolsList(true)
			start := time.Now()
			_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Transport: tr, Timeout: 500 * time.Millisecond})
			g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonTimeout), "%v", err)
			g.Expect(time.Since(start)).To(BeNumerically("<", 3*time.Second))
			g.Expect(s.Lists()).To(BeNumerically(">=", 1))
		})
	}
}

func TestHugeResultIsCutBySizeCap(t *testing.T) {
	for _, tr := range []kmcp.Transport{kmcp.TransportStreamableHTTP, kmcp.TransportSSE} {
		t.Run(string(tr), func(t *testing.T) {
			g := NewWithT(t)
			s := startFake(t, mcpfake.Options{Transport: tr})
			ctx := context.Background()
			sess, err := kmcp.Connect(ctx, kmcp.Config{URL: s.URL, Transport: tr, Timeout: 10 * time.Second, MaxResponseBytes: 1 << 20})
			g.Expect(err).NotTo(HaveOccurred())
			defer sess.Close()

			res, err := sess.CallTool(ctx, "big", json.RawMessage(`{"bytes":1000}`))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(res.Text).To(HaveLen(1000))

			start := time.Now()
			_, err = sess.CallTool(ctx, "big", json.RawMessage(`{"bytes":50000000}`))
			g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonResponseTooLarge), "%v", err)
			g.Expect(errors.Is(err, kmcp.ErrResponseTooLarge) || strings.Contains(err.Error(), "size cap")).To(BeTrue())
			g.Expect(kmcp.IsServerFault(err)).To(BeFalse())
			g.Expect(time.Since(start)).To(BeNumerically("<", 8*time.Second))
		})
	}
}

func TestHugeToolsListIsCutBySizeCap(t *testing.T) {
	g := NewWithT(t)
	s := startFake(t, mcpfake.Options{})
	s.AddTextTool("verbose", strings.Repeat("d", 50<<20), "x")
	start := time.Now()
	_, err := kmcp.Discover(context.Background(), kmcp.Config{URL: s.URL, Timeout: 10 * time.Second, MaxResponseBytes: 2 << 20})
	g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonResponseTooLarge), "%v", err)
	g.Expect(err.Error()).To(ContainSubstring("tools/list"))
	g.Expect(time.Since(start)).To(BeNumerically("<", 8*time.Second))
}

func TestCallTool(t *testing.T) {
	g := NewWithT(t)
	s := startFake(t, mcpfake.Options{})
	ctx := context.Background()
	sess, err := kmcp.Connect(ctx, kmcp.Config{URL: s.URL, Timeout: 5 * time.Second})
	g.Expect(err).NotTo(HaveOccurred())
	defer sess.Close()

	res, err := sess.CallTool(ctx, "echo", json.RawMessage(`{"message":"ab","repeat":3}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(Equal("ababab"))
	g.Expect(res.IsError).To(BeFalse())

	res, err = sess.CallTool(ctx, "fail", nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.IsError).To(BeTrue())
	g.Expect(res.Text).To(ContainSubstring("backend said no"))

	short, err := kmcp.Connect(ctx, kmcp.Config{URL: s.URL, Timeout: 300 * time.Millisecond})
	g.Expect(err).NotTo(HaveOccurred())
	defer short.Close()
	_, err = short.CallTool(ctx, "slow", json.RawMessage(`{"ms":60000}`))
	g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonTimeout), "%v", err)
	g.Expect(kmcp.IsServerFault(err)).To(BeTrue())
}

func TestSchemaValidation(t *testing.T) {
	g := NewWithT(t)
	s, err := kmcp.CompileSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["q"],"additionalProperties":false}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(s.Validate(json.RawMessage(`{"q":"x","n":2}`))).To(Succeed())
	for args, want := range map[string]string{
		`{}`:                     "missing property 'q'",
		`{"q":1}`:                "at /q",
		`{"q":"x","n":0}`:        "at /n",
		`{"q":"x","extra":true}`: "additional",
		`[1,2]`:                  "JSON object",
		`{"q":`:                  "not a JSON object",
	} {
		err := s.Validate(json.RawMessage(args))
		g.Expect(errors.Is(err, kmcp.ErrInvalidArguments)).To(BeTrue(), args)
		g.Expect(err.Error()).To(ContainSubstring(want), args)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
