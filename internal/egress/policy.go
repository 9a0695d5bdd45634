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

// Package egress guards outbound connections: every address the operator or an agent
// dials (MCP servers, knowledge sources, model, embedding and Milvus endpoints) is checked
// after name resolution, at dial time, so redirects and DNS rebinding cannot reach the
// cloud metadata service, loopback or the API server.
package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// defaultDenied are the ranges no outbound connection may reach unless an allow CIDR
// covers them: link-local (cloud metadata lives there), loopback, unspecified and multicast.
var defaultDenied = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), "cloud metadata"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Policy decides which addresses may be dialed. The zero value applies the default
// denies only.
type Policy struct {
	allow []netip.Prefix
	deny  []netip.Prefix
	// apiServer are the API server's own addresses, denied unless allowed.
	apiServer []netip.Addr
	// resolve replaces DNS (tests map names to addresses); net.DefaultResolver when nil.
	resolve Resolver
}

// Options configure a Policy.
type Options struct {
	// AllowCIDRs may be dialed even when a default deny covers them.
	AllowCIDRs []string
	// DenyCIDRs are refused in addition to the defaults.
	DenyCIDRs []string
	// APIServerAddrs are the API server's own addresses (see APIServerAddrs).
	APIServerAddrs []netip.Addr
	// Resolver replaces DNS lookups; the system resolver when nil.
	Resolver Resolver
}

// NewPolicy builds a policy; CIDRs may also be single addresses.
func NewPolicy(o Options) (*Policy, error) {
	allow, err := parsePrefixes(o.AllowCIDRs)
	if err != nil {
		return nil, fmt.Errorf("egress allow CIDRs: %w", err)
	}
	deny, err := parsePrefixes(o.DenyCIDRs)
	if err != nil {
		return nil, fmt.Errorf("egress deny CIDRs: %w", err)
	}
	p := &Policy{allow: allow, deny: deny, resolve: o.Resolver}
	for _, a := range o.APIServerAddrs {
		p.apiServer = append(p.apiServer, a.Unmap())
	}
	return p, nil
}

func parsePrefixes(in []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, err
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, err
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// DeniedError is returned for a connection the policy refuses.
type DeniedError struct {
	// Host is the name or address that was asked for.
	Host string
	// Addr is the resolved address that was refused.
	Addr netip.Addr
	// Why names the rule, e.g. "loopback" or "deny CIDR 10.0.0.0/8".
	Why string
}

func (e *DeniedError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("egress to %s (%s) denied: %s", e.Host, e.Addr, e.Why)
	}
	return fmt.Sprintf("egress to %s denied: %s", e.Addr, e.Why)
}

// IsDenied reports whether err (or an error it wraps) is a refused connection.
func IsDenied(err error) bool {
	var d *DeniedError
	return errors.As(err, &d)
}

// Check returns a *DeniedError when addr may not be dialed. Operator CIDRs win over the
// defaults; between them the longest prefix wins, and deny wins a tie.
func (p *Policy) Check(addr netip.Addr) error {
	addr = addr.Unmap().WithZone("")
	if !addr.IsValid() {
		return &DeniedError{Addr: addr, Why: "invalid address"}
	}
	var allowBits, denyBits = -1, -1
	var denyBy netip.Prefix
	if p != nil {
		for _, pr := range p.allow {
			if pr.Contains(addr) && pr.Bits() > allowBits {
				allowBits = pr.Bits()
			}
		}
		for _, pr := range p.deny {
			if pr.Contains(addr) && pr.Bits() > denyBits {
				denyBits, denyBy = pr.Bits(), pr
			}
		}
	}
	switch {
	case denyBits >= 0 && denyBits >= allowBits:
		return &DeniedError{Addr: addr, Why: "deny CIDR " + denyBy.String()}
	case allowBits >= 0:
		return nil
	}
	for _, d := range defaultDenied {
		if d.prefix.Contains(addr) {
			return &DeniedError{Addr: addr, Why: d.why}
		}
	}
	if p != nil && slices.Contains(p.apiServer, addr) {
		return &DeniedError{Addr: addr, Why: "the Kubernetes API server"}
	}
	return nil
}
