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

package main

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/kubage/kubage/internal/egress"
)

// The manager hands its egress policy to task Jobs through these variables, so an agent
// dials under the same rules as the operator.
const (
	envEgressAllow = "KUBAGE_EGRESS_ALLOW_CIDRS"
	envEgressDeny  = "KUBAGE_EGRESS_DENY_CIDRS"
)

// egressOptions are the --egress-* flags.
type egressOptions struct {
	allow []string
	deny  []string
}

func (o *egressOptions) bindFlags(f *pflag.FlagSet) {
	f.StringSliceVar(&o.allow, "egress-allow-cidrs", nil, "CIDRs (or addresses) outbound connections may reach although a default deny covers them (link-local, loopback, unspecified, multicast, the API server).")
	f.StringSliceVar(&o.deny, "egress-deny-cidrs", nil, "CIDRs (or addresses) outbound connections may never reach, in addition to the defaults; the longest matching prefix of both lists wins, deny on a tie.")
}

// env is the policy as environment variables for task Jobs.
func (o egressOptions) env() map[string]string {
	return map[string]string{envEgressAllow: strings.Join(o.allow, ","), envEgressDeny: strings.Join(o.deny, ",")}
}

// egressFromEnv reads the policy a manager passed to a task Job.
func egressFromEnv(getenv func(string) string) egressOptions {
	split := func(v string) []string {
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return egressOptions{allow: split(getenv(envEgressAllow)), deny: split(getenv(envEgressDeny))}
}

// install builds the policy, denying the API server's own addresses, and makes it the
// process-wide policy every outbound client dials through.
func (o egressOptions) install(cfg *rest.Config) (*egress.Policy, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := egress.NewPolicy(egress.Options{AllowCIDRs: o.allow, DenyCIDRs: o.deny, APIServerAddrs: apiServerAddrs(ctx, cfg)})
	if err != nil {
		return nil, err
	}
	egress.SetDefault(p)
	return p, nil
}

// apiServerAddrs are the addresses of the API server: its configured host and the
// in-cluster service address.
func apiServerAddrs(ctx context.Context, cfg *rest.Config) []netip.Addr {
	var hosts []string
	if cfg != nil && cfg.Host != "" {
		h := cfg.Host
		if u, err := url.Parse(h); err == nil && u.Host != "" {
			h = u.Hostname()
		}
		hosts = append(hosts, h)
	}
	if h := os.Getenv("KUBERNETES_SERVICE_HOST"); h != "" {
		hosts = append(hosts, h)
	}
	var out []netip.Addr
	for _, h := range hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			out = append(out, a)
			continue
		}
		if addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", h); err == nil {
			out = append(out, addrs...)
		}
	}
	return out
}
