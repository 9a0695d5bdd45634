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
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpsdk "github.com/mark3labs/mcp-go/mcp"

	"github.com/kubage/kubage/internal/egress"
)

// Reason classifies why talking to an MCP server failed. The values double as
// ToolServer condition reasons, so they are UpperCamelCase.
type Reason string

const (
	// ReasonUnreachable: no connection (DNS, refused, reset, 5xx from a proxy).
	ReasonUnreachable Reason = "Unreachable"
	// ReasonAuthFailed: the server answered 401 or 403.
	ReasonAuthFailed Reason = "AuthFailed"
	// ReasonTLSError: the TLS handshake or certificate verification failed.
	ReasonTLSError Reason = "TLSError"
	// ReasonTimeout: the server did not answer completely within the timeout.
	ReasonTimeout Reason = "Timeout"
	// ReasonResponseTooLarge: a response or stream event exceeded the size cap.
	ReasonResponseTooLarge Reason = "ResponseTooLarge"
	// ReasonEgressDenied: the egress guard refused the server's resolved address.
	ReasonEgressDenied Reason = "EgressDenied"
	// ReasonProtocolError: the server answered, but not with valid MCP.
	ReasonProtocolError Reason = "ProtocolError"
)

// ErrResponseTooLarge is returned by a response body that exceeds the size cap.
var ErrResponseTooLarge = errors.New("response exceeds the size cap")

// Error is a classified failure of one operation against an MCP server.
type Error struct {
	// Reason is the class of failure.
	Reason Reason
	// Op is what was attempted, e.g. "initialize" or "tools/list".
	Op string
	// StatusCode is the HTTP status that caused the failure, if any.
	StatusCode int
	Err        error
}

func (e *Error) Error() string {
	switch {
	case e.Reason == ReasonAuthFailed && e.StatusCode != 0:
		return fmt.Sprintf("%s: server refused the credentials (HTTP %d)", e.Op, e.StatusCode)
	case e.StatusCode != 0:
		return fmt.Sprintf("%s: HTTP %d: %v", e.Op, e.StatusCode, e.Err)
	default:
		return fmt.Sprintf("%s: %v", e.Op, e.Err)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the classification of err, or ProtocolError for an
// unclassified error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ReasonProtocolError
}

// classify turns an error from mcp-go into an *Error, using what the HTTP
// layer observed (status codes, the size cap) where the SDK's error loses it.
func classify(op string, err error, obs ...*observer) error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		return err
	}
	status := 0
	for _, o := range obs {
		if o == nil {
			continue
		}
		if o.tooLarge.Load() {
			return &Error{Reason: ReasonResponseTooLarge, Op: op, Err: fmt.Errorf("%w (%d bytes)", ErrResponseTooLarge, o.limit)}
		}
		if s := int(o.status.Load()); s != 0 && status == 0 {
			status = s
		}
	}
	if egress.IsDenied(err) {
		return &Error{Reason: ReasonEgressDenied, Op: op, Err: err}
	}
	if errors.Is(err, ErrResponseTooLarge) {
		return &Error{Reason: ReasonResponseTooLarge, Op: op, Err: err}
	}
	var authErr *transport.AuthorizationRequiredError
	if status == 401 || status == 403 || errors.As(err, &authErr) || errors.Is(err, transport.ErrUnauthorized) {
		if status == 0 {
			status = 401
		}
		return &Error{Reason: ReasonAuthFailed, Op: op, StatusCode: status, Err: err}
	}
	if isTLSError(err) {
		return &Error{Reason: ReasonTLSError, Op: op, Err: err}
	}
	if isUnreachable(err) {
		return &Error{Reason: ReasonUnreachable, Op: op, Err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return &Error{Reason: ReasonTimeout, Op: op, Err: err}
	}
	if status >= 500 {
		return &Error{Reason: ReasonUnreachable, Op: op, StatusCode: status, Err: err}
	}
	if status != 0 {
		return &Error{Reason: ReasonProtocolError, Op: op, StatusCode: status, Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return &Error{Reason: ReasonTimeout, Op: op, Err: err}
		}
		return &Error{Reason: ReasonUnreachable, Op: op, Err: err}
	}
	return &Error{Reason: ReasonProtocolError, Op: op, Err: err}
}

func isTLSError(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verify           *tls.CertificateVerificationError
		record           tls.RecordHeaderError
		alert            tls.AlertError
	)
	return errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &verify) || errors.As(err, &record) || errors.As(err, &alert)
}

// isUnreachable reports connection-level failures: no such host, refused, reset,
// or a dial that timed out.
func isUnreachable(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	return false
}

// IsServerFault reports whether err means the server (or the way to it) is
// failing, as opposed to a JSON-RPC error answered by a working server or an
// answer that was merely too large. Circuit breakers count only these.
func IsServerFault(err error) bool {
	if err == nil {
		return false
	}
	switch ReasonOf(err) {
	case ReasonUnreachable, ReasonTimeout, ReasonTLSError:
		return true
	case ReasonProtocolError:
		for _, answered := range []error{mcpsdk.ErrInvalidParams, mcpsdk.ErrMethodNotFound, mcpsdk.ErrInvalidRequest,
			mcpsdk.ErrResourceNotFound, mcpsdk.ErrInternalError, mcpsdk.ErrRequestInterrupted} {
			if errors.Is(err, answered) {
				return false
			}
		}
		return true
	default:
		return false
	}
}
