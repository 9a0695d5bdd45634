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

package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"syscall"
	"time"
)

// Resolver maps a host name to addresses.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// maxRedirects caps redirects of the guarded HTTP clients (each hop is dialed through
// the guard, so the cap is about loops, not safety).
const maxRedirects = 5

// current is the process-wide policy set by the manager and agent commands; nil (not
// configured, e.g. in package unit tests) lets every address through.
var current atomic.Pointer[Policy]

// SetDefault installs the process-wide policy every guarded client consults.
func SetDefault(p *Policy) { current.Store(p) }

// Default is the process-wide policy, nil when none is configured.
func Default() *Policy { return current.Load() }

type ctxKey struct{}

// WithPolicy makes ctx carry p; guarded clients prefer it to the process-wide policy.
func WithPolicy(ctx context.Context, p *Policy) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// policyFor is the policy that applies to a dial made with ctx.
func policyFor(ctx context.Context) *Policy {
	if p, ok := ctx.Value(ctxKey{}).(*Policy); ok && p != nil {
		return p
	}
	return current.Load()
}

// baseDialer is the dialer under the guard.
var baseDialer = &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}

// DialContext resolves addr, refuses it when no resolved address is allowed by the
// policy of ctx (or the process-wide one), and dials the allowed addresses in order. The
// dialer's Control hook checks the connected address once more, so nothing reaches a
// socket unchecked.
func DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	p := policyFor(ctx)
	if p == nil {
		return baseDialer.DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	d := *baseDialer
	d.Control = p.control
	var firstErr error
	for _, a := range addrs {
		if err := p.Check(a); err != nil {
			var denied *DeniedError
			if errors.As(err, &denied) {
				denied.Host = host
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if firstErr == nil || IsDenied(firstErr) {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("no address for %s", host)
	}
	return nil, firstErr
}

func (p *Policy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if p.resolve != nil {
		return p.resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// control checks the address the socket is about to connect to.
func (p *Policy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	return p.Check(ap.Addr())
}

// NewTransport is an http.Transport like http.DefaultTransport that dials through the guard.
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = DialContext
	// A proxy would dial the target itself, out of the guard's sight.
	t.Proxy = nil
	return t
}

// NewHTTPClient is a guarded client with a capped number of redirects.
func NewHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Transport: NewTransport(), Timeout: timeout, CheckRedirect: CheckRedirect}
}

// CheckRedirect stops after maxRedirects hops.
func CheckRedirect(_ *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// CheckHost resolves host as a dial would and refuses it when no address is allowed; for
// the few clients whose dialer cannot be replaced (go-git over SSH).
func CheckHost(ctx context.Context, host string) error {
	p := policyFor(ctx)
	if p == nil {
		return nil
	}
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		return err
	}
	var denied error
	for _, a := range addrs {
		if err := p.Check(a); err == nil {
			return nil
		} else if denied == nil {
			denied = err
			var d *DeniedError
			if errors.As(err, &d) {
				d.Host = host
			}
		}
	}
	if denied == nil {
		denied = fmt.Errorf("no address for %s", host)
	}
	return denied
}
